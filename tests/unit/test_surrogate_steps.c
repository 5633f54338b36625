/* The surrogate's steps for a stalled incumbent, each on a synthetic space
 * built so that only that step finds the optimum within the budget. */
#include "tuner/strategy.h"

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Runs the surrogate on a synthetic space for seeds 1..20 and counts the runs
 * that find its optimum (time 0.5), checking that every run spends its whole
 * budget on distinct rows. */
#define MAX_ROWS (8 * 8 * 32)

typedef struct {
    aoe_search_space sp;
    double (*time)(const void *arg, const uint16_t *row);
    const void *arg; /* what time() needs besides the row */
    size_t calls;
    unsigned char seen[MAX_ROWS];
    bool twice;
} harness;

static double harness_eval(void *ctx, size_t config)
{
    harness *h = ctx;
    if (h->seen[config]) h->twice = true;
    h->seen[config] = 1;
    h->calls++;
    return h->time(h->arg, h->sp.configs + config * (size_t)h->sp.n_params);
}

static int runs_finding_optimum(harness *h, size_t budget)
{
    int found = 0;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        h->calls = 0;
        h->twice = false;
        memset(h->seen, 0, sizeof h->seen);
        aoe_budget b = {.max_evals = budget, .seed = seed, .start_config = -1};
        aoe_search_result r;
        cr_assert_eq(aoe_strategy_run("surrogate", &h->sp, harness_eval, h, &b, &r), 0);
        cr_assert_not(h->twice, "seed %lu evaluated a row twice", (unsigned long)seed);
        cr_assert_eq(h->calls, budget);
        found += r.best_time == 0.5;
    }
    return found;
}

/* Two parameters with one value list (a 2-D kernel's tile_size_x and
 * tile_size_y), a bowl whose minimum is at (a, b) = (4, 1), and an isolated
 * optimum at the exchange (1, 4): every one-change neighbour of it is an
 * ordinary bowl value, and each value's average effect points away from it.
 * Once the incumbent (4, 1, 2, 1) has stalled, the surrogate tries the
 * exchange; told nothing about the value lists, it rarely finds the optimum. */
#define SW_NP 4
static const int sw_n_values[SW_NP] = {6, 6, 5, 4};
static const int sw_list_id[SW_NP] = {0, 0, 2, 3};
static uint16_t sw_rows[6 * 6 * 5 * 4 * SW_NP];

static double swap_time(const void *arg, const uint16_t *r)
{
    (void)arg;
    if (r[0] == 1 && r[1] == 4 && r[2] == 2 && r[3] == 1) return 0.5;
    double a = r[0] - 4.0, b = r[1] - 1.0, c = r[2] - 2.0, d = r[3] - 1.0;
    return 2.0 + 0.05 * (a * a + b * b + c * c + d * d);
}

static int swap_found(harness *h, bool lists_known)
{
    size_t n = 0;
    for (int a = 0; a < 6; a++)
        for (int b = 0; b < 6; b++)
            for (int c = 0; c < 5; c++)
                for (int d = 0; d < 4; d++, n++) {
                    uint16_t *row = sw_rows + n * SW_NP;
                    row[0] = (uint16_t)a, row[1] = (uint16_t)b;
                    row[2] = (uint16_t)c, row[3] = (uint16_t)d;
                }
    h->sp = (aoe_search_space){SW_NP, sw_n_values, n, sw_rows, lists_known ? sw_list_id : NULL};
    h->time = swap_time;
    return runs_finding_optimum(h, 80);
}

Test(strategy, surrogate_tries_exchanging_same_list_parameters)
{
    static harness h;
    int with = swap_found(&h, true), without = swap_found(&h, false);
    cr_assert_geq(with, 16, "exchange optimum found in %d of 20 runs", with);
    cr_assert_leq(without, 8, "found in %d of 20 runs without the value lists", without);
}

/* Two block sizes (8 values each, a bowl with its minimum at (3, 5)) and five
 * flags (each worse when set), and an isolated optimum with three flags set
 * at some block sizes. At the bowl minimum's block sizes, the shape the
 * additive model ranks best (and the incumbent's), the surrogate's shape
 * steps try the flag combinations no one- or two-change step reaches and find
 * it; the same optimum at other block sizes is rarely found (the control: the
 * space is otherwise the same). */
#define SH_NP 7
static const int sh_n_values[SH_NP] = {8, 8, 2, 2, 2, 2, 2};
static uint16_t sh_rows[MAX_ROWS * SH_NP];

static double shape_time(const void *arg, const uint16_t *r)
{
    const int *needle = arg; /* its block sizes */
    if (r[0] == needle[0] && r[1] == needle[1] && r[2] && r[3] && r[4] && !r[5] && !r[6])
        return 0.5;
    double a = r[0] - 3.0, b = r[1] - 5.0;
    return 2.0 + 0.05 * (a * a + b * b) + 0.1 * (r[2] + r[3] + r[4] + r[5] + r[6]);
}

static int shape_found(harness *h, const int *needle)
{
    size_t n = 0;
    for (int a = 0; a < 8; a++)
        for (int b = 0; b < 8; b++)
            for (int f = 0; f < 32; f++, n++) {
                uint16_t *row = sh_rows + n * SH_NP;
                row[0] = (uint16_t)a, row[1] = (uint16_t)b;
                for (int k = 0; k < 5; k++) row[2 + k] = (uint16_t)(f >> k & 1);
            }
    h->sp = (aoe_search_space){SH_NP, sh_n_values, n, sh_rows, NULL};
    h->time = shape_time;
    h->arg = needle;
    return runs_finding_optimum(h, 100);
}

Test(strategy, surrogate_tries_new_flag_combinations_at_the_best_block_sizes)
{
    static harness h;
    static const int at_bowl[2] = {3, 5}, off_bowl[2] = {6, 1};
    int at_shape = shape_found(&h, at_bowl), elsewhere = shape_found(&h, off_bowl);
    cr_assert_geq(at_shape, 13, "optimum at the best shape found in %d of 20 runs", at_shape);
    cr_assert_leq(elsewhere, 4, "found in %d of 20 runs elsewhere", elsewhere);
}
