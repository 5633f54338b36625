/* The spool loop: one tuner per spool (flock on tuner.lock), jobs claimed by
 * renaming "<key>.job" to "<key>.running", so a job is tuned once even when
 * several tuners race, and a tuner that dies leaves a ".running" file the
 * next one puts back. A job is code: only regular files of the user in the
 * user's own spool are claimed (checked on the open descriptor, which is
 * then the one read). A failure that is not the job's fault puts the job
 * back with a retry count ("<key>.retry": attempts, earliest next time);
 * after AOE_SPOOL_MAX_ATTEMPTS, or a failure of the job itself, it becomes a
 * small "<key>.failed" record without payload. */
#include "core/fs_safe.h"
#include "tuner/spool.h"
#include "jobs/spool_protocol.h"

#include "tuner/spool_files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#define REPORTED_MAX 64

typedef struct {
    int dfd;
    const char *dir;
    aoe_spool_tune_fn tune;
    aoe_spool_known_fn known;
    void *ctx;
    aoe_spool_stats *st;
    char reported[REPORTED_MAX][48]; /* untrusted entries already reported */
    unsigned nreported;
} spool;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int aoe_spool_transient(aoe_exec_status st)
{
    return aoe_exec_status_transient(st);
}

/* Once per name and tuner: a foreign file stays where it is, unclaimed. */
static void report(spool *sp, const char *name, const char *why)
{
    for (unsigned i = 0; i < sp->nreported; i++)
        if (!strcmp(sp->reported[i], name)) return;
    if (sp->nreported < REPORTED_MAX)
        snprintf(sp->reported[sp->nreported++], sizeof sp->reported[0], "%s", name);
    fprintf(stderr, "aoe tune: spool %s: ignoring %s: %s\n", sp->dir, name, why);
}

/* Opens dfd/name for reading if it is a trusted regular file: never follows a
 * link, never blocks on a FIFO, never opens a device. Returns fd or -1. */
static int open_trusted(spool *sp, const char *name)
{
    struct stat st;
    char why[160];
    if (fstatat(sp->dfd, name, &st, AT_SYMLINK_NOFOLLOW)) return -1;
    if (aoe_spool_check(&st, why, sizeof why)) {
        report(sp, name, why);
        return -1;
    }
    int fd = openat(sp->dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return -1;
    if (fstat(fd, &st) || aoe_spool_check(&st, why, sizeof why)) { /* replaced meanwhile */
        report(sp, name, why);
        close(fd);
        return -1;
    }
    return fd;
}

/* <key>.retry: "attempts not_before" (seconds since the epoch). */
static void read_retry(spool *sp, const char *key, unsigned *attempts, long long *not_before)
{
    char name[64], buf[64];
    *attempts = 0, *not_before = 0;
    snprintf(name, sizeof name, "%s.retry", key);
    int fd = open_trusted(sp, name);
    if (fd < 0) return;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return;
    buf[n] = '\0';
    if (sscanf(buf, "%u %lld", attempts, not_before) != 2) *attempts = 0, *not_before = 0;
}

static void write_retry(spool *sp, const char *key, unsigned attempts, long long not_before)
{
    char name[64], buf[64];
    snprintf(name, sizeof name, "%s.retry", key);
    int n = snprintf(buf, sizeof buf, "%u %lld\n", attempts, not_before);
    aoe_fs_write_file_at(sp->dfd, name, buf, (size_t)n);
}

static void drop(spool *sp, const char *key, const char *suffix)
{
    char name[64];
    snprintf(name, sizeof name, "%s%s", key, suffix);
    unlinkat(sp->dfd, name, 0);
}

static void fail_job(spool *sp, const char *key, const char *kernel, const char *why,
                     unsigned attempts)
{
    aoe_spool_write_failed(sp->dfd, key, kernel, why, attempts, time(NULL));
    drop(sp, key, ".running");
    drop(sp, key, ".retry");
    sp->st->failed++;
}

/* Nothing to tune: the same record (it stops recapture until it expires),
 * its line starting with AOE_SPOOL_NOTHING_TO_TUNE, which the shim reads as
 * its own reason; counted apart, not as a failure. */
static void nothing_to_tune(spool *sp, const char *key, const char *kernel, const char *why)
{
    char line[1200];
    snprintf(line, sizeof line, "%s%.1100s",
             aoe_spool_nothing_to_tune(why) ? "" : AOE_SPOOL_NOTHING_TO_TUNE ": ", why);
    aoe_spool_write_failed(sp->dfd, key, kernel, line, 1, time(NULL));
    drop(sp, key, ".running");
    drop(sp, key, ".retry");
    sp->st->nothing++;
}

/* A tuner that dies (killed, out of memory) leaves ".running" files: each
 * counts as one attempt, so a job that kills its tuner is not retried for
 * ever. Runs with the lock held: no live tuner owns them. */
static void recover_stale(spool *sp)
{
    int fd = openat(sp->dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    struct dirent *e;
    if (!d) {
        if (fd >= 0) close(fd);
        return;
    }
    while ((e = readdir(d)) != NULL) {
        if (!aoe_spool_key_name(e->d_name, ".running")) continue;
        int jf = open_trusted(sp, e->d_name);
        if (jf < 0) continue;
        close(jf);
        char key[33], job[64];
        unsigned attempts;
        long long nb;
        snprintf(key, sizeof key, "%.32s", e->d_name);
        snprintf(job, sizeof job, "%s.job", key);
        read_retry(sp, key, &attempts, &nb);
        if (++attempts >= AOE_SPOOL_MAX_ATTEMPTS) {
            char why[128];
            snprintf(why, sizeof why, "the tuner stopped %u times while tuning this job", attempts);
            fail_job(sp, key, "?", why, attempts);
            continue;
        }
        write_retry(sp, key, attempts, 0);
        renameat(sp->dfd, e->d_name, sp->dfd, job);
    }
    closedir(d);
}

/* Claims one job: renames it ".running" and returns its descriptor (opened
 * and checked before the rename) and the tries it failed before (*attempts),
 * or -1 when none can be claimed now. */
static int claim(spool *sp, char key[33], unsigned *attempts)
{
    int fd = openat(sp->dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    struct dirent *e;
    int jf = -1;
    if (!d) {
        if (fd >= 0) close(fd);
        return -1;
    }
    while (jf < 0 && (e = readdir(d)) != NULL) {
        if (!aoe_spool_key_name(e->d_name, ".job")) continue;
        char running[64];
        long long not_before;
        snprintf(key, 33, "%.32s", e->d_name);
        read_retry(sp, key, attempts, &not_before);
        if (not_before > (long long)time(NULL)) continue; /* backing off */
        if ((jf = open_trusted(sp, e->d_name)) < 0) continue;
        snprintf(running, sizeof running, "%s.running", key);
        if (renameat(sp->dfd, e->d_name, sp->dfd, running)) {
            close(jf);
            jf = -1;
        }
    }
    closedir(d);
    return jf;
}

/* A failure: put back for a later try when it is not the job's fault (at
 * most AOE_SPOOL_MAX_ATTEMPTS tries, the delay doubling), else recorded. */
static void failed(spool *sp, const char *key, const char *path, const char *kernel,
                   aoe_exec_status st, const char *why)
{
    unsigned attempts;
    long long nb;
    if (st == AOE_EXEC_NOTHING_TO_TUNE) {
        nothing_to_tune(sp, key, kernel, why);
        return;
    }
    read_retry(sp, key, &attempts, &nb);
    attempts++;
    if (!aoe_spool_transient(st) || attempts >= AOE_SPOOL_MAX_ATTEMPTS) {
        fail_job(sp, key, kernel, why, attempts);
        return;
    }
    char name[64], running[64];
    write_retry(sp, key, attempts, (long long)time(NULL) + (AOE_SPOOL_RETRY_S << (attempts - 1)));
    snprintf(running, sizeof running, "%s.running", key);
    snprintf(name, sizeof name, "%s.job", key);
    renameat(sp->dfd, running, sp->dfd, name);
    fprintf(stderr, "aoe tune: %s: will retry (attempt %u of %d): %s\n", path, attempts,
            AOE_SPOOL_MAX_ATTEMPTS, why);
    sp->st->retried++;
}

/* Claims and processes one job; returns 1 if one was found, 0 if none. */
static int one_job(spool *sp)
{
    char key[33], path[4200], err[1024];
    unsigned attempts;
    int jf = claim(sp, key, &attempts);
    if (jf < 0) return 0;
    snprintf(path, sizeof path, "%s/%s.running", sp->dir, key);
    aoe_job job;
    memset(&job, 0, sizeof job);
    errno = 0;
    int bad = aoe_job_read_fd(jf, path, &job, err, sizeof err);
    /* A read that failed for want of memory or a working disk is not the job's fault. */
    aoe_exec_status st = bad ? aoe_exec_status_from_errno(errno, AOE_EXEC_BAD_JOB) : AOE_EXEC_OK;
    close(jf);
    if (bad) {
        char why[1100];
        snprintf(why, sizeof why, "unreadable job: %s", err);
        failed(sp, key, path, "?", st, why);
        return 1;
    }
    if (!job.repeat_tune && sp->known && sp->known(sp->ctx, &job)) {
        sp->st->skipped++;
        drop(sp, key, ".running");
        drop(sp, key, ".retry");
    } else if ((st = sp->tune(sp->ctx, path, &job, attempts + 1, err, sizeof err)) != AOE_EXEC_OK) {
        failed(sp, key, path, job.kernel_name, st, err);
    } else {
        sp->st->tuned++;
        drop(sp, key, ".running");
        drop(sp, key, ".retry");
    }
    aoe_job_free(&job);
    return 1;
}

int aoe_spool_run(const char *dir, double idle_exit_s, aoe_spool_tune_fn tune,
                  aoe_spool_known_fn known, void *ctx, aoe_spool_stats *st, char *err,
                  size_t errlen)
{
    char why[4400];
    memset(st, 0, sizeof *st);
    if (aoe_spool_mkdir_err(dir, why, sizeof why)) {
        snprintf(err, errlen, "spool directory: %s", why);
        return -1;
    }
    int dfd = aoe_spool_open(dir, why, sizeof why);
    if (dfd < 0) {
        snprintf(err, errlen, "refusing the spool (its jobs are code): %s", why);
        return -1;
    }
    int fd = openat(dfd, "tuner.lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(err, errlen, "%s/tuner.lock: %s", dir, strerror(errno));
        close(dfd);
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB)) {
        int e = errno;
        close(fd);
        close(dfd);
        if (e == EWOULDBLOCK) {
            st->busy = 1;
            return 0;
        }
        snprintf(err, errlen, "locking %s/tuner.lock: %s", dir, strerror(e));
        return -1;
    }
    spool *sp = calloc(1, sizeof *sp);
    if (!sp) {
        snprintf(err, errlen, "out of memory");
        close(fd);
        close(dfd);
        return -1;
    }
    *sp = (spool){.dfd = dfd, .dir = dir, .tune = tune, .known = known, .ctx = ctx, .st = st};
    aoe_config cfg;
    char cerr[256];
    aoe_config_load(&cfg, cerr, sizeof cerr); /* a bad value: its default */
    recover_stale(sp);                        /* we hold the lock: no live tuner owns them */
    aoe_spool_tidy(dfd, dir, &cfg);
    double last = now_s();
    for (;;) {
        if (one_job(sp)) {
            last = now_s();
            continue;
        }
        if (now_s() - last >= idle_exit_s) break;
        struct timespec ts = {0, 200000000};
        nanosleep(&ts, NULL);
    }
    free(sp);
    close(fd); /* releases the lock */
    close(dfd);
    return 0;
}
