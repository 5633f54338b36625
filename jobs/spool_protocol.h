/* The spool protocol shared by the shim (which drops "<key>.job" files) and
 * the tuner (which claims and tunes them): where the spool is, who may own it
 * and its files, and how entries are named. Protocol in docs/formats.md. */
#ifndef AOE_SPOOL_PROTOCOL_H
#define AOE_SPOOL_PROTOCOL_H

#include "core/config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* The spool is a trust boundary (a job is code): the directory and every file
 * taken from it must be the user's own, not a link, and writable by no one
 * else. Anything else is left alone and reported. */
#define AOE_SPOOL_FAILED_TTL_S (7L * 24 * 3600) /* a .failed entry stops recapture this long */
#define AOE_SPOOL_TMP_TTL_S 3600L  /* a writer's temporary file older than this is stale */
#define AOE_SPOOL_MAX_ATTEMPTS 3   /* tries of a job failing transiently before it is failed */
#define AOE_SPOOL_RETRY_S 60L      /* delay before the first retry; doubles per attempt */
#define AOE_SPOOL_FAILED_MAX 65536 /* a .failed file above this still holds a payload */

/* A <key>.failed.txt whose line starts with this records a job the tuner
 * found nothing to tune in (AOE_EXEC_NOTHING_TO_TUNE): not a failure, but
 * like one it stops recapture until it expires. */
#define AOE_SPOOL_NOTHING_TO_TUNE "nothing to tune"
static inline int aoe_spool_nothing_to_tune(const char *reason)
{
    return !strncmp(reason, AOE_SPOOL_NOTHING_TO_TUNE, sizeof AOE_SPOOL_NOTHING_TO_TUNE - 1);
}

/* Opens dir (never through a symbolic link) and checks that it is a directory
 * owned by the effective user and not writable by group or others. Returns
 * the descriptor, or -1 with a one-line reason in why. */
int aoe_spool_open(const char *dir, char *why, size_t whylen);
/* 0 when st is a regular file of the effective user that group and others
 * cannot write; -1 with the reason in why. */
int aoe_spool_check(const struct stat *st, char *why, size_t whylen);
/* 1 when name is "<32 lowercase hex digits>" followed by exactly suffix. */
int aoe_spool_key_name(const char *name, const char *suffix);
/* 1 when a .failed entry with this status has expired. */
int aoe_spool_failed_expired(const struct stat *st, time_t now);

typedef struct {
    unsigned jobs;  /* queued, running or being written */
    uint64_t bytes; /* every regular file of the spool */
} aoe_spool_usage;
void aoe_spool_measure(int dfd, aoe_spool_usage *u);
/* "$AOE_WORK_PATH/spool" when AOE_WORK_PATH is set, else "<bank dir>/spool".
 * Computes only (no OpenCL, no file system change). Returns 0 or -1. */
int aoe_spool_dir(const aoe_config *cfg, char *out, size_t outlen);

/* Creates dir (and missing parents) with mode 0700. Returns 0 or -1 (errno). */
int aoe_spool_mkdir(const char *dir);
/* The same with a one-line reason in err. */
int aoe_spool_mkdir_err(const char *dir, char *err, size_t errlen);

#endif
