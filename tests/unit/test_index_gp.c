/* The value-index GP's bounded expected improvement: a row is either scored
 * exactly or left at a value no greater than the floor it had to beat, so a
 * scan that keeps the best row finds the row a full score would; with several
 * length scales kept, that holds for their weighted average too, and the
 * average is the one of the single-scale fits, weighted by likelihood. */
#include "tuner/strategies/index_gp.h"

#include <criterion/criterion.h>
#include <math.h>

#define NP 3
#define NV 9
#define ROWS (NV * NV * NV)
#define FITTED 60

static const int n_values[NP] = {NV, NV, NV};
static uint16_t rows[ROWS * NP];

static double valley(void *ctx, size_t config)
{
    (void)ctx;
    const uint16_t *r = rows + config * NP;
    double a = r[0] - 6.0, b = r[1] - 2.0, c = r[2] - 4.0;
    return 1 + a * a + 0.5 * b * b + fabs(a * c) + 0.1 * c * c;
}

/* A search of the valley with FITTED random rows measured: their rows in
 * `fitted`, their log times standardised in `ys` (as the portfolio fits
 * them), the best of those in *f. */
static void measure(aoe_search *s, aoe_search_space *sp, long *fitted, double *ys, double *f)
{
    for (int i = 0; i < ROWS; i++)
        for (int p = 0, x = i; p < NP; p++, x /= NV) rows[i * NP + p] = (uint16_t)(x % NV);
    *sp = (aoe_search_space){NP, n_values, ROWS, rows, NULL};
    aoe_budget b = {.max_evals = FITTED, .seed = 7, .start_config = -1};
    cr_assert_eq(aoe_search_init(s, sp, valley, NULL, &b), 0);
    double sum = 0, sumsq = 0;
    for (int i = 0; i < FITTED; i++) {
        fitted[i] = aoe_search_random_unseen(s);
        ys[i] = log(aoe_search_eval(s, fitted[i]));
        sum += ys[i], sumsq += ys[i] * ys[i];
    }
    double mean = sum / FITTED, sd = sqrt(sumsq / FITTED - mean * mean);
    *f = INFINITY;
    for (int i = 0; i < FITTED; i++) {
        ys[i] = (ys[i] - mean) / sd;
        *f = ys[i] < *f ? ys[i] : *f;
    }
}

static const double scales[] = {0.25, 0.5, 1.0};
/* Near enough that no one of them is certain on the valley: all are kept. */
static const double close_scales[] = {0.3, 0.33, 0.36};

static void bounded_finds_full(int average)
{
    aoe_search_space sp;
    aoe_search s;
    long fitted[FITTED];
    double ys[FITTED], f;
    measure(&s, &sp, fitted, ys, &f);
    aoe_index_gp g;
    cr_assert_eq(aoe_index_gp_init(&g, &sp, FITTED, 0.1), 0);
    g.average = average;
    aoe_index_gp_fit(&g, &s, fitted, ys, FITTED, average ? close_scales : scales, 3);
    cr_assert_eq(g.kept, average ? 3 : 1);
    long best_full = -1, best_bounded = -1;
    double be_full = -INFINITY, be_bounded = -INFINITY;
    int cut = 0;
    for (long r = 0; r < ROWS; r++) {
        if (aoe_search_seen(&s, r)) continue;
        double exact = aoe_index_gp_ei(&g, &s, r, f, -INFINITY);
        cr_assert(exact >= 0 && isfinite(exact), "row %ld: %g", r, exact);
        /* Below the exact value the floor changes nothing; above it the
         * answer stays at or under the floor. */
        cr_assert_eq(aoe_index_gp_ei(&g, &s, r, f, exact * 0.999 - 1e-300), exact, "row %ld", r);
        double above = exact * 1.001 + 1e-12;
        cr_assert_leq(aoe_index_gp_ei(&g, &s, r, f, above), above, "row %ld", r);
        if (exact > be_full) be_full = exact, best_full = r;
        double e = aoe_index_gp_ei(&g, &s, r, f, be_bounded);
        cut += e != exact;
        if (e > be_bounded) be_bounded = e, best_bounded = r;
    }
    cr_log_info("%d of %d rows left at their bound; weights %g %g %g", cut, ROWS - FITTED, g.w[0],
                g.w[1], g.w[2]);
    cr_assert_eq(best_bounded, best_full);
    cr_assert_eq(be_bounded, be_full);
    cr_assert_gt(cut, 0, "no row was cut short: the bound was never used");
    aoe_index_gp_free(&g);
    aoe_search_free(&s);
}

Test(index_gp, bounded_expected_improvement_finds_the_row_a_full_score_finds)
{
    bounded_finds_full(0);
}

Test(index_gp, bounded_average_over_scales_finds_the_row_a_full_score_finds)
{
    bounded_finds_full(1);
}

/* Each kept scale's weight is its posterior probability among the scales
 * kept, and the average is the weighted sum of what a fit under that one
 * scale alone gives; without `average` the one scale kept is the most likely. */
Test(index_gp, average_is_the_likelihood_weighted_sum_of_single_scale_fits)
{
    aoe_search_space sp;
    aoe_search s;
    long fitted[FITTED];
    double ys[FITTED], f;
    measure(&s, &sp, fitted, ys, &f);
    aoe_index_gp avg, one, most;
    cr_assert_eq(aoe_index_gp_init(&avg, &sp, FITTED, 0.1), 0);
    cr_assert_eq(aoe_index_gp_init(&one, &sp, FITTED, 0.1), 0);
    cr_assert_eq(aoe_index_gp_init(&most, &sp, FITTED, 0.1), 0);
    avg.average = 1;
    aoe_index_gp_fit(&avg, &s, fitted, ys, FITTED, close_scales, 3);
    aoe_index_gp_fit(&most, &s, fitted, ys, FITTED, close_scales, 3);
    cr_assert_eq(most.kept, 1);
    cr_assert_eq(avg.kept, 3);
    double sum = 0;
    int top = 0;
    for (int k = 0; k < avg.kept; k++) {
        cr_assert(avg.w[k] >= 1e-3 && avg.w[k] <= 1, "weight %g", avg.w[k]);
        sum += avg.w[k];
        if (avg.w[k] > avg.w[top]) top = k;
    }
    cr_assert_eq(avg.ls[top], most.ls[0]);
    cr_assert_float_eq(sum, 1, 1e-12);
    for (long r = 0; r < ROWS; r += 7) {
        if (aoe_search_seen(&s, r)) continue;
        double want = 0;
        for (int k = 0; k < avg.kept; k++) {
            aoe_index_gp_fit(&one, &s, fitted, ys, FITTED, &avg.ls[k], 1);
            want += avg.w[k] * aoe_index_gp_ei(&one, &s, r, f, -INFINITY);
        }
        double got = aoe_index_gp_ei(&avg, &s, r, f, -INFINITY);
        cr_assert_float_eq(got, want, 1e-12 + 1e-9 * want, "row %ld: %g against %g", r, got, want);
    }
    aoe_index_gp_free(&avg);
    aoe_index_gp_free(&one);
    aoe_index_gp_free(&most);
    aoe_search_free(&s);
}
