/* The run protocol: how the tuner replays one job through an executor's
 * primitives (exec.h), the same for every runtime. Every buffer argument lives
 * between guard zones filled with AOE_GUARD_BYTE; its contents are the job's
 * captured bytes or deterministic synthetic ones, restored (or, for pure
 * outputs, poisoned) before every run. A variant is built once per distinct
 * option string (several at once ahead of time), run untimed first with its
 * outputs read back and checked, then timed with device events, the caches
 * flushed before each timed run, and abandoned early when clearly slow. */
#ifndef AOE_RUN_PROTOCOL_H
#define AOE_RUN_PROTOCOL_H

#include "tuner/exec.h"

#include <stddef.h>
#include <stdint.h>

#define AOE_GUARD_ZONE 4096u /* guard bytes on each side of a buffer (at least) */
#define AOE_GUARD_BYTE 0xA7u /* what a guard zone holds until something writes it */
#define AOE_MAX_TIMED 1024   /* timed runs per measurement at most */

/* How one variant is measured. */
typedef struct {
    int warmup;      /* untimed runs before timing (the first one is verified) */
    int min_reps;    /* timed runs at least ... */
    int max_reps;    /* ... and at most (0: no timed runs, only the verified run) */
    double budget_s; /* stop after min_reps once this much wall time is spent */
    double
        cutoff_us; /* abandon after cutoff_runs timed runs when the median exceeds it (0 = never) */
    int cutoff_runs;   /* timed runs before the cutoff applies (0: 3) */
    int time_verified; /* the verified run is timed and counts as the first timed run */
} aoe_measure_opts;

typedef struct {
    double median_us, spread_us; /* spread: scaled median absolute deviation */
    int runs;                    /* timed runs */
    int abandoned;               /* stopped early: clearly slower than cutoff_us */
    double first_run_s; /* wall time of the verified run's launch (incl. first-run costs) */
    /* The share of the runs' time this process's threads waited for a CPU
     * (cpu_wait.h), -1 when not known: from AOE_STARVED_SHARE on the timing
     * is not used (the tuner waits and measures again). */
    double wait_share;
} aoe_timing;

/* The contents of every argument after the verified (first) run: data[i] is
 * NULL for arguments that are not buffers or images. Owned by the protocol, valid until
 * the next aoe_protocol_measure call. oob_bytes counts guard-zone bytes that
 * the run overwrote: an out-of-bounds write. */
typedef struct {
    uint32_t nargs;
    const uint8_t *const *data;
    const uint64_t *size;
    uint64_t oob_bytes;
    int oob_arg; /* first argument whose guard was hit, -1 if none */
} aoe_outputs;

/* Called after the verified run: AOE_EXEC_OK, or why the outputs are wrong
 * (the timing is then skipped and that status returned). */
typedef aoe_exec_status (*aoe_outputs_check_fn)(void *ctx, const aoe_outputs *outs);

typedef struct aoe_protocol aoe_protocol;

/* Opens the job through ops: device, buffers (captured or synthetic
 * contents), the default program (the job's own options) and its limits.
 * AOE_EXEC_OK and *out, or a status with one line in detail. */
aoe_exec_status aoe_protocol_open(const aoe_exec_ops *ops, const aoe_job *job, aoe_protocol **out,
                                  char *detail, size_t len);

/* Limits of the device and of the default program's kernel. */
void aoe_protocol_limits(const aoe_protocol *p, aoe_device_limits *out);

/* Which buffers are filled with `poison` before each run (pure outputs); the
 * others are restored. NULL: none. poisoned has job->nargs entries. */
void aoe_protocol_set_poison(aoe_protocol *p, const uint8_t *poisoned, uint8_t poison);

/* Builds the variants' programs ahead, up to `parallel` at once (threads
 * calling ops->build); identical options are built once, failures are kept
 * and reported by measure. */
void aoe_protocol_prepare(aoe_protocol *p, const aoe_policy *pols, size_t n, int parallel);

/* Runs policy pol (NULL: the job's own options and sizes): warm-up runs, the
 * first one verified by check (may be NULL), then the timed runs. */
aoe_exec_status aoe_protocol_measure(aoe_protocol *p, const aoe_policy *pol,
                                     const aoe_measure_opts *opt, aoe_outputs_check_fn check,
                                     void *check_ctx, aoe_timing *out, char *detail, size_t len);

/* The contents buffer argument `arg` is restored to before each run
 * (captured or synthetic), NULL for other arguments. */
const uint8_t *aoe_protocol_input(const aoe_protocol *p, uint32_t arg);

/* Non-zero when the program declared that the kernel only reads buffer
 * argument `arg`: such a buffer is an input and is never poisoned. */
int aoe_protocol_read_only(const aoe_protocol *p, uint32_t arg);
/* The element type the program declares for buffer argument arg (inspect;
 * BYTES when the runtime cannot tell). */
aoe_elem_type aoe_protocol_elem(const aoe_protocol *p, uint32_t arg);

/* The executor's own state of the open job (for version 3 primitives). */
aoe_exec *aoe_protocol_exec(const aoe_protocol *p);

/* Programs built so far (each distinct option string once). */
size_t aoe_protocol_programs(const aoe_protocol *p);

void aoe_protocol_close(aoe_protocol *p);

/* Deterministic synthetic contents: float32 values in [-1, 1) (xorshift,
 * seeded by the argument index), trailing bytes from the same generator. */
void aoe_synthetic_fill(uint8_t *dst, uint64_t size, uint32_t seed);
/* The same typed: f16 values in [-1, 1) for F16 (never NaN or infinite),
 * aoe_synthetic_fill's bytes for every other type (F32: its float32 values;
 * integers and BYTES: any bit pattern is a value). */
void aoe_synthetic_fill_typed(uint8_t *dst, uint64_t size, aoe_elem_type type, uint32_t seed);

#endif
