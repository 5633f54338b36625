/* Verification: classification of outputs from the reference runs, exact and
 * float comparisons, poison (unwritten) and out-of-bounds detection. */
#include "tuner/verify.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

static const aoe_tolerance tol = {1e-4, 1e-3, false};
static const aoe_tolerance exact = {1e-4, 1e-3, true};

static void floats(uint8_t *b, const float *v, size_t n)
{
    memcpy(b, v, n * 4);
}

Test(verify, identical_bytes_pass)
{
    uint8_t a[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    char why[256] = "";
    cr_assert_eq(aoe_verify_buffer(a, a, sizeof a, 0, NULL, &exact, why, sizeof why), 0);
}

Test(verify, integers_must_match_exactly)
{
    int32_t ref[4] = {1, 2, 3, 4}, got[4] = {1, 2, 3, 5};
    char why[256] = "";
    cr_assert_eq(
        aoe_verify_buffer((uint8_t *)ref, (uint8_t *)got, 16, 0, NULL, &tol, why, sizeof why), -1);
    cr_assert(strstr(why, "wrong result") == why, "%s", why);
}

Test(verify, floats_within_tolerance_pass_and_beyond_fail)
{
    float r[4] = {1.0f, 2.0f, 3.0f, 4.0f}, near[4] = {1.0f, 2.0f, 3.0000002f, 4.0f},
          far[4] = {1.0f, 2.0f, 3.1f, 4.0f};
    uint8_t rb[16], nb[16], fb[16];
    floats(rb, r, 4), floats(nb, near, 4), floats(fb, far, 4);
    char why[256] = "";
    cr_assert_eq(aoe_verify_buffer(rb, nb, 16, 0, NULL, &tol, why, sizeof why), 0, "%s", why);
    cr_assert_eq(aoe_verify_buffer(rb, fb, 16, 0, NULL, &tol, why, sizeof why), -1);
    cr_assert(strstr(why, "relative L2"), "%s", why);
    /* The same small difference fails when exactness is required. */
    cr_assert_eq(aoe_verify_buffer(rb, nb, 16, 0, NULL, &exact, why, sizeof why), -1);
}

Test(verify, nan_never_passes)
{
    float r[2] = {1.0f, 2.0f}, g[2] = {1.0f, NAN};
    uint8_t rb[8], gb[8];
    floats(rb, r, 2), floats(gb, g, 2);
    aoe_tolerance loose = {1e9, 1e9, false};
    char why[256] = "";
    cr_assert_eq(aoe_verify_buffer(rb, gb, 8, 0, NULL, &loose, why, sizeof why), -1);
    cr_assert(strstr(why, "wrong result"), "%s", why);
}

Test(verify, classify_finds_written_bytes_and_pure_outputs)
{
    /* The kernel writes bytes 0..5 and leaves 6..7 alone. */
    uint8_t plain[8] = {9, 9, 9, 9, 9, 9, 0, 0};
    uint8_t p1[8] = {9, 9, 9, 9, 9, 9, AOE_POISON_1, AOE_POISON_1};
    uint8_t p2[8] = {9, 9, 9, 9, 9, 9, AOE_POISON_2, AOE_POISON_2};
    uint8_t w[8];
    cr_assert_eq(aoe_verify_classify(plain, p1, p2, 8, w), 1);
    for (int i = 0; i < 6; i++) cr_assert_eq(w[i], 1);
    cr_assert_eq(w[6], 0);
    cr_assert_eq(w[7], 0);
    /* In place: what it writes depends on what was there. */
    uint8_t q1[8] = {1, 9, 9, 9, 9, 9, AOE_POISON_1, AOE_POISON_1};
    cr_assert_eq(aoe_verify_classify(plain, q1, p2, 8, w), 0);
}

Test(verify, unwritten_elements_are_named)
{
    float r[4] = {1, 2, 3, 4};
    uint8_t rb[16], got[16], w[16];
    floats(rb, r, 4);
    memcpy(got, rb, 16);
    memset(got + 12, AOE_POISON_1, 4); /* the variant skipped the last element */
    memset(w, 1, 16);
    char why[256] = "";
    cr_assert_eq(aoe_verify_buffer(rb, got, 16, 1, w, &tol, why, sizeof why), -1);
    cr_assert(strstr(why, "unwritten output: 1 of") == why, "%s", why);
}

Test(verify, writes_outside_the_reference_region_fail)
{
    float r[4] = {1, 2, 3, 4};
    uint8_t rb[16], got[16], w[16];
    floats(rb, r, 4);
    memcpy(got, rb, 16);
    memset(w, 1, 16);
    memset(w + 12, 0, 4);             /* the default leaves the last element alone ... */
    memset(rb + 12, AOE_POISON_1, 4); /* (so the reference holds poison there) */
    char why[256] = "";
    cr_assert_eq(aoe_verify_buffer(rb, got, 16, 1, w, &tol, why, sizeof why), -1);
    cr_assert(strstr(why, "out-of-bounds write") == why, "%s", why);
}

Test(verify, outputs_report_guard_hits_and_argument)
{
    aoe_reference ref;
    cr_assert_eq(aoe_reference_init(&ref, 2), 0);
    float r[2] = {1, 2}, bad[2] = {1, 3};
    ref.size[1] = 8;
    ref.ref[1] = malloc(8);
    floats(ref.ref[1], r, 2);
    uint8_t gb[8];
    const uint8_t *got[2] = {NULL, gb};
    char why[512] = "";
    floats(gb, r, 2);
    cr_assert_eq(aoe_verify_outputs(&ref, got, 0, -1, &tol, why, sizeof why), 0);
    cr_assert_eq(aoe_verify_outputs(&ref, got, 4, 1, &tol, why, sizeof why), -1);
    cr_assert(strstr(why, "out-of-bounds write") == why && strstr(why, "args[1]"), "%s", why);
    floats(gb, bad, 2);
    cr_assert_eq(aoe_verify_outputs(&ref, got, 0, -1, &tol, why, sizeof why), -1);
    cr_assert(strstr(why, "wrong result: args[1]") == why, "%s", why);
    aoe_reference_free(&ref);
}

Test(verify, small_integers_are_not_taken_for_floats)
{
    /* Small ints are float denormals: compared exactly, so off-by-one fails
     * even under a huge tolerance. */
    int32_t ref[4] = {100, 200, 300, 400}, got[4] = {100, 200, 301, 400};
    aoe_tolerance loose = {0.5, 1e9, false};
    char why[256] = "";
    cr_assert_eq(
        aoe_verify_buffer((uint8_t *)ref, (uint8_t *)got, 16, 0, NULL, &loose, why, sizeof why),
        -1);
    cr_assert(strstr(why, "bytes differ"), "%s", why);
}

Test(verify, reason_category)
{
    char cat[32];
    aoe_reason_category("crash: SIGSEGV (Segmentation fault)", cat, sizeof cat);
    cr_assert_str_eq(cat, "crash");
    aoe_reason_category("no colon", cat, sizeof cat);
    cr_assert_str_eq(cat, "no colon");
}

/* ---- element types ---- */

static const aoe_tolerance deflt = {AOE_TOLERANCE_REL_L2, AOE_TOLERANCE_MAX_ABS, false};

static int typed(aoe_elem_type t, const void *ref, const void *got, size_t size,
                 const aoe_tolerance *tl, char *why, size_t whylen)
{
    return aoe_verify_buffer_typed(t, ref, got, size, 0, NULL, tl, why, whylen);
}

Test(verify_typed, half_floats_last_bit_passes_exponent_fails)
{
    /* f16: 1, 2, 3, 4 */
    uint16_t ref[4] = {0x3C00, 0x4000, 0x4200, 0x4400};
    uint16_t last[4] = {0x3C01, 0x4001, 0x4201, 0x4401}; /* every element one ulp off */
    uint16_t expo[4] = {0x3C00, 0x4400, 0x4200, 0x4400}; /* 2 -> 4: exponent bit */
    char why[256] = "";
    cr_assert_eq(typed(AOE_ELEM_F16, ref, last, 8, &deflt, why, sizeof why), 0, "%s", why);
    cr_assert_eq(typed(AOE_ELEM_F16, ref, expo, 8, &deflt, why, sizeof why), -1);
    cr_assert(strstr(why, "wrong result: f16 relative L2") == why, "%s", why);
    /* bf16: the same values */
    uint16_t bref[4] = {0x3F80, 0x4000, 0x4040, 0x4080};
    uint16_t blast[4] = {0x3F81, 0x4001, 0x4041, 0x4081};
    uint16_t bexpo[4] = {0x3F80, 0x4000, 0x40C0, 0x4080}; /* 3 -> 6 */
    cr_assert_eq(typed(AOE_ELEM_BF16, bref, blast, 8, &deflt, why, sizeof why), 0, "%s", why);
    cr_assert_eq(typed(AOE_ELEM_BF16, bref, bexpo, 8, &deflt, why, sizeof why), -1);
    cr_assert(strstr(why, "wrong result: bf16"), "%s", why);
    /* compared as f32 pairs, one bf16 ulp would not pass the default tolerance */
    cr_assert_eq(typed(AOE_ELEM_F32, bref, blast, 8, &deflt, why, sizeof why), -1);
}

Test(verify_typed, nan_placement_must_match)
{
    aoe_tolerance loose = {1e9, 1e9, false};
    float r[4] = {1, NAN, 3, 4}, moved[4] = {1, 2, NAN, 4};
    char why[256] = "";
    cr_assert_eq(typed(AOE_ELEM_F32, r, moved, 16, &loose, why, sizeof why), -1);
    cr_assert(strstr(why, "f32 element 1 is 2, expected nan"), "%s", why);
    /* a NaN facing a NaN passes whatever its payload */
    uint32_t other_nan = 0x7fc00123u;
    float same[4] = {1, 0, 3, 4};
    memcpy(&same[1], &other_nan, 4);
    cr_assert_eq(typed(AOE_ELEM_F32, r, same, 16, &deflt, why, sizeof why), 0, "%s", why);
    /* f16 and f64 too */
    uint16_t h[2] = {0x3C00, 0x7E00}, hm[2] = {0x7E00, 0x3C00};
    cr_assert_eq(typed(AOE_ELEM_F16, h, hm, 4, &loose, why, sizeof why), -1);
    double d[2] = {1, NAN}, dm[2] = {NAN, 1};
    cr_assert_eq(typed(AOE_ELEM_F64, d, dm, 16, &loose, why, sizeof why), -1);
}

Test(verify_typed, infinity_sign_must_match)
{
    aoe_tolerance loose = {1e9, 1e9, false};
    float r[2] = {1, INFINITY}, neg[2] = {1, -INFINITY}, fin[2] = {1, 3e38f};
    char why[256] = "";
    cr_assert_eq(typed(AOE_ELEM_F32, r, r, 8, &loose, why, sizeof why), 0, "%s", why);
    cr_assert_eq(typed(AOE_ELEM_F32, r, neg, 8, &loose, why, sizeof why), -1);
    cr_assert(strstr(why, "-inf, expected inf"), "%s", why);
    cr_assert_eq(typed(AOE_ELEM_F32, r, fin, 8, &loose, why, sizeof why), -1);
    uint16_t h[1] = {0x7C00}, hn[1] = {0xFC00};
    cr_assert_eq(typed(AOE_ELEM_F16, h, hn, 2, &loose, why, sizeof why), -1);
}

Test(verify_typed, integers_and_bytes_are_exact)
{
    aoe_tolerance loose = {1e9, 1e9, false};
    /* large enough to look like float data to the untyped guess */
    int32_t r[4] = {1065353216, 1073741824, 1077936128, 1082130432};
    int32_t g[4] = {1065353216, 1073741825, 1077936128, 1082130432};
    char why[256] = "";
    cr_assert_eq(typed(AOE_ELEM_I32, r, g, 16, &loose, why, sizeof why), -1);
    cr_assert_str_eq(why, "wrong result: i32 element 1 is 1073741825, expected 1073741824");
    cr_assert_eq(
        aoe_verify_buffer((uint8_t *)r, (uint8_t *)g, 16, 0, NULL, &loose, why, sizeof why), 0,
        "the untyped guess takes them for floats: %s", why);
    int8_t a[3] = {-5, 0, 7}, b[3] = {-4, 0, 7};
    cr_assert_eq(typed(AOE_ELEM_I8, a, b, 3, &loose, why, sizeof why), -1);
    cr_assert_str_eq(why, "wrong result: i8 element 0 is -4, expected -5");
    uint64_t u[1] = {~0ull}, v[1] = {~0ull - 1};
    cr_assert_eq(typed(AOE_ELEM_U64, u, v, 8, &loose, why, sizeof why), -1);
    cr_assert(strstr(why, "u64 element 0 is 18446744073709551614"), "%s", why);
    cr_assert_eq(typed(AOE_ELEM_BYTES, a, b, 3, &loose, why, sizeof why), -1);
    cr_assert(strstr(why, "bytes differ"), "%s", why);
    cr_assert_eq(typed(AOE_ELEM_U16, a, a, 3, &loose, why, sizeof why), 0);
}

Test(verify_typed, f64_tolerance_is_tighter_than_f32)
{
    aoe_tolerance t64 = aoe_verify_tolerance_for(AOE_ELEM_F64, &deflt);
    cr_assert_lt(t64.rel_l2, deflt.rel_l2 * 1e-6);
    cr_assert_lt(t64.max_abs, deflt.max_abs * 1e-6);
    /* the same relative error (1e-7) passes as f32 and fails as f64 */
    float fr[4] = {1, 2, 3, 4}, fg[4] = {1, 2, 3.0000003f, 4};
    double dr[4] = {1, 2, 3, 4}, dg[4] = {1, 2, 3.0000003, 4};
    char why[256] = "";
    cr_assert_eq(typed(AOE_ELEM_F32, fr, fg, 16, &deflt, why, sizeof why), 0, "%s", why);
    cr_assert_eq(typed(AOE_ELEM_F64, dr, dg, 32, &deflt, why, sizeof why), -1);
    cr_assert(strstr(why, "f64 relative L2"), "%s", why);
    /* one f64 ulp passes */
    dg[2] = nextafter(3.0, 4.0);
    cr_assert_eq(typed(AOE_ELEM_F64, dr, dg, 32, &deflt, why, sizeof why), 0, "%s", why);
    /* f16/bf16 allow about two ulps of their own on top of the declared */
    aoe_tolerance t16 = aoe_verify_tolerance_for(AOE_ELEM_F16, &deflt);
    aoe_tolerance tb = aoe_verify_tolerance_for(AOE_ELEM_BF16, &deflt);
    cr_assert_float_eq(t16.rel_l2, deflt.rel_l2 + 2.0 / 1024, 1e-12);
    cr_assert_float_eq(tb.rel_l2, deflt.rel_l2 + 2.0 / 128, 1e-12);
    aoe_tolerance t32 = aoe_verify_tolerance_for(AOE_ELEM_F32, &deflt);
    cr_assert(t32.rel_l2 == deflt.rel_l2 && t32.max_abs == deflt.max_abs);
}

Test(verify_typed, exact_and_unwritten_per_element)
{
    uint16_t ref[4] = {0x3C00, 0x4000, 0x4200, 0x4400}, got[4];
    uint8_t w[8];
    char why[256] = "";
    memcpy(got, ref, 8);
    got[1] = 0x4001;
    cr_assert_eq(typed(AOE_ELEM_F16, ref, got, 8, &exact, why, sizeof why), -1);
    cr_assert(strstr(why, "exact match required"), "%s", why);
    /* poisoned output, the variant skipped one f16 element */
    memcpy(got, ref, 8);
    memset(&got[3], AOE_POISON_1, 2);
    memset(w, 1, 8);
    cr_assert_eq(aoe_verify_buffer_typed(AOE_ELEM_F16, (uint8_t *)ref, (uint8_t *)got, 8, 1, w,
                                         &deflt, why, sizeof why),
                 -1);
    cr_assert(strstr(why, "unwritten output: 1 of") == why, "%s", why);
}

Test(verify_typed, reference_elem_types_select_the_comparison)
{
    aoe_reference ref;
    cr_assert_eq(aoe_reference_init(&ref, 2), 0);
    cr_assert_eq(ref.elem[0], AOE_VERIFY_UNTYPED);
    cr_assert_eq(ref.elem[1], AOE_VERIFY_UNTYPED);
    uint16_t r[4] = {0x3C00, 0x4000, 0x4200, 0x4400}, g[4] = {0x3C01, 0x4001, 0x4201, 0x4401};
    ref.size[1] = 8;
    ref.ref[1] = malloc(8);
    memcpy(ref.ref[1], r, 8);
    const uint8_t *got[2] = {NULL, (uint8_t *)g};
    char why[512] = "";
    /* untyped: bytes that do not look like float32 must match exactly */
    cr_assert_eq(aoe_verify_outputs(&ref, got, 0, -1, &deflt, why, sizeof why), -1);
    ref.elem[1] = AOE_ELEM_F16;
    cr_assert_eq(aoe_verify_outputs(&ref, got, 0, -1, &deflt, why, sizeof why), 0, "%s", why);
    ref.elem[1] = AOE_ELEM_U16;
    cr_assert_eq(aoe_verify_outputs(&ref, got, 0, -1, &deflt, why, sizeof why), -1);
    cr_assert(strstr(why, "wrong result: args[1]: u16 element 0 is 15361, expected 15360"), "%s",
              why);
    aoe_reference_free(&ref);
}

Test(verify_typed, job_element_types_reach_the_reference)
{
    aoe_job_arg args[3] = {{.kind = AOE_JOB_ARG_BUFFER, .size = 8, .elem = AOE_ELEM_F16},
                           {.kind = AOE_JOB_ARG_BUFFER, .size = 8, .elem = AOE_ELEM_BYTES},
                           {.kind = AOE_JOB_ARG_BUFFER, .size = 8, .elem = AOE_ELEM_I32}};
    aoe_job job = {.nargs = 3, .args = args};
    aoe_reference ref;
    cr_assert_eq(aoe_reference_init(&ref, 3), 0);
    aoe_reference_types_from_job(&ref, &job);
    cr_assert_eq(ref.elem[0], AOE_ELEM_F16);
    cr_assert_eq(ref.elem[1], AOE_VERIFY_UNTYPED); /* bytes: not known, the float32 guess */
    cr_assert_eq(ref.elem[2], AOE_ELEM_I32);
    /* f16 data one ulp off passes as f16 (it would fail untyped) */
    uint16_t r[4] = {0x3C00, 0x4000, 0x4200, 0x4400}, g[4] = {0x3C01, 0x4001, 0x4201, 0x4401};
    ref.size[0] = 8;
    ref.ref[0] = malloc(8);
    memcpy(ref.ref[0], r, 8);
    const uint8_t *got[3] = {(uint8_t *)g, NULL, NULL};
    char why[512] = "";
    cr_assert_eq(aoe_verify_outputs(&ref, got, 0, -1, &deflt, why, sizeof why), 0, "%s", why);
    aoe_reference_free(&ref);
}

Test(verify_typed, f32_holding_integers_compares_exactly)
{
    /* a float* buffer the kernel fills with bit-cast small integers (subnormal
     * as floats): one changed index is a wrong result, typed or not */
    uint32_t r[64], g[64];
    for (uint32_t i = 0; i < 64; i++) r[i] = g[i] = i;
    g[7] = 12345;
    char why[256] = "";
    cr_assert_eq(
        aoe_verify_buffer((uint8_t *)r, (uint8_t *)g, sizeof r, 0, NULL, &deflt, why, sizeof why),
        -1);
    cr_assert_eq(aoe_verify_buffer_typed(AOE_ELEM_F32, (uint8_t *)r, (uint8_t *)g, sizeof r, 0,
                                         NULL, &deflt, why, sizeof why),
                 -1, "typed f32 accepted a changed integer: %s", why);
    cr_assert(strstr(why, "wrong result") == why, "%s", why);
}
