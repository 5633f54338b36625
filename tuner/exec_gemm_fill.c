/* Synthetic GEMM operands (exec_gemm_fill.h). */
#include "tuner/exec_gemm_fill.h"

#include <math.h>
#include <string.h>

uint16_t aoe_f32_to_bf16(float f)
{
    uint32_t w;
    memcpy(&w, &f, 4);
    if ((w & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((w >> 16) | 0x40); /* quiet NaN */
    w += 0x7fffu + ((w >> 16) & 1);
    return (uint16_t)(w >> 16);
}

uint16_t aoe_f32_to_f16(float f)
{
    uint32_t w;
    memcpy(&w, &f, 4);
    uint16_t sign = (uint16_t)((w >> 16) & 0x8000u);
    uint32_t a = w & 0x7fffffffu;
    if (a > 0x7f800000u) return sign | 0x7e00u;  /* NaN */
    if (a >= 0x477ff000u) return sign | 0x7c00u; /* rounds to infinity */
    if (a < 0x33000001u) return sign;            /* rounds to zero */
    int e = (int)(a >> 23) - 127;
    uint32_t mant = (a & 0x7fffffu) | 0x800000u;
    int shift = e < -14 ? 13 + (-14 - e) : 13; /* subnormal: shift further */
    uint32_t q = mant >> shift, rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1))) q++;
    if (e < -14) return sign | (uint16_t)q;
    return sign | (uint16_t)((((uint32_t)(e + 15)) << 10) + (q - 0x400u));
}

typedef struct {
    uint64_t s;
} rng;

static double uniform01(rng *r)
{
    r->s ^= r->s << 13, r->s ^= r->s >> 7, r->s ^= r->s << 17;
    return (double)(r->s >> 11) / 9007199254740992.0;
}

static double normal(rng *r)
{
    double u = uniform01(r), v = uniform01(r);
    return sqrt(-2 * log(u > 1e-300 ? u : 1e-300)) * cos(6.283185307179586 * v);
}

int aoe_gemm_fill_wide_exponent(int32_t out_type, uint64_t k)
{
    /* A row of 2^E values times B (|b| <= ~5) summed over k stays below the
     * output's largest finite value: 2^E * 5 * k < max / 4. */
    double max_log2 = out_type == 2 ? 15.9 : 127.0; /* CUDA_R_16F, else f32/bf16/f64 range */
    double e = floor(max_log2 - 2 - log2(5.0) - log2(k ? (double)k : 1));
    if (e > 4) e = 4; /* wider would dominate max |ref| and blunt the check of the others */
    return e < 1 ? 1 : (int)e;
}

static void put(aoe_elem_type t, uint8_t *p, double v)
{
    float f = (float)v;
    uint16_t h;
    int64_t i = (int64_t)lrint(v);
    switch (t) {
    case AOE_ELEM_F32:
        memcpy(p, &f, 4);
        break;
    case AOE_ELEM_F64:
        memcpy(p, &v, 8);
        break;
    case AOE_ELEM_F16:
        h = aoe_f32_to_f16(f), memcpy(p, &h, 2);
        break;
    case AOE_ELEM_BF16:
        h = aoe_f32_to_bf16(f), memcpy(p, &h, 2);
        break;
    default:
        memcpy(p, &i, aoe_elem_size(t));
        break; /* little-endian integers */
    }
}

void aoe_gemm_fill(const aoe_gemm_desc *d, aoe_gemm_arg which, uint8_t *dst, uint64_t size)
{
    const int32_t types[] = {d->a_type, d->b_type, d->c_type, d->d_type,
                             d->bias_type < 0 ? d->d_type : d->bias_type};
    aoe_elem_type t = aoe_gemm_elem(types[which]);
    size_t es = aoe_elem_size(t);
    rng r = {0x9E3779B97F4A7C15ull ^ (0x100000001B3ull * (uint64_t)(which + 1))};
    int integer = t != AOE_ELEM_F32 && t != AOE_ELEM_F64 && t != AOE_ELEM_F16 && t != AOE_ELEM_BF16;
    if (t == AOE_ELEM_BYTES) { /* fp8/fp4: small values of either sign */
        for (uint64_t i = 0; i < size; i++) dst[i] = (uint8_t)((i * 7) % 23) ^ (i & 1 ? 0x80 : 0);
        return;
    }
    int wide = aoe_gemm_fill_wide_exponent(d->d_type, d->k);
    uint64_t count = size / es, stride = d->batch_count > 1 ? d->stride_a : 0;
    for (uint64_t i = 0; i < count; i++) {
        int band = i * 2 < count ? 0 : 1; /* normal, then uniform */
        if (which == AOE_GEMM_ARG_A && d->m) {
            uint64_t e = stride ? i % stride : i;
            uint64_t row = d->transa == 0 ? e % (d->lda ? d->lda : 1) : e / (d->lda ? d->lda : 1);
            band = (int)(row % d->m * 3 / d->m); /* the row of op(A) */
        }
        double v;
        if (integer)
            v = floor(uniform01(&r) * 9) - 4;
        else if (band == 0)
            v = normal(&r);
        else if (band == 1)
            v = 2 * uniform01(&r) - 1;
        else
            v = ldexp(uniform01(&r) < 0.5 ? -1 : 1,
                      (int)floor(uniform01(&r) * (2 * wide + 1)) - wide);
        put(t, dst + i * es, v);
    }
    for (uint64_t i = count * es; i < size; i++) dst[i] = 0;
}
