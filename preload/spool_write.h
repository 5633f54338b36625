/* The shim's side of the spool protocol: write a captured job once per key
 * (never when "<key>.job", ".running" or ".failed" already exists), and
 * start the background tuner once per process in online mode. */
#ifndef AOE_SPOOL_WRITE_H
#define AOE_SPOOL_WRITE_H

#include "jobs/job.h"

#include <stdbool.h>

/* true when the spool already holds this key: queued, running, or failed
 * less than AOE_SPOOL_FAILED_TTL_S (7 days) ago. */
bool aoe_spool_has(const aoe_key *key);
/* true when the spool is at AOE_SPOOL_MAX_JOBS or AOE_SPOOL_MAX_MB (one
 * directory scan): a capture can stop before reading buffers back. */
bool aoe_spool_full(void);
/* Returns 1 written, 0 already there or no room (logged once), -1 error
 * (logged once; also when the spool is not the user's own). */
int aoe_spool_submit(const aoe_job *job);
/* Starts `aoe tune --spool DIR --idle-exit 10` (nice 10, own session, stdio to
 * DIR/tuner.log, environment without LD_PRELOAD), at most once per process. */
void aoe_tuner_spawn(void);
void aoe_tuner_spawn_atfork_child(void);

#endif
