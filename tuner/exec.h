/* The executor contract, version 3: the small primitives one runtime provides
 * to replay a job's kernel on its device (tuner/exec_<runtime>.c). Everything
 * runtime-neutral (warm-up, the verified first run, the timed loop, the
 * program cache, parallel builds, synthetic data, poison and guard bytes)
 * lives in tuner/run_protocol.c, which calls these.
 *
 * Every primitive that can fail returns an aoe_exec_status and writes one
 * line for people into detail, without the category (a failed variant is
 * shown as "<category>: <detail>"; a failed open as its detail alone, which
 * names the runtime). Calls come from one thread, except `build`,
 * which the protocol calls from several threads at once (parallel builds;
 * each call builds its own program). */
#ifndef AOE_EXEC_H
#define AOE_EXEC_H

#include "jobs/job.h"
#include "space/space.h"
#include "store/record.h"
#include "tuner/exec_status.h"

#include <stddef.h>
#include <stdint.h>

#define AOE_EXEC_OPS_VERSION 3     /* the fields this header declares */
#define AOE_EXEC_OPS_MIN_VERSION 2 /* the oldest executor accepted (no version 3 fields) */

/* Candidates a library-call executor proposes at most (ops->candidates). */
#define AOE_EXEC_MAX_CANDIDATES 128

typedef struct aoe_exec aoe_exec;                 /* one open job: device, context, buffers */
typedef struct aoe_exec_program aoe_exec_program; /* one built variant of the job's program */

/* A launch: `global` work items in `local`-sized groups per dimension
 * (a grid+block runtime launches global/local blocks of `local` threads);
 * has_local 0 lets the runtime choose the group size. */
typedef struct {
    uint32_t work_dim; /* 1..3 */
    uint64_t global[3];
    uint64_t local[3];
    int has_local;
    /* The variant (NULL: the job's own), for what is neither a compiler
     * option nor a size, such as a library call's attributes. */
    const aoe_policy *policy;
} aoe_exec_launch;

/* What the protocol learns about the job's default program (inspect). */
typedef struct {
    aoe_device_limits limits; /* the device's and the kernel's */
    uint8_t *read_only; /* per argument (nargs entries, zeroed by the caller): 1 when the program
                           declares the kernel never writes that buffer */
    uint8_t *elem;      /* per argument (nargs entries, AOE_ELEM_BYTES from the caller): the element
                           type the program declares for a buffer, where the runtime can tell */
    /* 1 when the device computes on this machine's CPUs (an OpenCL CPU
     * device): a kernel's time is then the worker's own threads' time, which
     * a busy machine inflates, and a timing taken starved is not used
     * (cpu_wait.h). A GPU times its kernels itself. */
    int host_cpu;
} aoe_exec_info;

typedef struct aoe_exec_ops {
    int version;         /* AOE_EXEC_OPS_VERSION: the struct may only grow */
    const char *runtime; /* the job runtime it replays ("opencl") */
    /* Loads the runtime's library (dlopen: `aoe` links none) and opens the
     * device the job's fingerprint names. NO_RUNTIME when the library is
     * absent, NO_DEVICE when no device matches. */
    aoe_exec_status (*open)(const aoe_job *job, aoe_exec **out, char *detail, size_t len);
    /* Creates buffer argument `arg` (size bytes) inside an allocation with at
     * least `guard` bytes on each side, and keeps `init` (size bytes) on the
     * device as what reset restores. *front: the guard bytes actually before
     * the data (rounded up to the device's alignment); `guard` after it.
     * An image argument (AOE_JOB_ARG_IMAGE) is created from its descriptor
     * with init as its packed contents; reset, read and the guards as for a
     * buffer (an executor without guard zones for images reads back the guard
     * byte reset last wrote). */
    aoe_exec_status (*buffer)(aoe_exec *ex, uint32_t arg, uint64_t size, uint64_t guard,
                              const uint8_t *init, uint64_t *front, char *detail, size_t len);
    /* Builds the job's program with these compiler options (thread-safe). */
    aoe_exec_status (*build)(aoe_exec *ex, const char *options, aoe_exec_program **out,
                             char *detail, size_t len);
    /* Limits and read-only arguments of the job's kernel in program p. */
    aoe_exec_status (*inspect)(aoe_exec *ex, aoe_exec_program *p, aoe_exec_info *info, char *detail,
                               size_t len);
    /* Before a run: every buffer restored to its init contents, or filled
     * with `poison` where poisoned[arg] (NULL: none); with guard >= 0 every
     * guard zone is filled with that byte. */
    aoe_exec_status (*reset)(aoe_exec *ex, const uint8_t *poisoned, uint8_t poison, int guard,
                             char *detail, size_t len);
    /* Runs the job's kernel of p with the job's arguments, to completion.
     * device_us: NULL for an untimed run, else the device time (events).
     * REFUSED when the runtime rejects the launch configuration. */
    aoe_exec_status (*run)(aoe_exec *ex, aoe_exec_program *p, const aoe_exec_launch *l,
                           double *device_us, char *detail, size_t len);
    /* Evicts the job's data from the device caches (before a timed run);
     * `round` varies what is written. Best effort. */
    void (*flush)(aoe_exec *ex, unsigned round);
    /* Reads buffer argument arg back: its size bytes into data, the guard
     * bytes before it (front) and after it (guard) into the other two. */
    aoe_exec_status (*read)(aoe_exec *ex, uint32_t arg, uint8_t *data, uint8_t *front,
                            uint8_t *back, char *detail, size_t len);
    void (*release)(aoe_exec *ex, aoe_exec_program *p);
    void (*close)(aoe_exec *ex); /* also after a failed open's partial state; NULL is fine */
    /* 1 when the job itself says buffer argument arg is only read (e.g. the
     * program created it read-only), before anything is opened: the worker
     * memory estimate. NULL: never. */
    int (*job_read_only)(const aoe_job *job, uint32_t arg);

    /* Version 3: library calls, whose configurations come from the library
     * rather than from a tunables space. A reader uses these only when
     * version >= 3; each may be NULL. */

    /* The configurations worth measuring for the open job, in the order they
     * are to be measured, the job's own (default) one first: up to max
     * policies into out, *n of them; space: one line for people saying where
     * they came from. NOTHING_TO_TUNE when there is none. Present: the
     * runner measures this list instead of building a tunables space. */
    aoe_exec_status (*candidates)(aoe_exec *ex, aoe_policy *out, size_t max, size_t *n, char *space,
                                  size_t spacelen, char *detail, size_t len);
    /* The tolerance every candidate's outputs are verified with (instead of
     * the tunables file's); 0, or -1 to keep the default. */
    int (*tolerance)(const aoe_job *job, aoe_tolerance *out);
    /* Synthetic contents of buffer argument arg (size bytes) when the job did
     * not capture them, typed as the runtime knows them (NULL: the protocol's
     * float32 fill, aoe_synthetic_fill). Deterministic. */
    void (*fill)(const aoe_job *job, uint32_t arg, uint8_t *dst, uint64_t size);
    /* 1 when every candidate must also give bit-identical outputs on two runs
     * (a library whose algorithms may reduce in a varying order). */
    int determinism;
    /* A check of buffer argument arg's outputs (got) against the reference's
     * (ref, size bytes) after the generic verification passed: 0, or -1 with
     * a reason starting with its category ("wrong result: ..."). NULL: none. */
    int (*check)(const aoe_job *job, uint32_t arg, const uint8_t *ref, const uint8_t *got,
                 uint64_t size, char *reason, size_t len);
    /* 1 when the device state of the open job is lost after a failed
     * primitive: a sticky error (CUDA's illegal address, launch failure, ...)
     * leaves the context unusable for every later call. The failed variant
     * is reported as such, and the worker then exits after its reply and the
     * runner starts a fresh one for the next variant (runner_worker.h,
     * aoe_wrep.retire): one worker is lost, never the tuner or the job.
     * NULL: never. */
    int (*lost)(aoe_exec *ex);
    /* The element type of image argument arg's channels, from its channel
     * data type (OpenCL: CL_FLOAT f32, CL_HALF_FLOAT f16, the integer types
     * i8..u32, normalised and packed formats BYTES, compared exactly): what
     * its synthetic contents are made of (finite values for f32 and f16) and
     * how its outputs are verified. NULL: BYTES. */
    aoe_elem_type (*image_elem)(const aoe_job *job, uint32_t arg);
} aoe_exec_ops;

/* ops's field f when its version has it (version 3 fields), else 0/NULL. */
#define AOE_EXEC_V3(ops, f) ((ops)->version >= 3 ? (ops)->f : 0)

/* Every compiled-in executor, declared from the list in exec_list.h. */
#define AOE_EXEC_DECLARE(name) extern const aoe_exec_ops aoe_exec_##name;
#include "tuner/exec_list.h"
AOE_EXECUTORS(AOE_EXEC_DECLARE)
#undef AOE_EXEC_DECLARE

/* The executor whose runtime is `runtime`, or NULL. */
const aoe_exec_ops *aoe_exec_find(const char *runtime);

/* The executor for job->runtime; NULL with "no executor for runtime 'x' in
 * this build" in detail when there is none. */
const aoe_exec_ops *aoe_exec_for(const aoe_job *job, char *detail, size_t len);

/* Build options of a variant: the program's own options plus -DNAME=value for
 * every define parameter. REFUSED (reason in detail) for a parameter the
 * program already sets with -D; RUNTIME_ERROR when the options do not fit. */
aoe_exec_status aoe_exec_variant_options(const char *base, const aoe_policy *pol, char *out,
                                         size_t outlen, char *detail, size_t len);

#endif
