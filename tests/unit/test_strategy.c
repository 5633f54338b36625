/* Search strategies on synthetic spaces: reproducibility, budgets, constraint
 * awareness, distinct evaluations, failures, time limit, dispatcher. */
#include "tuner/strategy.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NP 3
static const int n_values[NP] = {8, 6, 5};

/* A space with a constraint: (a + b) % 3 != 0 excludes a third of the product. */
typedef struct {
    aoe_search_space sp;
    uint16_t rows[8 * 6 * 5 * NP];
} space;

static void make_space(space *s)
{
    size_t n = 0;
    for (int a = 0; a < 8; a++)
        for (int b = 0; b < 6; b++)
            for (int c = 0; c < 5; c++) {
                if ((a + b) % 3 == 0) continue;
                s->rows[n * NP] = (uint16_t)a;
                s->rows[n * NP + 1] = (uint16_t)b;
                s->rows[n * NP + 2] = (uint16_t)c;
                n++;
            }
    s->sp = (aoe_search_space){NP, n_values, n, s->rows, NULL};
}

typedef struct {
    const space *s;
    long trace[512];
    size_t calls;
    unsigned char seen[512];
    bool twice, invalid;
    int fail_mod;  /* rows whose index % fail_mod == 0 fail (0: none) */
    long sleep_ns; /* per evaluation */
} probe;

static double time_of(const uint16_t *r)
{
    /* Unique optimum at (5, 2, 3); a smooth bowl with an interaction term. */
    double a = r[0] - 5.0, b = r[1] - 2.0, c = r[2] - 3.0;
    return 1.0 + a * a + 2 * b * b + c * c + 0.5 * fabs(a * b);
}

static double probe_eval(void *ctx, size_t config)
{
    probe *p = ctx;
    if (config >= p->s->sp.n_configs) {
        p->invalid = true;
        return -1;
    }
    if (p->seen[config]) p->twice = true;
    p->seen[config] = 1;
    if (p->calls < 512) p->trace[p->calls] = (long)config;
    p->calls++;
    if (p->sleep_ns) nanosleep(&(struct timespec){0, p->sleep_ns}, NULL);
    if (p->fail_mod && config % (size_t)p->fail_mod == 0) return -1;
    return time_of(p->s->sp.configs + config * NP);
}

static aoe_search_result run(const char *name, const space *s, probe *p, size_t max_evals,
                             uint64_t seed)
{
    memset(p, 0, sizeof *p);
    p->s = s;
    aoe_budget b = {.max_evals = max_evals, .seed = seed, .start_config = -1};
    aoe_search_result r;
    cr_assert_eq(aoe_strategy_run(name, &s->sp, probe_eval, p, &b, &r), 0, "%s", name);
    return r;
}

Test(strategy, names_are_listed_and_unknown_is_rejected)
{
    space s;
    make_space(&s);
    int n = 0;
    for (; aoe_strategy_names[n]; n++) {
    }
    cr_assert_geq(n, 7);
    probe p = {.s = &s};
    aoe_budget b = {.max_evals = 5, .seed = 1, .start_config = -1};
    aoe_search_result r;
    cr_assert_eq(aoe_strategy_run("no-such-strategy", &s.sp, probe_eval, &p, &b, &r), -1);
    cr_assert_eq(aoe_strategy_run(NULL, &s.sp, probe_eval, &p, &b, &r), -1);
    cr_assert_eq(p.calls, 0);
}

Test(strategy, reproducible_with_a_seed_and_seeds_differ)
{
    space s;
    make_space(&s);
    static probe a, b, c;
    for (int i = 0; aoe_strategy_names[i]; i++) {
        const char *name = aoe_strategy_names[i];
        run(name, &s, &a, 40, 7);
        run(name, &s, &b, 40, 7);
        run(name, &s, &c, 40, 8);
        cr_assert_eq(a.calls, b.calls, "%s", name);
        cr_assert_eq(memcmp(a.trace, b.trace, a.calls * sizeof(long)), 0,
                     "%s: same seed, different sequence", name);
        cr_assert_neq(memcmp(a.trace, c.trace, a.calls * sizeof(long)), 0,
                      "%s: seeds 7 and 8 gave the same sequence", name);
    }
}

Test(strategy, budget_distinct_and_valid_rows_only)
{
    space s;
    make_space(&s);
    static probe p;
    size_t budgets[] = {1, 13, 60, 1000};
    for (int i = 0; aoe_strategy_names[i]; i++)
        for (size_t k = 0; k < sizeof budgets / sizeof budgets[0]; k++) {
            const char *name = aoe_strategy_names[i];
            aoe_search_result r = run(name, &s, &p, budgets[k], 3);
            size_t want = budgets[k] < s.sp.n_configs ? budgets[k] : s.sp.n_configs;
            cr_assert_eq(p.calls, want, "%s: %zu evaluations for a budget of %zu", name, p.calls,
                         budgets[k]);
            cr_assert_eq(r.evaluations, p.calls, "%s", name);
            cr_assert_not(p.twice, "%s evaluated a configuration twice", name);
            cr_assert_not(p.invalid, "%s evaluated a row outside the space", name);
            cr_assert_geq(r.best_config, 0, "%s", name);
            cr_assert_float_eq(r.best_time, time_of(s.rows + r.best_config * NP), 1e-12);
        }
}

Test(strategy, failures_cost_an_evaluation_and_never_win)
{
    space s;
    make_space(&s);
    static probe p;
    for (int i = 0; aoe_strategy_names[i]; i++) {
        const char *name = aoe_strategy_names[i];
        memset(&p, 0, sizeof p);
        p.s = &s;
        p.fail_mod = 3;
        aoe_budget b = {.max_evals = 50, .seed = 11, .start_config = -1};
        aoe_search_result r;
        cr_assert_eq(aoe_strategy_run(name, &s.sp, probe_eval, &p, &b, &r), 0);
        size_t failed = 0;
        for (size_t k = 0; k < p.calls; k++) failed += p.trace[k] % 3 == 0;
        cr_assert_eq(p.calls, 50, "%s", name);
        cr_assert_eq(r.failures, failed, "%s", name);
        cr_assert_gt(failed, 0, "%s never hit a failing row", name);
        cr_assert_neq(r.best_config % 3, 0, "%s chose a failed configuration", name);
        cr_assert_not(p.twice, "%s", name);
    }
}

Test(strategy, all_failing_gives_no_best)
{
    space s;
    make_space(&s);
    static probe p;
    for (int i = 0; aoe_strategy_names[i]; i++) {
        memset(&p, 0, sizeof p);
        p.s = &s;
        p.fail_mod = 1;
        aoe_budget b = {.max_evals = 30, .seed = 1, .start_config = -1};
        aoe_search_result r;
        cr_assert_eq(aoe_strategy_run(aoe_strategy_names[i], &s.sp, probe_eval, &p, &b, &r), 0);
        cr_assert_eq(r.best_config, -1, "%s", aoe_strategy_names[i]);
        cr_assert_eq(r.failures, 30);
        cr_assert_eq(p.calls, 30);
    }
}

Test(strategy, brute_force_finds_the_exact_optimum)
{
    space s;
    make_space(&s);
    static probe p;
    long opt = -1;
    for (size_t i = 0; i < s.sp.n_configs; i++)
        if (opt < 0 || time_of(s.rows + i * NP) < time_of(s.rows + (size_t)opt * NP)) opt = (long)i;
    aoe_search_result r = run("brute", &s, &p, 0, 5); /* 0: the whole space */
    cr_assert_eq(p.calls, s.sp.n_configs);
    cr_assert_eq(r.best_config, opt);
    cr_assert_float_eq(r.best_time, 1.0, 1e-12);
}

Test(strategy, start_config_is_evaluated_first)
{
    space s;
    make_space(&s);
    static probe p;
    for (int i = 0; aoe_strategy_names[i]; i++) {
        memset(&p, 0, sizeof p);
        p.s = &s;
        aoe_budget b = {.max_evals = 10, .seed = 2, .start_config = 17};
        aoe_search_result r;
        cr_assert_eq(aoe_strategy_run(aoe_strategy_names[i], &s.sp, probe_eval, &p, &b, &r), 0);
        cr_assert_eq(p.trace[0], 17, "%s", aoe_strategy_names[i]);
        cr_assert_eq(p.calls, 10);
    }
}

Test(strategy, time_limit_stops_the_search)
{
    space s;
    make_space(&s);
    static probe p;
    for (int i = 0; aoe_strategy_names[i]; i++) {
        memset(&p, 0, sizeof p);
        p.s = &s;
        p.sleep_ns = 20 * 1000 * 1000; /* the whole space would take seconds */
        aoe_budget b = {.max_evals = 0, .time_limit_s = 0.1, .seed = 4, .start_config = -1};
        aoe_search_result r;
        cr_assert_eq(aoe_strategy_run(aoe_strategy_names[i], &s.sp, probe_eval, &p, &b, &r), 0);
        cr_assert_gt(p.calls, 0, "%s", aoe_strategy_names[i]);
        cr_assert_lt(p.calls, s.sp.n_configs / 2, "%s ignored the time limit (%zu evaluations)",
                     aoe_strategy_names[i], p.calls);
        cr_assert_eq(r.evaluations, p.calls);
    }
}

Test(strategy, empty_space_evaluates_nothing)
{
    aoe_search_space sp = {NP, n_values, 0, NULL, NULL};
    probe p = {0};
    aoe_budget b = {.max_evals = 10, .seed = 1, .start_config = 3};
    aoe_search_result r;
    for (int i = 0; aoe_strategy_names[i]; i++) {
        cr_assert_eq(aoe_strategy_run(aoe_strategy_names[i], &sp, probe_eval, &p, &b, &r), 0);
        cr_assert_eq(r.best_config, -1);
        cr_assert_eq(r.evaluations, 0);
    }
    cr_assert_eq(p.calls, 0);
}

/* A shallow bowl in (a, b, c) with its minimum at (5, 2, 3), plus an isolated
 * optimum at (3, 4, 3), two changes away: its one-change neighbours are
 * ordinary bowl values, so nothing points to it. The surrogate's stall phase
 * (a GP ranking every row within two changes of the best ones) must find it;
 * with 80 of 160 rows random search finds it in about half the runs, and the
 * one-change local search alone in about a quarter. */
static double isolated_eval(void *ctx, size_t config)
{
    probe *p = ctx;
    if (p->seen[config]) p->twice = true;
    p->seen[config] = 1;
    p->calls++;
    const uint16_t *r = p->s->sp.configs + config * NP;
    if (r[0] == 3 && r[1] == 4 && r[2] == 3) return 0.5;
    double a = r[0] - 5.0, b = r[1] - 2.0, c = r[2] - 3.0;
    return 2.0 + 0.05 * (a * a + b * b + c * c);
}

Test(strategy, surrogate_finds_an_isolated_optimum_two_changes_away)
{
    space s;
    make_space(&s);
    static probe p;
    int found = 0;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        memset(&p, 0, sizeof p);
        p.s = &s;
        aoe_budget b = {.max_evals = 80, .seed = seed, .start_config = -1};
        aoe_search_result r;
        cr_assert_eq(aoe_strategy_run("surrogate", &s.sp, isolated_eval, &p, &b, &r), 0);
        cr_assert_not(p.twice, "seed %lu evaluated a row twice", (unsigned long)seed);
        cr_assert_eq(p.calls, 80);
        found += r.best_time == 0.5;
    }
    cr_assert_geq(found, 12, "isolated optimum found in %d of 20 runs", found);
}

/* A small budget (12 of 160 rows) must go mostly to the model: over 20 seeds
 * on the smooth bowl the surrogate's best is better on average than random
 * search's, and better than random in most runs. With 10 random rows first
 * (the start of large budgets) it is not: 2 model steps cannot make up for it. */
Test(strategy, surrogate_small_budget_beats_random)
{
    space s;
    make_space(&s);
    static probe p;
    double sum_sur = 0, sum_rnd = 0;
    int wins = 0;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        aoe_search_result a = run("surrogate", &s, &p, 12, seed);
        cr_assert_eq(p.calls, 12);
        cr_assert_not(p.twice);
        aoe_search_result b = run("random", &s, &p, 12, seed);
        sum_sur += a.best_time;
        sum_rnd += b.best_time;
        wins += a.best_time < b.best_time;
    }
    cr_assert_lt(sum_sur, 0.7 * sum_rnd, "surrogate mean best %.2f, random %.2f", sum_sur / 20,
                 sum_rnd / 20);
    cr_assert_geq(wins, 12, "surrogate better than random in %d of 20 runs", wins);
}

/* A budget at least the space's size is exhaustive, with the start row first. */
Test(strategy, surrogate_budget_of_the_whole_space_is_exhaustive)
{
    space s;
    make_space(&s);
    static probe p;
    memset(&p, 0, sizeof p);
    p.s = &s;
    aoe_budget b = {.max_evals = s.sp.n_configs, .seed = 9, .start_config = 5};
    aoe_search_result r;
    cr_assert_eq(aoe_strategy_run("surrogate", &s.sp, probe_eval, &p, &b, &r), 0);
    cr_assert_eq(p.calls, s.sp.n_configs);
    cr_assert_eq(p.trace[0], 5);
    cr_assert_not(p.twice);
    cr_assert_float_eq(r.best_time, 1.0, 1e-12);
}

/* Small spaces start with Bayesian optimisation: with 12 of 160 rows the
 * surrogate lands on the exact optimum of the smooth bowl in half the runs or
 * more (13 of 20 when written; the additive model alone: 5; random
 * search: 12/160 of them, about 1.5). */
Test(strategy, surrogate_small_space_finds_the_exact_optimum_in_12)
{
    space s;
    make_space(&s);
    static probe p;
    int exact = 0;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        aoe_search_result r = run("surrogate", &s, &p, 12, seed);
        cr_assert_eq(p.calls, 12);
        cr_assert_not(p.twice);
        exact += r.best_time == 1.0;
    }
    cr_assert_geq(exact, 10, "exact optimum in %d of 20 runs", exact);
}

/* ... and its first rows cover the space: the default row first, then rows
 * far (in value indices scaled to [0, 1]) from every row before them. */
Test(strategy, surrogate_small_space_starts_with_a_spread_design)
{
    space s;
    make_space(&s);
    static probe p;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        memset(&p, 0, sizeof p);
        p.s = &s;
        aoe_budget b = {.max_evals = 12, .seed = seed, .start_config = 17};
        aoe_search_result r;
        cr_assert_eq(aoe_strategy_run("surrogate", &s.sp, probe_eval, &p, &b, &r), 0);
        cr_assert_eq(p.trace[0], 17);
        double closest = INFINITY;
        for (int i = 0; i < NP + 1; i++)
            for (int j = 0; j < i; j++) {
                const uint16_t *x = s.rows + p.trace[i] * NP, *y = s.rows + p.trace[j] * NP;
                double d = 0;
                for (int k = 0; k < NP; k++) d += fabs((double)x[k] - y[k]) / (n_values[k] - 1);
                if (d < closest) closest = d;
            }
        cr_assert_geq(closest, 1.0, "seed %lu: two of the first %d rows %.2f apart",
                      (unsigned long)seed, NP + 1, closest);
    }
}
