/* The GEMM executor's pure parts (no CUDA): candidate enumeration (order,
 * bounds, duplicates, the check deciding), the tolerance rule, the element-wise
 * output check, the typed synthetic operands and the float conversions. */
#include "tuner/exec_gemm_candidates.h"
#include "tuner/exec_gemm_fill.h"
#include "tuner/exec_gemm_tolerance.h"
#include "tuner/exec_gemm_verify.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

static int accept_all(void *ctx, aoe_gemm_algo *a)
{
    (*(int *)ctx)++;
    a->workspace = (uint32_t)(a->splitk > 1 ? 1024 * a->splitk : 0);
    return 0;
}

/* Refuses split-K above 4 and algorithm 7 entirely (a workspace limit, an
 * algorithm the problem does not fit). */
static int refuse_some(void *ctx, aoe_gemm_algo *a)
{
    (void)ctx;
    return a->splitk > 4 || a->algo == 7 ? -1 : 0;
}

static aoe_gemm_algo heur(int32_t id, uint32_t tile)
{
    aoe_gemm_algo a;
    aoe_gemm_algo_init(&a);
    a.algo = id, a.tile = tile;
    return a;
}

Test(gemm_candidates, heuristic_first_then_round_robin_over_algorithms)
{
    aoe_gemm_algo h[2] = {heur(66, 0), heur(6, 18)};
    aoe_gemm_caps caps[2] = {{.id = 6, .tiles = {18, 20}, .ntiles = 2},
                             {.id = 21, .tiles = {5}, .ntiles = 1, .swizzle = 1}};
    aoe_gemm_algo out[AOE_GEMM_MAX_CANDIDATES];
    aoe_gemm_cand_stats st;
    int checks = 0;
    size_t n = aoe_gemm_candidates(h, 2, caps, 2, 7, accept_all, &checks, out, 96, &st);
    /* 2 heuristic; id 6: tiles 18 (= heuristic's second: duplicate), 20; id 21: swizzle 0, 1 */
    cr_assert_eq(n, 5);
    cr_assert_eq(out[0].algo, 66);
    cr_assert_eq(out[1].algo, 6);
    cr_assert_eq(out[1].tile, 18);
    cr_assert_eq(out[2].algo, 21); /* round robin: id 6's first was a duplicate */
    cr_assert_eq(out[2].swizzle, 0);
    cr_assert_eq(out[3].algo, 6);
    cr_assert_eq(out[3].tile, 20);
    cr_assert_eq(out[4].algo, 21);
    cr_assert_eq(out[4].swizzle, 1);
    cr_assert_eq(st.heuristic, 2);
    cr_assert_eq(st.built, 3);
    cr_assert_eq(st.duplicate, 1);
    cr_assert_eq(checks, 5); /* a duplicate is not checked again */
}

Test(gemm_candidates, split_k_with_each_allowed_reduction_scheme)
{
    aoe_gemm_caps c = {.id = 6, .splitk = 1, .reduction_mask = 3}; /* INPLACE, COMPUTE_TYPE */
    aoe_gemm_algo out[64];
    int checks = 0;
    /* the job allows COMPUTE_TYPE (2) and OUTPUT_TYPE (4): only 2 is both */
    size_t n = aoe_gemm_candidates(NULL, 0, &c, 1, 6, accept_all, &checks, out, 64, NULL);
    cr_assert_eq(n, 5); /* split 1; 2, 4, 8, 16 with scheme 2 */
    cr_assert_eq(out[0].splitk, 1);
    cr_assert_eq(out[0].reduction, 0);
    for (size_t i = 1; i < n; i++) {
        cr_assert_eq(out[i].splitk, 1 << i);
        cr_assert_eq(out[i].reduction, 2);
        cr_assert_eq(out[i].workspace, 1024u << i, "the check's workspace is kept");
    }
}

Test(gemm_candidates, check_decides_and_counts)
{
    aoe_gemm_algo h[1] = {heur(7, 0)}; /* refused: even the heuristic's answer is checked */
    aoe_gemm_caps c = {.id = 6, .splitk = 1, .reduction_mask = 7};
    aoe_gemm_algo out[64];
    aoe_gemm_cand_stats st;
    size_t n = aoe_gemm_candidates(h, 1, &c, 1, 7, refuse_some, NULL, out, 64, &st);
    cr_assert_eq(st.heuristic, 0);
    cr_assert_eq(n, 1 + 2 * 3); /* split 1; 2 and 4 with three schemes each */
    cr_assert_eq(st.refused, 1 + 2 * 3);
    for (size_t i = 0; i < n; i++) cr_assert_leq(out[i].splitk, 4);
}

Test(gemm_candidates, bounded_and_deterministic)
{
    aoe_gemm_caps c = {.id = 6,
                       .ntiles = 20,
                       .nstages = 10,
                       .splitk = 1,
                       .reduction_mask = 7,
                       .swizzle = 1,
                       .custom_max = 9};
    for (uint32_t i = 0; i < 20; i++) c.tiles[i] = i + 1;
    for (uint32_t i = 0; i < 10; i++) c.stages[i] = i + 1;
    static aoe_gemm_algo a[AOE_GEMM_MAX_CANDIDATES], b[AOE_GEMM_MAX_CANDIDATES];
    int checks = 0;
    size_t n = aoe_gemm_candidates(NULL, 0, &c, 1, 7, accept_all, &checks, a, 1000, NULL);
    cr_assert_eq(n, AOE_GEMM_MAX_BUILT);
    cr_assert_eq(aoe_gemm_candidates(NULL, 0, &c, 1, 7, accept_all, &checks, b, 1000, NULL), n);
    cr_assert_eq(memcmp(a, b, n * sizeof *a), 0);
    cr_assert_eq(aoe_gemm_candidates(NULL, 0, &c, 1, 7, accept_all, &checks, b, 10, NULL), 10);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++) cr_assert(!aoe_gemm_algo_same(&a[i], &a[j]));
    cr_assert_leq(a[n - 1].custom, AOE_GEMM_CUSTOM_MAX);
}

Test(gemm_tolerance, from_compute_roundoff_and_k)
{
    aoe_tolerance t = aoe_gemm_tolerance(AOE_ELEM_BF16, 68, 4096); /* f32 compute */
    cr_assert(!t.exact);
    cr_assert_float_eq(t.rel_l2, 4 * 64 * ldexp(1, -24), 1e-12);
    cr_assert_float_eq(t.max_abs, 4096 * ldexp(1, -24), 1e-12);
    t = aoe_gemm_tolerance(AOE_ELEM_F32, 68, 1); /* the floor of 8 roundoffs */
    cr_assert_float_eq(t.max_abs, 8 * ldexp(1, -24), 1e-15);
    t = aoe_gemm_tolerance(AOE_ELEM_F16, 64, 1 << 20); /* f16 compute: capped */
    cr_assert_float_eq(t.rel_l2, 0.25, 1e-12);
    cr_assert_float_eq(t.max_abs, 0.25, 1e-12);
    cr_assert(aoe_gemm_tolerance(AOE_ELEM_I32, 72, 64).exact);   /* integer compute */
    cr_assert(aoe_gemm_tolerance(AOE_ELEM_BF16, 999, 64).exact); /* unknown compute */
    cr_assert(aoe_gemm_tolerance(AOE_ELEM_BYTES, 68, 64).exact); /* fp8 output */
    t = aoe_gemm_tolerance(AOE_ELEM_F64, 70, 100); /* declared as for f32: scaled by 2^29 */
    cr_assert_float_eq(t.rel_l2, ldexp(4 * 10 * ldexp(1, -53), 29), 1e-20);
}

static aoe_gemm_desc desc_bf16(uint64_t k)
{
    aoe_gemm_desc d;
    aoe_gemm_desc_init(&d);
    strcpy(d.library, "cublasLt");
    d.library_version = 130100;
    d.a_type = d.b_type = d.c_type = d.d_type = 14;
    d.compute_type = 68, d.scale_type = 0;
    d.m = d.n = 4, d.k = k;
    d.lda = k, d.ldb = k, d.ldc = d.ldd = 4;
    d.transa = 1;
    return d;
}

static void bf16s(uint8_t *dst, const float *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint16_t h = aoe_f32_to_bf16(v[i]);
        memcpy(dst + 2 * i, &h, 2);
    }
}

Test(gemm_verify, element_off_by_many_of_its_ulps_fails)
{
    aoe_gemm_desc d = desc_bf16(64);
    float ref[4] = {1.875f, 100.0f, -3.0f, 0.0f}, ok[4] = {1.8828125f, 100.5f, -3.0f, 0.0f},
          bad[4] = {2.03125f, 100.0f, -3.0f, 0.0f};
    uint8_t r[8], g[8];
    char why[256] = "";
    bf16s(r, ref, 4);
    bf16s(g, ok, 4); /* one bf16 ulp at 1.875, one at 100 */
    cr_assert_eq(aoe_gemm_check_output(&d, r, g, 8, why, sizeof why), 0, "%s", why);
    bf16s(g, bad, 4); /* 0.156 at 1.875: 20 ulps, though 0.16 % of max |D| */
    cr_assert_eq(aoe_gemm_check_output(&d, r, g, 8, why, sizeof why), -1);
    cr_assert(strstr(why, "wrong result: args[3]: bf16 element 0 is 2.03125") == why, "%s", why);
}

Test(gemm_verify, accumulation_slack_scales_with_k_and_max)
{
    aoe_gemm_desc d = desc_bf16(1 << 20); /* k u = 2^20 2^-24 = 1/16 of max |D| */
    float ref[2] = {0.0f, 64.0f}, got[2] = {3.5f, 64.0f};
    uint8_t r[4], g[4];
    char why[256] = "";
    bf16s(r, ref, 2);
    bf16s(g, got, 2); /* 3.5 <= 2 ulps + 64/16 */
    cr_assert_eq(aoe_gemm_check_output(&d, r, g, 4, why, sizeof why), 0, "%s", why);
    d.k = 1;
    cr_assert_eq(aoe_gemm_check_output(&d, r, g, 4, why, sizeof why), -1);
}

Test(gemm_verify, ulp)
{
    cr_assert_float_eq(aoe_gemm_ulp(AOE_ELEM_BF16, 1.0), ldexp(1, -7), 0);
    cr_assert_float_eq(aoe_gemm_ulp(AOE_ELEM_BF16, 1.9), ldexp(1, -7), 0);
    cr_assert_float_eq(aoe_gemm_ulp(AOE_ELEM_F16, 2.0), ldexp(1, -9), 0);
    cr_assert_float_eq(aoe_gemm_ulp(AOE_ELEM_F32, 0.0), ldexp(1, -149), 0);
    cr_assert_float_eq(aoe_gemm_ulp(AOE_ELEM_F16, 1e-7), ldexp(1, -24), 0);
}

Test(gemm_fill, conversions_round_to_nearest_even)
{
    cr_assert_eq(aoe_f32_to_f16(1.0f), 0x3c00);
    cr_assert_eq(aoe_f32_to_f16(-2.0f), 0xc000);
    cr_assert_eq(aoe_f32_to_f16(65504.0f), 0x7bff);
    cr_assert_eq(aoe_f32_to_f16(70000.0f), 0x7c00);
    cr_assert_eq(aoe_f32_to_f16(ldexp(1, -24)), 0x0001);        /* smallest subnormal */
    cr_assert_eq(aoe_f32_to_f16(1.0f + ldexp(1, -11)), 0x3c00); /* tie: to even */
    cr_assert_eq(aoe_f32_to_bf16(1.0f), 0x3f80);
    cr_assert_eq(aoe_f32_to_bf16(1.0f + ldexp(1, -8)), 0x3f80); /* tie: to even */
    cr_assert_eq(aoe_f32_to_bf16(1.0f + ldexp(3, -9)), 0x3f81);
}

Test(gemm_fill, typed_banded_deterministic_and_finite)
{
    aoe_gemm_desc d = desc_bf16(64);
    d.m = 6, d.lda = 64, d.ldc = d.ldd = 6; /* transa T: A is k x m, column j: row j of op(A) */
    uint64_t size = aoe_gemm_operand_bytes(&d, AOE_GEMM_ARG_A);
    uint8_t a[6 * 64 * 2], b[sizeof a];
    cr_assert_eq(size, sizeof a);
    aoe_gemm_fill(&d, AOE_GEMM_ARG_A, a, size);
    aoe_gemm_fill(&d, AOE_GEMM_ARG_A, b, size);
    cr_assert_eq(memcmp(a, b, size), 0);
    int wide = aoe_gemm_fill_wide_exponent(d.d_type, d.k);
    cr_assert_eq(wide, 4);
    double maxabs[6] = {0};
    for (size_t i = 0; i < size / 2; i++) {
        uint16_t h;
        memcpy(&h, a + 2 * i, 2);
        uint32_t w = (uint32_t)h << 16;
        float f;
        memcpy(&f, &w, 4);
        cr_assert(isfinite(f));
        size_t row = i / 64;
        if (fabs(f) > maxabs[row]) maxabs[row] = fabs(f);
    }
    cr_assert_leq(maxabs[2], 1.0); /* rows 2, 3: uniform [-1, 1) */
    cr_assert_leq(maxabs[3], 1.0);
    cr_assert_geq(maxabs[4], 4.0); /* rows 4, 5: wide, up to 2^4 */
    cr_assert_leq(maxabs[5], 16.0);
    /* f16 with a long k: the wide band shrinks so results stay finite */
    cr_assert_eq(aoe_gemm_fill_wide_exponent(2, 1 << 12), 1);
}
