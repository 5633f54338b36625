/* The spool's private files and its housekeeping at the tuner's start: what
 * a dead writer or an earlier version left behind must not pile up. Only the
 * user's own regular files are touched, never through a link. */
#include "core/fs_safe.h"
#include "tuner/spool.h"
#include "tuner/spool_files.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void aoe_spool_write_failed(int dfd, const char *key, const char *kernel, const char *why,
                            unsigned attempts, time_t when)
{
    char name[64], line[1200];
    cJSON *o = cJSON_CreateObject();
    if (o) {
        cJSON_AddStringToObject(o, "key", key);
        cJSON_AddStringToObject(o, "kernel_name", kernel ? kernel : "?");
        cJSON_AddStringToObject(o, "reason", why);
        cJSON_AddNumberToObject(o, "attempts", attempts);
        cJSON_AddNumberToObject(o, "time", (double)when);
        char *text = cJSON_PrintUnformatted(o);
        snprintf(name, sizeof name, "%s.failed", key);
        if (text) aoe_fs_write_file_at(dfd, name, text, strlen(text));
        cJSON_free(text);
        cJSON_Delete(o);
    }
    int n = snprintf(line, sizeof line, "%.1100s\n", why);
    for (char *p = line; p < line + n - 1; p++)
        if (*p == '\n') *p = ' '; /* one line */
    snprintf(name, sizeof name, "%s.failed.txt", key);
    aoe_fs_write_file_at(dfd, name, line, (size_t)n);
}

typedef struct {
    char name[64];
    time_t mtime;
    off_t size;
} entry;

static int newest_first(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    return (x->mtime < y->mtime) - (x->mtime > y->mtime);
}

/* "<key>.<anything>.tmp<pid>...": a writer's temporary file; its pid. */
static long tmp_pid(const char *name)
{
    for (int i = 0; i < 32; i++)
        if (!strchr("0123456789abcdef", name[i]) || !name[i]) return 0;
    if (name[32] != '.') return 0;
    const char *t = strstr(name + 32, ".tmp");
    if (!t || t[4] < '1' || t[4] > '9') return 0;
    return strtol(t + 4, NULL, 10);
}

static int stale_tmp(const char *name, const struct stat *st, time_t now)
{
    long pid = tmp_pid(name);
    if (pid <= 0) return 0;
    return now - st->st_mtime >= AOE_SPOOL_TMP_TTL_S || (kill((pid_t)pid, 0) && errno == ESRCH);
}

/* An old-format .failed still holds the job: replaced by a record (the
 * reason is in .failed.txt), keeping its time so it expires as before. */
static void strip_failed(int dfd, const char *name, const struct stat *st)
{
    char key[33];
    snprintf(key, sizeof key, "%.32s", name);
    aoe_spool_write_failed(dfd, key, "?", "failed before this version (see .failed.txt)", 1,
                           st->st_mtime);
    struct timespec ts[2] = {{0, UTIME_OMIT}, st->st_mtim};
    utimensat(dfd, name, ts, AT_SYMLINK_NOFOLLOW);
}

/* 1 when dfd/<key><suffix> exists (any kind). */
static int has(int dfd, const char *name, const char *suffix)
{
    char n[64];
    struct stat st;
    snprintf(n, sizeof n, "%.32s%s", name, suffix);
    return fstatat(dfd, n, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

void aoe_spool_tidy(int dfd, const char *dir, const aoe_config *cfg)
{
    int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0) close(fd);
        return;
    }
    time_t now = time(NULL);
    unsigned tmps = 0, expired = 0, stripped = 0, njobs = 0, cap = 0;
    entry *jobs = NULL;
    uint64_t bytes = 0;
    struct dirent *e;
    struct stat st;
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        if (n[0] == '.' || fstatat(dfd, n, &st, AT_SYMLINK_NOFOLLOW)) continue;
        if (!S_ISREG(st.st_mode) || st.st_uid != geteuid()) continue; /* not ours: untouched */
        if (stale_tmp(n, &st, now)) {
            tmps += unlinkat(dfd, n, 0) == 0;
        } else if (aoe_spool_key_name(n, ".failed") || aoe_spool_key_name(n, ".failed.txt")) {
            if (aoe_spool_failed_expired(&st, now)) {
                expired += unlinkat(dfd, n, 0) == 0 && aoe_spool_key_name(n, ".failed");
                continue;
            }
            if (aoe_spool_key_name(n, ".failed") && st.st_size > AOE_SPOOL_FAILED_MAX) {
                strip_failed(dfd, n, &st);
                stripped++;
                st.st_size = 0;
            }
            bytes += (uint64_t)st.st_size;
        } else if (aoe_spool_key_name(n, ".retry")) {
            if (!has(dfd, n, ".job") && !has(dfd, n, ".running")) unlinkat(dfd, n, 0);
        } else if (aoe_spool_key_name(n, ".job")) {
            if (njobs == cap) {
                cap = cap ? 2 * cap : 64;
                entry *m = realloc(jobs, cap * sizeof *m);
                if (!m) break;
                jobs = m;
            }
            entry *j = &jobs[njobs++];
            snprintf(j->name, sizeof j->name, "%.36s", n); /* <key>.job */
            j->mtime = st.st_mtime, j->size = st.st_size;
            bytes += (uint64_t)st.st_size;
        } else if (strchr(n, '.') && strchr(n, '.') - n == 32) { /* .running, a live writer's */
            bytes += (uint64_t)st.st_size;
        }
    }
    closedir(d);
    /* Over the limits (jobs from an older shim, lowered limits): the newest
     * jobs go; they are captured again once there is room. */
    unsigned max_jobs = (unsigned)cfg->num[AOE_CFG_SPOOL_MAX_JOBS], removed = 0;
    uint64_t max_bytes = (uint64_t)cfg->num[AOE_CFG_SPOOL_MAX_MB] << 20;
    if (jobs && (njobs > max_jobs || bytes > max_bytes)) {
        qsort(jobs, njobs, sizeof *jobs, newest_first);
        for (unsigned i = 0; i < njobs && (njobs - removed > max_jobs || bytes > max_bytes); i++) {
            if (unlinkat(dfd, jobs[i].name, 0)) continue;
            removed++;
            bytes -= (uint64_t)jobs[i].size;
        }
    }
    free(jobs);
    char msg[512] = "";
    size_t at = 0;
    if (tmps)
        at += (size_t)snprintf(msg + at, sizeof msg - at, ", %u temporary files of dead writers",
                               tmps);
    if (expired)
        at += (size_t)snprintf(msg + at, sizeof msg - at, ", %u expired failed jobs", expired);
    if (removed)
        at += (size_t)snprintf(msg + at, sizeof msg - at,
                               ", %u jobs over AOE_SPOOL_MAX_JOBS=%u / AOE_SPOOL_MAX_MB=%ld",
                               removed, max_jobs, cfg->num[AOE_CFG_SPOOL_MAX_MB]);
    if (stripped)
        snprintf(msg + at, sizeof msg - at, ", stripped %u failed jobs of their payload", stripped);
    if (msg[0]) fprintf(stderr, "aoe tune: spool %s: removed%s\n", dir, msg + 1);
}
