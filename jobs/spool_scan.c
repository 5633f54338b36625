/* The spool's trust checks and its size; linked into the shim too (it checks
 * before writing a job), so no runtime calls here. */
#include "jobs/spool_protocol.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int aoe_spool_open(const char *dir, char *why, size_t whylen)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0) {
        snprintf(why, whylen, "%s: %s", dir,
                 errno == ELOOP || errno == ENOTDIR ? "a symbolic link or not a directory"
                                                    : strerror(errno));
        return -1;
    }
    if (fstat(fd, &st)) {
        snprintf(why, whylen, "%s: %s", dir, strerror(errno));
    } else if (st.st_uid != geteuid()) {
        snprintf(why, whylen, "%s is owned by uid %u, not by you (uid %u)", dir,
                 (unsigned)st.st_uid, (unsigned)geteuid());
    } else if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        snprintf(why, whylen, "%s is writable by group or others (mode %04o)", dir,
                 (unsigned)(st.st_mode & 07777));
    } else {
        return fd;
    }
    close(fd);
    return -1;
}

int aoe_spool_check(const struct stat *st, char *why, size_t whylen)
{
    if (!S_ISREG(st->st_mode))
        snprintf(why, whylen, "not a regular file");
    else if (st->st_uid != geteuid())
        snprintf(why, whylen, "owned by uid %u, not by you (uid %u)", (unsigned)st->st_uid,
                 (unsigned)geteuid());
    else if (st->st_mode & (S_IWGRP | S_IWOTH))
        snprintf(why, whylen, "writable by group or others (mode %04o)",
                 (unsigned)(st->st_mode & 07777));
    else
        return 0;
    return -1;
}

int aoe_spool_key_name(const char *name, const char *suffix)
{
    for (int i = 0; i < 32; i++) {
        char c = name[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return 0;
    }
    return !strcmp(name + 32, suffix);
}

int aoe_spool_failed_expired(const struct stat *st, time_t now)
{
    return now - st->st_mtime >= AOE_SPOOL_FAILED_TTL_S;
}

void aoe_spool_measure(int dfd, aoe_spool_usage *u)
{
    memset(u, 0, sizeof *u);
    int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC); /* own read position */
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0) close(fd);
        return;
    }
    struct dirent *e;
    struct stat st;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
            !S_ISREG(st.st_mode))
            continue;
        const char *dot = strchr(e->d_name, '.');
        if (!dot || dot - e->d_name != 32) continue; /* not a job's file (tuner.log, lock) */
        u->bytes += (uint64_t)st.st_size;
        if (!strcmp(dot, ".job") || !strcmp(dot, ".running") || !strncmp(dot, ".job.tmp", 8))
            u->jobs++;
    }
    closedir(d);
}
