/* The executor: replays one job's kernel on its device. Runtime-neutral
 * interface; one implementation per runtime (tuner/exec_<runtime>.c). It
 * compiles variants (identical options once, several in parallel), runs them
 * with inputs restored and outputs poisoned before every run, flushes the
 * device cache between timed runs, and times them with device events. */
#ifndef AOE_EXEC_H
#define AOE_EXEC_H

#include "store/record.h"
#include "jobs/job.h"
#include "space/space.h"

#include <stddef.h>
#include <stdint.h>

typedef struct aoe_exec aoe_exec;

/* How one variant is measured. */
typedef struct {
    int warmup;       /* untimed runs before timing (the first one is verified) */
    int min_reps;     /* timed runs at least ... */
    int max_reps;     /* ... and at most (0: no timed runs, only the verified run) */
    double budget_s;  /* stop after min_reps once this much wall time is spent */
    double cutoff_us; /* abandon after 3 timed runs when the median exceeds it (0 = never) */
} aoe_measure_opts;

typedef struct {
    double median_us, spread_us; /* spread: scaled median absolute deviation */
    int runs;                    /* timed runs */
    int abandoned;               /* stopped early: clearly slower than cutoff_us */
} aoe_timing;

/* The contents of every argument after the verified (first) run: data[i] is
 * NULL for arguments that are not buffers. Owned by the executor, valid until
 * the next aoe_exec_measure call. oob_bytes counts guard-zone bytes (around
 * every buffer) that the run overwrote: an out-of-bounds write. */
typedef struct {
    uint32_t nargs;
    const uint8_t *const *data;
    const uint64_t *size;
    uint64_t oob_bytes;
    int oob_arg; /* first argument whose guard was hit, -1 if none */
} aoe_outputs;

/* Called after the verified run; non-zero skips the timing (the variant failed). */
typedef int (*aoe_outputs_check_fn)(void *ctx, const aoe_outputs *outs);

typedef struct aoe_exec_ops {
    aoe_exec *(*open)(const aoe_job *job, char *err, size_t errlen);
    /* Limits of the device and of the default program's kernel. */
    void (*limits)(aoe_exec *ex, aoe_device_limits *out);
    /* Which buffers are filled with `poison` before each run (pure outputs);
     * the others are restored to their captured/synthetic contents. NULL:
     * none. poisoned has job->nargs entries. */
    void (*set_poison)(aoe_exec *ex, const uint8_t *poisoned, uint8_t poison);
    /* Compiles the variants' programs ahead (in parallel, up to `parallel`
     * at once); failures are kept and reported by measure. */
    void (*prepare)(aoe_exec *ex, const aoe_policy *pols, size_t n, int parallel);
    /* Runs policy pol (NULL: the job's own options and sizes): one verified
     * run (check may reject it), then the timed runs. Returns 0, or -1 with a
     * reason in err (build failure, runtime error, rejected by check). */
    int (*measure)(aoe_exec *ex, const aoe_policy *pol, const aoe_measure_opts *opt,
                   aoe_outputs_check_fn check, void *check_ctx, aoe_timing *out, char *err,
                   size_t errlen);
    /* The contents buffer argument `arg` is restored to before each run
     * (captured or synthetic), NULL for other arguments. */
    const uint8_t *(*input)(aoe_exec *ex, uint32_t arg);
    void (*close)(aoe_exec *ex);
    /* Non-zero when the program declared that the kernel only reads buffer
     * argument `arg` (created read-only, or a const / constant-space
     * parameter): such a buffer is an input and is never poisoned. */
    int (*read_only)(aoe_exec *ex, uint32_t arg);
} aoe_exec_ops;

extern const aoe_exec_ops aoe_exec_opencl;

/* The executor for job->runtime, or NULL when the runtime is not supported. */
static inline const aoe_exec_ops *aoe_exec_for(const aoe_job *job)
{
    if (job && job->runtime && job->runtime[0] == 'o' && !__builtin_strcmp(job->runtime, "opencl"))
        return &aoe_exec_opencl;
    return 0;
}

/* Build options of a variant: the program's own options plus -DNAME=value for
 * every define parameter. Refuses (returns -1, reason in err) a parameter the
 * program already sets with -D. Shared by executors. */
int aoe_exec_variant_options(const char *base, const aoe_policy *pol, char *out, size_t outlen,
                             char *err, size_t errlen);

#endif
