/* How the measurement adapts to the kernel's duration. The default policy's
 * first (reference) run tells how long one launch takes; from that one pure
 * decision gives the runs per variant, the watchdog and the job's time limit.
 * Kernels under AOE_SLOW_KERNEL_S keep the fixed protocol exactly; a kernel
 * taking seconds gets no separate warm-up, few timed runs, an early cutoff
 * after its first timed run, a watchdog and a time limit that scale with it. */
#ifndef AOE_RUN_PLAN_H
#define AOE_RUN_PLAN_H

#include "tuner/run_protocol.h"

#include <stddef.h>

#define AOE_SLOW_KERNEL_S 1.0        /* a default run this long (or longer) is slow */
#define AOE_SLOW_TIMED_RUNS 3        /* timed runs per variant after its verified run */
#define AOE_SLOW_WATCHDOG_RUNS 12.0  /* watchdog: AOE_VARIANT_TIMEOUT + this x the default */
#define AOE_SLOW_WATCHDOG_CAP_S 3600 /* ... at most (never below AOE_VARIANT_TIMEOUT) */
#define AOE_SLOW_TIME_RUNS 60.0      /* time limit: max(the configured one, this x the default) */
#define AOE_SLOW_TIME_CAP_S 1800     /* ... the scaled part at most */

typedef struct {
    int slow;                /* 0: the fixed protocol of fast kernels */
    double default_s;        /* the default's first run (0: not known) */
    aoe_measure_opts search; /* one variant (the caller sets cutoff_us) */
    aoe_measure_opts final;  /* a confirmation round, and the default's own timing */
    double watchdog_s;       /* one variant or confirmation request */
    double open_watchdog_s;  /* opening after the first run: the reference, the default's timing */
    double time_limit_s;     /* the job's time limit */
} aoe_run_plan;

/* The plan for a default whose first run took default_s seconds (<= 0:
 * unknown, the fast protocol), with the configured watchdog timeout_s and
 * time limit time_limit_s; scale_time: 0 when the time limit was given
 * explicitly (aoe tune --time-limit) and must be kept as it is. Pure. */
void aoe_run_plan_make(double default_s, double timeout_s, double time_limit_s, int scale_time,
                       aoe_run_plan *out);

/* One line for people ("slow kernel: the default takes 3.1 s a run; ..."),
 * "" for a fast plan. */
void aoe_run_plan_describe(const aoe_run_plan *p, char *out, size_t len);

#endif
