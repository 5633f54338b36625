/* The surrogate's steps for a stalled incumbent, each on a synthetic space
 * built so that only that step finds the optimum within the budget. */
#include "tuner/strategy.h"

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Two parameters with one value list (a 2-D kernel's tile_size_x and
 * tile_size_y), a bowl whose minimum is at (a, b) = (4, 1), and an isolated
 * optimum at the exchange (1, 4): every one-change neighbour of it is an
 * ordinary bowl value, and each value's average effect points away from it.
 * Once the incumbent (4, 1, 2, 1) has stalled, the surrogate tries the
 * exchange; told nothing about the value lists, it rarely finds the optimum. */
#define SW_NP 4
static const int sw_n_values[SW_NP] = {6, 6, 5, 4};
static const int sw_list_id[SW_NP] = {0, 0, 2, 3};

typedef struct {
    aoe_search_space sp;
    uint16_t rows[6 * 6 * 5 * 4 * SW_NP];
    size_t calls;
    unsigned char seen[6 * 6 * 5 * 4];
    bool twice;
} swap_space;

static double swap_eval(void *ctx, size_t config)
{
    swap_space *s = ctx;
    if (s->seen[config]) s->twice = true;
    s->seen[config] = 1;
    s->calls++;
    const uint16_t *r = s->rows + config * SW_NP;
    if (r[0] == 1 && r[1] == 4 && r[2] == 2 && r[3] == 1) return 0.5;
    double a = r[0] - 4.0, b = r[1] - 1.0, c = r[2] - 2.0, d = r[3] - 1.0;
    return 2.0 + 0.05 * (a * a + b * b + c * c + d * d);
}

static int swap_found(swap_space *s, bool lists_known)
{
    size_t n = 0;
    for (int a = 0; a < 6; a++)
        for (int b = 0; b < 6; b++)
            for (int c = 0; c < 5; c++)
                for (int d = 0; d < 4; d++, n++) {
                    uint16_t *row = s->rows + n * SW_NP;
                    row[0] = (uint16_t)a, row[1] = (uint16_t)b;
                    row[2] = (uint16_t)c, row[3] = (uint16_t)d;
                }
    s->sp = (aoe_search_space){SW_NP, sw_n_values, n, s->rows, lists_known ? sw_list_id : NULL};
    int found = 0;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        s->calls = 0;
        s->twice = false;
        memset(s->seen, 0, sizeof s->seen);
        aoe_budget b = {.max_evals = 80, .seed = seed, .start_config = -1};
        aoe_search_result r;
        cr_assert_eq(aoe_strategy_run("surrogate", &s->sp, swap_eval, s, &b, &r), 0);
        cr_assert_not(s->twice, "seed %lu evaluated a row twice", (unsigned long)seed);
        cr_assert_eq(s->calls, 80);
        found += r.best_time == 0.5;
    }
    return found;
}

Test(strategy, surrogate_tries_exchanging_same_list_parameters)
{
    static swap_space s;
    int with = swap_found(&s, true), without = swap_found(&s, false);
    cr_assert_geq(with, 16, "exchange optimum found in %d of 20 runs", with);
    cr_assert_leq(without, 8, "found in %d of 20 runs without the value lists", without);
}

/* Two block sizes (8 values each, a bowl with its minimum at (3, 5)) and five
 * flags (each worse when set), and an isolated optimum with three flags set
 * at some block sizes. At the bowl minimum's block sizes, the incumbent's
 * shape, the surrogate tries the flag combinations no one- or two-change step
 * reaches and finds it; the same optimum at other block sizes is rarely found
 * (the control: the space is otherwise the same). */
#define SH_NP 7
static const int sh_n_values[SH_NP] = {8, 8, 2, 2, 2, 2, 2};

typedef struct {
    aoe_search_space sp;
    uint16_t rows[8 * 8 * 32 * SH_NP];
    int needle_x, needle_y;
    size_t calls;
    unsigned char seen[8 * 8 * 32];
    bool twice;
} shape_space;

static double shape_eval(void *ctx, size_t config)
{
    shape_space *s = ctx;
    if (s->seen[config]) s->twice = true;
    s->seen[config] = 1;
    s->calls++;
    const uint16_t *r = s->rows + config * SH_NP;
    if (r[0] == s->needle_x && r[1] == s->needle_y && r[2] && r[3] && r[4] && !r[5] && !r[6])
        return 0.5;
    double a = r[0] - 3.0, b = r[1] - 5.0;
    return 2.0 + 0.05 * (a * a + b * b) + 0.1 * (r[2] + r[3] + r[4] + r[5] + r[6]);
}

static int shape_found(shape_space *s, int needle_x, int needle_y)
{
    size_t n = 0;
    for (int a = 0; a < 8; a++)
        for (int b = 0; b < 8; b++)
            for (int f = 0; f < 32; f++, n++) {
                uint16_t *row = s->rows + n * SH_NP;
                row[0] = (uint16_t)a, row[1] = (uint16_t)b;
                for (int k = 0; k < 5; k++) row[2 + k] = (uint16_t)(f >> k & 1);
            }
    s->sp = (aoe_search_space){SH_NP, sh_n_values, n, s->rows, NULL};
    s->needle_x = needle_x, s->needle_y = needle_y;
    int found = 0;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        s->calls = 0;
        s->twice = false;
        memset(s->seen, 0, sizeof s->seen);
        aoe_budget b = {.max_evals = 100, .seed = seed, .start_config = -1};
        aoe_search_result r;
        cr_assert_eq(aoe_strategy_run("surrogate", &s->sp, shape_eval, s, &b, &r), 0);
        cr_assert_not(s->twice, "seed %lu evaluated a row twice", (unsigned long)seed);
        cr_assert_eq(s->calls, 100);
        found += r.best_time == 0.5;
    }
    return found;
}

Test(strategy, surrogate_tries_new_flag_combinations_at_the_incumbents_block_sizes)
{
    static shape_space s;
    int at_shape = shape_found(&s, 3, 5), elsewhere = shape_found(&s, 6, 1);
    cr_assert_geq(at_shape, 13, "optimum at the incumbent's shape found in %d of 20 runs",
                  at_shape);
    cr_assert_leq(elsewhere, 4, "found in %d of 20 runs elsewhere", elsewhere);
}
