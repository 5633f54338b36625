/* The tuner's worker protocol: the parent (runner.c) asks, the worker child
 * (runner_worker.c) opens the executor, establishes the reference outputs of
 * the default policy and measures and verifies variants. Fixed-size messages
 * (policies are plain structs) over the isolate.h socket. */
#ifndef AOE_RUNNER_WORKER_H
#define AOE_RUNNER_WORKER_H

#include "store/record.h"
#include "tuner/run_protocol.h"
#include "jobs/job.h"
#include "space/space.h"

enum {
    AOE_WOP_OPEN = 1,      /* open the device, build the reference, time the default */
    AOE_WOP_VARIANT = 2,   /* verify and time req.pol */
    AOE_WOP_DEFAULT = 3,   /* time the default again (final comparison) */
    AOE_WOP_PREPARE = 4,   /* compile req.count policies that follow the request */
    AOE_WOP_CANDIDATES = 5 /* the executor's own candidates (aoe_wcands reply) */
};

/* How the job's data is replayed (AOE_WOP_OPEN; the runner falls back to
 * these when the default policy fails with the job as captured). */
enum {
    AOE_REPLAY_ZERO_SYNTH = 1, /* synthetic (uncaptured) buffers hold zeros, not float32 */
    AOE_REPLAY_NO_POISON = 2   /* never poison a buffer: restore and compare every one */
};

typedef struct {
    int op;
    int replay; /* OPEN: AOE_REPLAY_* bits */
    int final;  /* more repetitions (final comparison of the best and the default) */
    int parallel;
    uint32_t count;
    double cutoff_us;
    double default_s; /* the run plan's default duration (run_plan.h); 0: OPEN measures it */
    aoe_tolerance tol;
    aoe_policy pol;
} aoe_wreq;

typedef struct {
    aoe_exec_status status; /* AOE_EXEC_OK, or why it failed (reason: "<category>: ...") */
    int default_ran;        /* OPEN failed while running the default (it depends on the data) */
    aoe_timing timing;
    aoe_device_limits limits;
    uint32_t outputs; /* OPEN: buffers verified as pure outputs (poisoned) */
    double default_s; /* OPEN: the default's duration the run plan is made from */
    int retire;       /* the executor lost the device state (ops->lost): the worker
                         exits after this reply; the runner starts a fresh one */
    char reason[1024];
} aoe_wrep;

/* AOE_WOP_OPEN answers twice: this as soon as the default's first run is
 * done (first_run_s < 0: it failed before), so the parent can scale its
 * watchdog for the rest (run_plan.h), then the aoe_wrep. */
typedef struct {
    double first_run_s;
} aoe_wfirst;

/* The reply to AOE_WOP_CANDIDATES: the executor's candidates in its order,
 * the default's first; space describes where they came from. */
typedef struct {
    aoe_wrep rep;
    uint32_t n;
    char space[256];
    aoe_policy pols[AOE_EXEC_MAX_CANDIDATES];
} aoe_wcands;

/* The worker's body (an aoe_worker_fn); ctx is the const aoe_job *. */
int aoe_runner_worker_main(void *ctx, int fd);

#endif
