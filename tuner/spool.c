/* The spool loop: one tuner per spool (flock on tuner.lock), jobs claimed by
 * renaming "<key>.job" to "<key>.running", so a job is tuned once even when
 * several tuners race, and a tuner that dies leaves a ".running" file the
 * next one puts back. */
#include "tuner/spool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* "<32 hex>" + suffix exactly. */
static int is_key_file(const char *name, const char *suffix)
{
    for (int i = 0; i < 32; i++) {
        char c = name[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return 0;
    }
    return !strcmp(name + 32, suffix);
}

static void recover_stale(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    if (!d) return;
    while ((e = readdir(d)) != NULL) {
        if (!is_key_file(e->d_name, ".running")) continue;
        char from[4200], to[4200];
        snprintf(from, sizeof from, "%s/%s", dir, e->d_name);
        snprintf(to, sizeof to, "%s/%.32s.job", dir, e->d_name);
        rename(from, to);
    }
    closedir(d);
}

static void write_failed(const char *dir, const char *key, const char *running, const char *why)
{
    char failed[4200], txt[4200];
    snprintf(failed, sizeof failed, "%s/%s.failed", dir, key);
    snprintf(txt, sizeof txt, "%s/%s.failed.txt", dir, key);
    rename(running, failed);
    int fd = open(txt, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return;
    char line[1200];
    int n = snprintf(line, sizeof line, "%.1100s\n", why);
    for (char *p = line; p < line + n - 1; p++)
        if (*p == '\n') *p = ' '; /* one line */
    ssize_t w = write(fd, line, (size_t)n);
    (void)w;
    close(fd);
}

/* Claims and processes one job; returns 1 if one was found, 0 if none. */
static int one_job(const char *dir, aoe_spool_tune_fn tune, aoe_spool_known_fn known, void *ctx,
                   aoe_spool_stats *st)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char key[33] = "";
    char path[4200], running[4200];
    if (!d) return 0;
    while ((e = readdir(d)) != NULL) {
        if (!is_key_file(e->d_name, ".job")) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        snprintf(running, sizeof running, "%s/%.32s.running", dir, e->d_name);
        if (rename(path, running) == 0) {
            memcpy(key, e->d_name, 32);
            key[32] = '\0';
            break;
        }
    }
    closedir(d);
    if (!key[0]) return 0;

    aoe_job job;
    char err[1024];
    memset(&job, 0, sizeof job);
    if (aoe_job_read(running, &job, err, sizeof err)) {
        char why[1100];
        snprintf(why, sizeof why, "unreadable job: %s", err);
        write_failed(dir, key, running, why);
        st->failed++;
        return 1;
    }
    if (!job.repeat_tune && known && known(ctx, &job)) {
        st->skipped++;
        unlink(running);
    } else if (tune(ctx, running, &job, err, sizeof err)) {
        write_failed(dir, key, running, err);
        st->failed++;
    } else {
        st->tuned++;
        unlink(running);
    }
    aoe_job_free(&job);
    return 1;
}

int aoe_spool_run(const char *dir, double idle_exit_s, aoe_spool_tune_fn tune,
                  aoe_spool_known_fn known, void *ctx, aoe_spool_stats *st, char *err,
                  size_t errlen)
{
    char lock[4200];
    memset(st, 0, sizeof *st);
    if (aoe_spool_mkdir(dir)) {
        snprintf(err, errlen, "spool directory %s: %s", dir, strerror(errno));
        return -1;
    }
    snprintf(lock, sizeof lock, "%s/tuner.lock", dir);
    int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", lock, strerror(errno));
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB)) {
        close(fd);
        if (errno == EWOULDBLOCK) {
            st->busy = 1;
            return 0;
        }
        snprintf(err, errlen, "locking %s: %s", lock, strerror(errno));
        return -1;
    }
    recover_stale(dir); /* we hold the lock: no live tuner owns them */
    double last = now_s();
    for (;;) {
        if (one_job(dir, tune, known, ctx, st)) {
            last = now_s();
            continue;
        }
        if (now_s() - last >= idle_exit_s) break;
        struct timespec ts = {0, 200000000};
        nanosleep(&ts, NULL);
    }
    close(fd); /* releases the lock */
    return 0;
}
