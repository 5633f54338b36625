#include "preload/spool_write.h"

#include "core/log.h"
#include "preload/shim.h"
#include "jobs/spool_protocol.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static atomic_int g_err_logged, g_full_logged;

static void key_path(const aoe_key *key, const char *suffix, char *out, size_t len)
{
    char hex[33];
    aoe_key_to_hex(key, hex);
    snprintf(out, len, "%s/%s%s", aoe_shim.spool_dir, hex, suffix);
}

/* .job and .running are queued; a .failed entry stops recapture only until it
 * expires (AOE_SPOOL_FAILED_TTL_S), so a failure never shuts an operator out
 * for ever. Never through a link. */
bool aoe_spool_has(const aoe_key *key)
{
    char p[4200];
    struct stat st;
    /* .job before .running: the tuner renames one into the other atomically,
     * so in this order a claimed job is never missed. */
    static const char *suffixes[] = {".job", ".running", ".failed"};
    for (size_t i = 0; i < 3; i++) {
        key_path(key, suffixes[i], p, sizeof p);
        if (fstatat(AT_FDCWD, p, &st, AT_SYMLINK_NOFOLLOW)) continue;
        if (i < 2 || !aoe_spool_failed_expired(&st, time(NULL))) return true;
    }
    return false;
}

/* What the job will take on disk, roughly (base64 is 4/3 of the bytes). */
static uint64_t job_bytes(const aoe_job *job)
{
    uint64_t n = 4096 + (job->source ? strlen(job->source) : job->binary_size * 4 / 3);
    for (uint32_t i = 0; i < job->nargs; i++)
        if (job->args[i].data) n += job->args[i].size * 4 / 3 + 64;
    return n;
}

/* The spool's global limits, measured once per capture (captures are rare:
 * once per new operator). */
static bool room_for(int dfd, uint64_t need)
{
    aoe_spool_usage u;
    uint64_t max_jobs = (uint64_t)aoe_shim.cfg.num[AOE_CFG_SPOOL_MAX_JOBS];
    uint64_t max_bytes = (uint64_t)aoe_shim.cfg.num[AOE_CFG_SPOOL_MAX_MB] << 20;
    aoe_spool_measure(dfd, &u);
    if (u.jobs < max_jobs && u.bytes + need <= max_bytes) return true;
    aoe_shim_log_once(&g_full_logged, AOE_LOG_WARN,
                      "the spool %s is full (%u jobs, %llu MiB; AOE_SPOOL_MAX_JOBS=%llu, "
                      "AOE_SPOOL_MAX_MB=%llu): operators are not captured until it drains",
                      aoe_shim.spool_dir, u.jobs, (unsigned long long)(u.bytes >> 20),
                      (unsigned long long)max_jobs, (unsigned long long)(max_bytes >> 20));
    return false;
}

bool aoe_spool_full(void)
{
    char why[4400];
    int dfd = aoe_spool_open(aoe_shim.spool_dir, why, sizeof why);
    if (dfd < 0) return false; /* absent (created on submit) or refused there */
    bool full = !room_for(dfd, 1);
    close(dfd);
    return full;
}

/* path (n bytes) made absolute against the working directory cwd, into
 * out (len bytes) from *at on: 0, or -1 when it does not fit. */
static int put_absolute(const char *path, size_t n, const char *cwd, char *out, size_t len,
                        size_t *at)
{
    int w = path[0] == '/' ? snprintf(out + *at, len - *at, "%.*s", (int)n, path)
                           : snprintf(out + *at, len - *at, "%s/%.*s", cwd, (int)n, path);
    if (w < 0 || (size_t)w >= len - *at) return -1;
    *at += (size_t)w;
    return 0;
}

/* The program's settings for its jobs (aoe_job_settings): the tuner that
 * takes them may have been started by another program, in another
 * directory. Worked out once, at the first capture (not on the program's
 * stack: 20 KB of paths), paths made absolute against the working directory
 * then; what cannot be said (too long, no working directory) is left out,
 * and the tuner then uses its own. */
static pthread_once_t g_settings_once = PTHREAD_ONCE_INIT;
static aoe_job_settings g_settings;
static char g_bank[AOE_JOB_MAX_BANK + 1], g_tunables[AOE_JOB_MAX_TUNABLES + 1];

static void settings_once(void)
{
    char cwd[4096];
    const char *b = aoe_shim.bank_path, *t = aoe_shim.cfg.text[AOE_CFG_TUNABLES];
    size_t at = 0;
    if (!getcwd(cwd, sizeof cwd)) cwd[0] = 0;
    if (b[0] && (b[0] == '/' || cwd[0]) &&
        put_absolute(b, strlen(b), cwd, g_bank, sizeof g_bank, &at))
        g_bank[0] = 0;
    at = 0;
    for (const char *p = t ? t : ""; *p;) { /* ':'-separated, empty entries dropped */
        size_t n = strcspn(p, ":");
        if (n) {
            if ((p[0] != '/' && !cwd[0]) || (at && at + 1 >= sizeof g_tunables)) return;
            if (at) g_tunables[at++] = ':';
            if (put_absolute(p, n, cwd, g_tunables, sizeof g_tunables, &at)) return;
        }
        p += n + (p[n] == ':');
    }
    g_settings.present = 1; /* all of it, or nothing: half the tunables would mislead */
    g_settings.bank = g_bank[0] ? g_bank : NULL;
    g_settings.tunables = g_tunables;
    g_settings.auto_defines = aoe_shim.cfg.num[AOE_CFG_AUTO_DEFINES] != 0;
    if (aoe_shim.cfg.from_env[AOE_CFG_MAX_EVALS])
        g_settings.max_evals = (uint32_t)aoe_shim.cfg.num[AOE_CFG_MAX_EVALS];
    if (aoe_shim.cfg.from_env[AOE_CFG_TIME_LIMIT])
        g_settings.time_limit_s = (double)aoe_shim.cfg.num[AOE_CFG_TIME_LIMIT];
}

int aoe_spool_submit(const aoe_job *in)
{
    char why[4400];
    aoe_job copy = *in; /* the same job, with its program's settings */
    const aoe_job *job = &copy;
    pthread_once(&g_settings_once, settings_once);
    copy.settings = g_settings;
    if (aoe_spool_mkdir_err(aoe_shim.spool_dir, why, sizeof why)) {
        aoe_shim_log_once(&g_err_logged, AOE_LOG_WARN, "cannot use the spool: %s", why);
        return -1;
    }
    /* A job holds the program's data: never written where someone else can
     * read, replace or plant jobs. */
    int dfd = aoe_spool_open(aoe_shim.spool_dir, why, sizeof why);
    if (dfd < 0) {
        aoe_shim_log_once(&g_err_logged, AOE_LOG_WARN, "refusing the spool: %s", why);
        return -1;
    }
    if (aoe_spool_has(&job->key) || !room_for(dfd, job_bytes(job))) {
        close(dfd);
        return 0;
    }
    /* Written through the checked descriptor, so a directory swapped in
     * meanwhile never receives the job. */
    char hex[33], tmp[96], final[48];
    aoe_key_to_hex(&job->key, hex);
    snprintf(tmp, sizeof tmp, "%s.job.tmp%ld", hex, (long)getpid());
    snprintf(final, sizeof final, "%s.job", hex);
    if (aoe_job_write_at(dfd, tmp, job)) {
        aoe_shim_log_once(&g_err_logged, AOE_LOG_WARN, "cannot write a job to %s: %s",
                          aoe_shim.spool_dir, strerror(errno));
        unlinkat(dfd, tmp, 0);
        close(dfd);
        return -1;
    }
    /* linkat() fails when another process queued the same key meanwhile. */
    int rc = linkat(dfd, tmp, dfd, final, 0) == 0 ? 1 : 0;
    unlinkat(dfd, tmp, 0);
    close(dfd);
    return rc;
}
