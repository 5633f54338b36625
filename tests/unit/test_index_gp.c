/* The value-index GP's bounded expected improvement: a row is either scored
 * exactly or left at a value no greater than the floor it had to beat, so a
 * scan that keeps the best row finds the row a full score would. */
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

Test(index_gp, bounded_expected_improvement_finds_the_row_a_full_score_finds)
{
    for (int i = 0; i < ROWS; i++)
        for (int p = 0, x = i; p < NP; p++, x /= NV) rows[i * NP + p] = (uint16_t)(x % NV);
    aoe_search_space sp = {NP, n_values, ROWS, rows, NULL};
    aoe_budget b = {.max_evals = FITTED, .seed = 7, .start_config = -1};
    aoe_search s;
    cr_assert_eq(aoe_search_init(&s, &sp, valley, NULL, &b), 0);
    long fitted[FITTED];
    double ys[FITTED], f = INFINITY;
    for (int i = 0; i < FITTED; i++) {
        fitted[i] = aoe_search_random_unseen(&s);
        ys[i] = log(aoe_search_eval(&s, fitted[i]));
        f = ys[i] < f ? ys[i] : f;
    }
    aoe_index_gp g;
    cr_assert_eq(aoe_index_gp_init(&g, &sp, FITTED, 0.1), 0);
    const double scales[] = {0.25, 0.5, 1.0};
    aoe_index_gp_fit(&g, &s, fitted, ys, FITTED, scales, 3);
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
    cr_log_info("%d of %d rows left at their bound", cut, ROWS - FITTED);
    cr_assert_eq(best_bounded, best_full);
    cr_assert_eq(be_bounded, be_full);
    cr_assert_gt(cut, 0, "no row was cut short: the bound was never used");
    aoe_index_gp_free(&g);
    aoe_search_free(&s);
}
