/* The reference GEMM and the planted errors. */
#include "fc_gemm.h"

#include <math.h>
#include <stdatomic.h>
#include <string.h>

int fc_elem_of(int cuda_type)
{
    switch (cuda_type) {
    case 0: /* CUDA_R_32F */
        return FC_F32;
    case 2: /* CUDA_R_16F */
        return FC_F16;
    case 14: /* CUDA_R_16BF */
        return FC_BF16;
    default:
        return -1;
    }
}

int fc_elem_size(enum fc_elem t)
{
    return t == FC_F32 ? 4 : 2;
}

static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    if (exp == 0x1f)
        bits = sign | 0x7f800000u | (man << 13);
    else if (exp)
        bits = sign | ((exp + 112) << 23) | (man << 13);
    else if (!man)
        bits = sign;
    else { /* subnormal: value = man * 2^-24 */
        float v = ldexpf((float)man, -24);
        return sign ? -v : v;
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static uint16_t float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    if (isnan(f)) return sign | 0x7e00;
    float a = fabsf(f);
    if (a >= 65520.0f) return sign | 0x7c00;
    if (a < ldexpf(1.0f, -14)) /* subnormal half: round to a multiple of 2^-24 */
        return sign | (uint16_t)lrintf(a * ldexpf(1.0f, 24));
    int e;
    float m = frexpf(a, &e); /* a = m * 2^e, m in [0.5, 1) */
    long mant = lrintf((m * 2.0f - 1.0f) * 1024.0f);
    if (mant == 1024) mant = 0, e++;
    return sign | (uint16_t)(((e - 1 + 15) << 10) | mant);
}

static float bf16_to_float(uint16_t b)
{
    uint32_t bits = (uint32_t)b << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static uint16_t float_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    if (isnan(f)) return (uint16_t)((x >> 16) | 0x40);
    x += 0x7fff + ((x >> 16) & 1); /* round to nearest even */
    return (uint16_t)(x >> 16);
}

float fc_load(const void *p, enum fc_elem t, int64_t i)
{
    if (t == FC_F32) return ((const float *)p)[i];
    uint16_t v = ((const uint16_t *)p)[i];
    return t == FC_F16 ? half_to_float(v) : bf16_to_float(v);
}

void fc_store(void *p, enum fc_elem t, int64_t i, float v)
{
    if (t == FC_F32)
        ((float *)p)[i] = v;
    else
        ((uint16_t *)p)[i] = t == FC_F16 ? float_to_half(v) : float_to_bf16(v);
}

static float epilogue(float v, uint32_t epi, float bias)
{
    if (epi & 4) /* BIAS */
        v += bias;
    if (epi & 2) /* RELU */
        v = v > 0 ? v : 0;
    if (epi & 32) /* GELU (tanh form, as cuBLASLt documents) */
        v = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
    return v;
}

void fc_gemm_run(const struct fc_gemm *g, const struct fc_algo_info *a)
{
    for (int64_t b = 0; b < g->batch; b++) {
        int64_t ao = b * g->a.stride, bo = b * g->b.stride, co = b * g->c.stride,
                dout = b * g->d.stride;
        for (int64_t j = 0; j < g->n; j++)
            for (int64_t i = 0; i < g->m; i++) {
                float acc = 0;
                for (int64_t l = 0; l < g->k; l++) {
                    int64_t ai = g->transa ? l + i * g->a.ld : i + l * g->a.ld;
                    int64_t bi = g->transb ? j + l * g->b.ld : l + j * g->b.ld;
                    acc += fc_load(g->a.ptr, g->a.type, ao + ai) *
                           fc_load(g->b.ptr, g->b.type, bo + bi);
                }
                float v = g->alpha * acc;
                if (g->beta != 0.0f && g->c.ptr)
                    v += g->beta * fc_load(g->c.ptr, g->c.type, co + i + j * g->c.ld);
                float bias =
                    g->bias ? fc_load(g->bias, g->bias_type, b * g->bias_stride + i) : 0.0f;
                fc_store((void *)g->d.ptr, g->d.type, dout + i + j * g->d.ld,
                         epilogue(v, g->epilogue, bias));
            }
    }
    if (!a || a->planted == FC_PLANT_NONE || g->m == 0 || g->n == 0 || g->batch == 0) return;
    /* The last element of the last matrix: wrong by amount*(1+|x|), NaN, or
     * its neighbour one past the end of D written (out of bounds). */
    int64_t last = (g->batch - 1) * g->d.stride + (g->m - 1) + (g->n - 1) * g->d.ld;
    float x = fc_load(g->d.ptr, g->d.type, last);
    if (a->planted == FC_PLANT_NONDET) {
        /* Every second call, one unit in the last place of the output type
         * more: within any tolerance, but two runs differ bit for bit (as a
         * split-K reduction with atomics can). */
        static _Atomic unsigned calls;
        float rel = g->d.type == FC_F32 ? 0x1p-23f : g->d.type == FC_F16 ? 0x1p-10f : 0x1p-7f;
        if (atomic_fetch_add(&calls, 1) % 2)
            fc_store((void *)g->d.ptr, g->d.type, last, x + fmaxf(fabsf(x), 1.0f) * rel);
    } else if (a->planted == FC_PLANT_OFF)
        fc_store((void *)g->d.ptr, g->d.type, last, x + a->planted_amount * (1.0f + fabsf(x)));
    else if (a->planted == FC_PLANT_NAN)
        fc_store((void *)g->d.ptr, g->d.type, last, NAN);
    else
        fc_store((void *)g->d.ptr, g->d.type, last + 1, x);
}
