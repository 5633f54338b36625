/* The run plan (run_plan.h): the measurement protocol as a function of the
 * default's duration. Fast kernels: the fixed figures the tuner has always
 * used (5 to 20 timed runs a variant, 10 to 40 a confirmation round). */
#include "tuner/run_plan.h"

#include <stdio.h>
#include <string.h>

static double at_most(double v, double cap)
{
    return v < cap ? v : cap;
}

void aoe_run_plan_make(double default_s, double timeout_s, double time_limit_s, int scale_time,
                       aoe_run_plan *out)
{
    memset(out, 0, sizeof *out);
    out->default_s = default_s > 0 ? default_s : 0;
    out->search = (aoe_measure_opts){1, 5, 20, 0.2, 0, 0, 0};
    out->final = (aoe_measure_opts){1, 10, 40, 0.4, 0, 0, 0};
    out->watchdog_s = timeout_s;
    out->open_watchdog_s = 3 * timeout_s + 10;
    out->time_limit_s = time_limit_s;
    if (!(default_s >= AOE_SLOW_KERNEL_S)) return;
    double d = default_s;
    out->slow = 1;
    /* A variant: its verified run (a new program: first-run costs stay out
     * of the timing), then a few timed runs; clearly slower than the best
     * after the first timed one: abandoned. */
    out->search = (aoe_measure_opts){.warmup = 1,
                                     .min_reps = AOE_SLOW_TIMED_RUNS,
                                     .max_reps = AOE_SLOW_TIMED_RUNS,
                                     .cutoff_runs = 1};
    /* The default and a confirmed best have run before: the verified run is
     * timed too, and one more run makes a round's median. */
    out->final = (aoe_measure_opts){.warmup = 1, .min_reps = 1, .max_reps = 1, .time_verified = 1};
    /* Compiling stays within the configured timeout; the runs get their own
     * time: a verified and 3 timed runs at up to 3x the default (a loaded
     * machine; a clearly slower variant is cut off after 2 runs). */
    double w = timeout_s + AOE_SLOW_WATCHDOG_RUNS * d;
    out->watchdog_s =
        at_most(w, timeout_s > AOE_SLOW_WATCHDOG_CAP_S ? timeout_s : AOE_SLOW_WATCHDOG_CAP_S);
    /* After the first run: up to 8 poisoned runs finding the outputs and
     * the default's 2 timed runs, at up to 3x the first. */
    double ow = 3 * timeout_s + 10 + 30 * d;
    out->open_watchdog_s =
        at_most(ow, 3 * timeout_s + 10 > AOE_SLOW_WATCHDOG_CAP_S ? 3 * timeout_s + 10
                                                                 : AOE_SLOW_WATCHDOG_CAP_S);
    if (scale_time) {
        double t = at_most(AOE_SLOW_TIME_RUNS * d, AOE_SLOW_TIME_CAP_S);
        if (t > time_limit_s) out->time_limit_s = t;
    }
}

void aoe_run_plan_describe(const aoe_run_plan *p, char *out, size_t len)
{
    if (!p->slow) {
        if (len) out[0] = '\0';
        return;
    }
    snprintf(out, len,
             "slow kernel: the default takes %.1f s a run; per variant 1 verified + %d timed runs "
             "(cut off after 1 when 1.5x slower than the best), watchdog %.0f s, time limit %.0f s",
             p->default_s, p->search.max_reps, p->watchdog_s, p->time_limit_s);
}
