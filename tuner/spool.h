/* The job spool (protocol in the README, section cli-tune): the shim drops
 * "<key>.job" files, `aoe tune --spool DIR` claims and tunes them. */
#ifndef AOE_SPOOL_H
#define AOE_SPOOL_H

#include "core/config.h"
#include "jobs/job.h"
#include "jobs/spool_protocol.h"
#include "tuner/exec_status.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

/* 1 when a job failing with status st failed through no fault of its own
 * (disk full, I/O error, out of memory, the bank unwritable, no worker could
 * start, the worker killed from outside): the job is retried. */
int aoe_spool_transient(aoe_exec_status st);

/* Tunes one claimed job on its `attempt`th try (1..AOE_SPOOL_MAX_ATTEMPTS:
 * earlier tries failed transiently); returns AOE_EXEC_OK, or why it failed
 * with a one-line reason in err. */
typedef aoe_exec_status (*aoe_spool_tune_fn)(void *ctx, const char *path, const aoe_job *job,
                                             unsigned attempt, char *err, size_t errlen);
/* True when the bank already has the job's key (the job is skipped unless it
 * carries repeat_tune). */
typedef int (*aoe_spool_known_fn)(void *ctx, const aoe_job *job);

typedef struct {
    unsigned tuned, failed, skipped;
    unsigned nothing; /* nothing to tune: recorded like a failure, not one */
    unsigned retried; /* put back after a transient failure */
    int busy;         /* another tuner holds the lock: nothing was done */
} aoe_spool_stats;

/* Runs the spool until no job has appeared for idle_exit_s seconds (0: until
 * it is empty). Returns 0, or -1 with a message (the directory is unusable). */
int aoe_spool_run(const char *dir, double idle_exit_s, aoe_spool_tune_fn tune,
                  aoe_spool_known_fn known, void *ctx, aoe_spool_stats *st, char *err,
                  size_t errlen);

#endif
