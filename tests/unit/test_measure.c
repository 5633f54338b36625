/* The paired confirmation's decision (tuner/measure.c) on synthetic rounds
 * of medians: a clear win, a clear loss, a noisy tie, one outlier round, a
 * gain under 1 %, bad timings; plus the median and spread it builds on. */
#include "tuner/measure.h"

#include <criterion/criterion.h>
#include <math.h>

static const double flat[7] = {100, 100, 100, 100, 100, 100, 100};

Test(measure, median_and_spread)
{
    double v[] = {5, 1, 3, 100, 2};
    cr_assert_float_eq(aoe_median(v, 5), 3, 1e-12);
    cr_assert_float_eq(aoe_median(v, 4), 4, 1e-12); /* 5 1 3 100: (3 + 5) / 2 */
    /* Deviations from 3: 2 2 0 97 1 -> MAD 2; the 100 does not matter. */
    cr_assert_float_eq(aoe_spread(v, 5, 3), 1.4826 * 2, 1e-12);
    cr_assert_eq(aoe_spread(v, 1, 5), 0);
}

Test(measure, clear_win_accepted_after_three_rounds)
{
    /* On a loaded machine the absolute times drift, the ratio does not. */
    double d[] = {100, 140, 90}, b[] = {50, 71, 44};
    aoe_paired_stats st;
    cr_assert_eq(aoe_paired_decide(b, d, 2, &st), AOE_PAIRED_UNDECIDED, "two rounds are too few");
    cr_assert_eq(aoe_paired_decide(b, d, 3, &st), AOE_PAIRED_ACCEPT);
    cr_assert_eq(st.rounds, 3);
    cr_assert_eq(st.faster, 3);
    cr_assert(st.median_ratio > 0.49 && st.median_ratio < 0.51, "%g", st.median_ratio);
    cr_assert(st.lower < st.median_ratio && st.median_ratio < st.upper && st.upper < 1);
}

Test(measure, modest_consistent_win_accepted)
{
    /* 10 % faster in every round, the ratios within 3 % of each other. */
    double b[] = {89, 91, 90}, d[] = {100, 100, 100};
    cr_assert_eq(aoe_paired_decide(b, d, 3, NULL), AOE_PAIRED_ACCEPT);
}

Test(measure, clear_loss_rejected)
{
    double b[] = {120, 125, 118}, d[] = {100, 100, 100};
    aoe_paired_stats st;
    cr_assert_eq(aoe_paired_decide(b, d, 3, &st), AOE_PAIRED_REJECT);
    cr_assert_eq(st.faster, 0);
    cr_assert(st.lower > 1, "%g", st.lower);
}

Test(measure, noisy_tie_is_never_accepted)
{
    double b[] = {90, 108, 97, 95, 104, 93, 99};
    aoe_paired_stats st;
    /* One slower round out of three: not yet decided either way. */
    cr_assert_eq(aoe_paired_decide(b, flat, 3, &st), AOE_PAIRED_UNDECIDED);
    cr_assert(st.median_ratio < 0.99, "the median alone would accept: %g", st.median_ratio);
    for (size_t n = 1; n <= 7; n++)
        cr_assert_neq(aoe_paired_decide(b, flat, n, NULL), AOE_PAIRED_ACCEPT, "n = %zu", n);
    cr_assert_eq(aoe_paired_decide(b, flat, 5, NULL), AOE_PAIRED_REJECT, "two slower rounds");
}

Test(measure, faster_every_round_but_within_noise_is_undecided)
{
    /* Faster each time, median 0.95, but the rounds scatter by 15 %. */
    double b[] = {80, 95, 97}, d[] = {100, 100, 100};
    aoe_paired_stats st;
    cr_assert_eq(aoe_paired_decide(b, d, 3, &st), AOE_PAIRED_UNDECIDED);
    cr_assert(st.upper >= 1, "%g", st.upper);
}

Test(measure, one_outlier_round_neither_vetoes_nor_decides)
{
    /* A load spike during the best's third measurement. */
    double b[] = {80, 81, 150, 79, 80}, d[] = {100, 100, 100, 100, 100};
    cr_assert_eq(aoe_paired_decide(b, d, 3, NULL), AOE_PAIRED_UNDECIDED);
    cr_assert_eq(aoe_paired_decide(b, d, 4, NULL), AOE_PAIRED_UNDECIDED);
    cr_assert_eq(aoe_paired_decide(b, d, 5, NULL), AOE_PAIRED_ACCEPT);
    /* The mirror image: a spike on the default does not make a loss a win. */
    double lb[] = {110, 111, 109, 110, 110}, ld[] = {100, 100, 300, 100, 100};
    cr_assert_eq(aoe_paired_decide(lb, ld, 5, NULL), AOE_PAIRED_REJECT);
}

Test(measure, gain_under_one_percent_rejected)
{
    double b[] = {99.5, 99.5, 99.6, 99.4, 99.5}, d[] = {100, 100, 100, 100, 100};
    aoe_paired_stats st;
    cr_assert_eq(aoe_paired_decide(b, d, 5, &st), AOE_PAIRED_REJECT);
    cr_assert_eq(st.faster, 5);
    cr_assert(st.lower >= AOE_PAIRED_MIN_GAIN, "%g", st.lower);
}

Test(measure, bad_timings_rejected)
{
    double b[] = {50, 0, 50}, nanb[] = {50, NAN, 50}, d[] = {100, 100, 100};
    cr_assert_eq(aoe_paired_decide(b, d, 3, NULL), AOE_PAIRED_REJECT);
    cr_assert_eq(aoe_paired_decide(nanb, d, 3, NULL), AOE_PAIRED_REJECT);
    cr_assert_eq(aoe_paired_decide(d, b, 3, NULL), AOE_PAIRED_REJECT);
    cr_assert_eq(aoe_paired_decide(b, d, 0, NULL), AOE_PAIRED_UNDECIDED);
}
