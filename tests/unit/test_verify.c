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
