#include "preload/spool_write.h"

#include "preload/log.h"
#include "preload/shim.h"
#include "tuner/spool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static atomic_int g_err_logged;

static void key_path(const aoe_key *key, const char *suffix, char *out, size_t len)
{
    char hex[33];
    aoe_key_to_hex(key, hex);
    snprintf(out, len, "%s/%s%s", aoe_shim.spool_dir, hex, suffix);
}

static bool exists(const char *path)
{
    return access(path, F_OK) == 0;
}

bool aoe_spool_has(const aoe_key *key)
{
    char p[4200];
    /* .job before .running: the tuner renames one into the other atomically,
     * so in this order a claimed job is never missed. */
    static const char *suffixes[] = {".job", ".running", ".failed"};
    for (size_t i = 0; i < 3; i++) {
        key_path(key, suffixes[i], p, sizeof p);
        if (exists(p)) return true;
    }
    return false;
}

int aoe_spool_submit(const aoe_job *job)
{
    if (aoe_spool_mkdir(aoe_shim.spool_dir)) {
        aoe_shim_log_once(&g_err_logged, AOE_LOG_WARN, "cannot create the spool %s: %s",
                          aoe_shim.spool_dir, strerror(errno));
        return -1;
    }
    if (aoe_spool_has(&job->key)) return 0;
    char tmp[4200], final[4200], suffix[64];
    snprintf(suffix, sizeof suffix, ".job.tmp%ld", (long)getpid());
    key_path(&job->key, suffix, tmp, sizeof tmp);
    key_path(&job->key, ".job", final, sizeof final);
    if (aoe_job_write(tmp, job)) {
        aoe_shim_log_once(&g_err_logged, AOE_LOG_WARN, "cannot write a job to %s: %s",
                          aoe_shim.spool_dir, strerror(errno));
        unlink(tmp);
        return -1;
    }
    /* link() fails when another process queued the same key meanwhile. */
    int rc = link(tmp, final) == 0 ? 1 : 0;
    unlink(tmp);
    return rc;
}
