/* The job spool (protocol in the README, section cli-tune): the shim drops
 * "<key>.job" files, `aoe tune --spool DIR` claims and tunes them. */
#ifndef AOE_SPOOL_H
#define AOE_SPOOL_H

#include "preload/config.h"
#include "tuner/job.h"

#include <stddef.h>

/* "$AOE_WORK_PATH/spool" when AOE_WORK_PATH is set, else "<bank dir>/spool".
 * Computes only (no OpenCL, no file system change). Returns 0 or -1. */
int aoe_spool_dir(const aoe_config *cfg, char *out, size_t outlen);

/* Creates dir (and missing parents) with mode 0700. Returns 0 or -1 (errno). */
int aoe_spool_mkdir(const char *dir);

/* Tunes one claimed job; returns 0, or -1 with a one-line reason in err. */
typedef int (*aoe_spool_tune_fn)(void *ctx, const char *path, const aoe_job *job, char *err,
                                 size_t errlen);
/* True when the bank already has the job's key (the job is skipped unless it
 * carries repeat_tune). */
typedef int (*aoe_spool_known_fn)(void *ctx, const aoe_job *job);

typedef struct {
    unsigned tuned, failed, skipped;
    int busy; /* another tuner holds the lock: nothing was done */
} aoe_spool_stats;

/* Runs the spool until no job has appeared for idle_exit_s seconds (0: until
 * it is empty). Returns 0, or -1 with a message (the directory is unusable). */
int aoe_spool_run(const char *dir, double idle_exit_s, aoe_spool_tune_fn tune,
                  aoe_spool_known_fn known, void *ctx, aoe_spool_stats *st, char *err,
                  size_t errlen);

#endif
