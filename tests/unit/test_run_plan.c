/* The run plan (tuner/run_plan.c): how the measurement protocol follows the
 * default's duration. Fast kernels keep the fixed figures; a kernel taking
 * seconds gets a verified and 3 timed runs a variant, a cutoff after the
 * first timed run, a watchdog and a time limit that scale, within caps. */
#include "tuner/run_plan.h"

#include <criterion/criterion.h>
#include <string.h>

static void expect_fixed(const aoe_run_plan *p, double timeout, double limit)
{
    cr_expect_eq(p->slow, 0);
    cr_expect_eq(p->search.warmup, 1);
    cr_expect_eq(p->search.min_reps, 5);
    cr_expect_eq(p->search.max_reps, 20);
    cr_expect_float_eq(p->search.budget_s, 0.2, 1e-12);
    cr_expect_eq(p->search.cutoff_runs, 0); /* the protocol's 3 */
    cr_expect_eq(p->search.time_verified, 0);
    cr_expect_eq(p->final.warmup, 1);
    cr_expect_eq(p->final.min_reps, 10);
    cr_expect_eq(p->final.max_reps, 40);
    cr_expect_float_eq(p->final.budget_s, 0.4, 1e-12);
    cr_expect_eq(p->final.time_verified, 0);
    cr_expect_float_eq(p->watchdog_s, timeout, 1e-9);
    cr_expect_float_eq(p->open_watchdog_s, 3 * timeout + 10, 1e-9);
    cr_expect_float_eq(p->time_limit_s, limit, 1e-9);
}

Test(run_plan, fast_kernels_keep_the_fixed_protocol)
{
    aoe_run_plan p;
    const double d[] = {0, -1, 1e-6, 0.01, 0.5, 0.999};
    for (size_t i = 0; i < sizeof d / sizeof *d; i++) {
        aoe_run_plan_make(d[i], 30, 120, 1, &p);
        expect_fixed(&p, 30, 120);
    }
    char line[256] = "x";
    aoe_run_plan_describe(&p, line, sizeof line);
    cr_expect_str_empty(line);
}

Test(run_plan, a_kernel_taking_seconds)
{
    aoe_run_plan p;
    aoe_run_plan_make(3.0, 30, 120, 1, &p);
    cr_expect_eq(p.slow, 1);
    cr_expect_float_eq(p.default_s, 3.0, 1e-12);
    /* A variant: its verified run, 3 timed runs, cut off after the first. */
    cr_expect_eq(p.search.warmup, 1);
    cr_expect_eq(p.search.min_reps, 3);
    cr_expect_eq(p.search.max_reps, 3);
    cr_expect_eq(p.search.cutoff_runs, 1);
    cr_expect_eq(p.search.time_verified, 0);
    /* A round: the verified run timed, one more: no separate warm-up. */
    cr_expect_eq(p.final.warmup, 1);
    cr_expect_eq(p.final.time_verified, 1);
    cr_expect_eq(p.final.max_reps, 1);
    cr_expect_float_eq(p.watchdog_s, 30 + 12 * 3.0, 1e-9);
    cr_expect_float_eq(p.open_watchdog_s, 100 + 30 * 3.0, 1e-9);
    cr_expect_float_eq(p.time_limit_s, 180, 1e-9); /* 60 x 3 s > 120 s */
    char line[256];
    aoe_run_plan_describe(&p, line, sizeof line);
    cr_expect(strstr(line, "slow kernel") && strstr(line, "1 verified + 3 timed") &&
                  strstr(line, "watchdog 66 s") && strstr(line, "time limit 180 s"),
              "%s", line);
}

Test(run_plan, the_threshold_is_one_second)
{
    aoe_run_plan p;
    aoe_run_plan_make(AOE_SLOW_KERNEL_S, 30, 120, 1, &p);
    cr_expect_eq(p.slow, 1);
    /* 60 x 1 s is under the configured 120 s: that stands. */
    cr_expect_float_eq(p.time_limit_s, 120, 1e-9);
}

Test(run_plan, the_time_limit_scales_within_its_cap)
{
    aoe_run_plan p;
    aoe_run_plan_make(15.0, 30, 120, 1, &p); /* pyopencl's black hole: 15 s a launch */
    cr_expect_float_eq(p.time_limit_s, 900, 1e-9);
    cr_expect_float_eq(p.watchdog_s, 30 + 180, 1e-9);
    aoe_run_plan_make(100.0, 30, 120, 1, &p);
    cr_expect_float_eq(p.time_limit_s, AOE_SLOW_TIME_CAP_S, 1e-9);
    /* A configured limit above the cap is never lowered. */
    aoe_run_plan_make(100.0, 30, 7200, 1, &p);
    cr_expect_float_eq(p.time_limit_s, 7200, 1e-9);
    /* An explicit --time-limit is kept as it is. */
    aoe_run_plan_make(15.0, 30, 60, 0, &p);
    cr_expect_eq(p.slow, 1);
    cr_expect_float_eq(p.time_limit_s, 60, 1e-9);
}

Test(run_plan, the_watchdog_has_a_cap_but_never_goes_below_the_configured_one)
{
    aoe_run_plan p;
    aoe_run_plan_make(1000.0, 30, 120, 1, &p);
    cr_expect_float_eq(p.watchdog_s, AOE_SLOW_WATCHDOG_CAP_S, 1e-9);
    cr_expect_float_eq(p.open_watchdog_s, AOE_SLOW_WATCHDOG_CAP_S, 1e-9);
    aoe_run_plan_make(1000.0, 5000, 120, 1, &p);
    cr_expect_float_eq(p.watchdog_s, 5000, 1e-9);
    cr_expect_float_eq(p.open_watchdog_s, 3 * 5000 + 10, 1e-9);
    aoe_run_plan_make(2.0, 1, 120, 1, &p);
    cr_expect_float_eq(p.watchdog_s, 1 + 24, 1e-9);
}
