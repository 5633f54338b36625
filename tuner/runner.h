/* Tunes one job: measures the default policy, builds the search space, runs
 * a strategy over verified variants (all device work in an isolated worker
 * process), confirms the best against the default and writes the result to
 * the bank with put-if-better. */
#ifndef AOE_RUNNER_H
#define AOE_RUNNER_H

#include "store/bank.h"
#include "store/record.h"
#include "jobs/job.h"
#include "space/space.h"
#include "tuner/exec_status.h"

#include <stddef.h>
#include <stdint.h>

typedef void (*aoe_tune_progress_fn)(void *ctx, size_t done, size_t total, double best_us,
                                     double default_us);

/* What the tuner does with a timing taken while its threads were starved of
 * CPU (cpu_wait.h; a CPU device only). */
typedef enum {
    AOE_WAIT_NEVER = 0,   /* uses it (AOE_WAIT_FOR_CPU=False) */
    AOE_WAIT_OR_PUT_BACK, /* measures again after a pause; starved for longer than the time
                             limit, the job fails as AOE_EXEC_STARVED (the spool puts it back) */
    AOE_WAIT_THEN_TIME,   /* ... the same, then uses what it gets (a job's last try) */
} aoe_wait_for_cpu;

typedef struct {
    const char *strategy; /* aoe_strategy_run name */
    size_t max_evals;     /* variants to measure at most (> 0) */
    double time_limit_s;  /* seconds for the search (> 0); scaled for a slow kernel
                             (run_plan.h) unless time_limit_fixed */
    int time_limit_fixed; /* given explicitly (aoe tune --time-limit): kept as it is */
    uint64_t seed;
    aoe_space_options space;       /* tunables and auto-defines */
    int parallel_compile;          /* programs compiled at once */
    double variant_timeout_s;      /* watchdog per variant */
    int dry_run;                   /* measure the default only; write nothing */
    long max_mb;                   /* worker memory bound in MiB (0: half of MemAvailable) */
    aoe_wait_for_cpu wait_for_cpu; /* what a starved timing gets (AOE_WAIT_FOR_CPU) */
    aoe_bank *bank;                /* where the result goes (NULL: nowhere) */
    aoe_tune_progress_fn progress;
    void *progress_ctx;
} aoe_tune_options;

#define AOE_TUNE_MAX_REASONS 8

typedef struct {
    aoe_exec_status status;
    char category[32]; /* its name: "crash", "timeout", "wrong result", ... */
    unsigned count;
    char example[512]; /* the first full reason of this category */
} aoe_fail_reason;

typedef struct {
    int ok;                 /* 1: measured/tuned; 0: the job failed (error) */
    aoe_exec_status status; /* AOE_EXEC_OK, or why the job failed */
    char error[1024];       /* why the job failed, for people */
    char kernel[AOE_KERNEL_NAME_LEN];
    char key_hex[33];
    char space[256];
    size_t space_size;
    double default_us, default_spread_us;
    double best_us, best_spread_us; /* the kept policy (the default when not improved) */
    int improved;                   /* a variant beat the default by more than the noise */
    aoe_policy best;
    size_t evaluations, failures, abandoned;
    double seconds;
    int put; /* aoe_put_result; -2: not written (dry run, failure) */
    /* How the job's data was replayed: "captured", "synthetic float32",
     * "synthetic typed" (the executor's own fill) or "synthetic zeros", plus
     * ", outputs not poisoned" after a fallback. */
    char replay[64];
    int replay_synthetic; /* some buffers replayed with synthetic contents */
    /* How the protocol adapted to a slow kernel (aoe_run_plan_describe); ""
     * for a fast one. */
    char protocol[256];
    /* Seconds the tuner waited for a CPU: timings taken while its threads
     * were starved (cpu_wait.h) are measured again after a pause; that time
     * is not counted against the time limit. */
    double waited_s;
    int timed_starved; /* waited the time limit, then timed on what it got (AOE_WAIT_THEN_TIME) */
    unsigned nreasons;
    aoe_fail_reason reasons[AOE_TUNE_MAX_REASONS];
} aoe_tune_result;

/* Returns 0 when the job was tuned (or measured), -1 when it failed (r->error). */
int aoe_tune_job(const aoe_job *job, const aoe_tune_options *o, aoe_tune_result *r);

/* Adds a failed variant (its status and reason) to the per-category counts. */
void aoe_tune_note_failure(aoe_tune_result *r, aoe_exec_status st, const char *reason);

#endif
