#include "core/fs_safe.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Formats the message, sets errno to e and returns -1. */
__attribute__((format(printf, 4, 5))) static int fail(int e, char *err, size_t errlen,
                                                      const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    errno = e;
    return -1;
}

/* A parent another user can rename entries in lets that user swap our
 * directory for a link after we checked it: only root's or our own, and a
 * directory others may write only with the sticky bit (like /tmp). */
static int parent_ok(const char *p, const char *dir, int create, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(p, &st) == 0 && S_ISLNK(st.st_mode) && st.st_uid != 0 && st.st_uid != geteuid())
        return fail(EPERM, err, errlen,
                    "refusing %s: %s is a symbolic link of another user (uid %lu)", dir, p,
                    (unsigned long)st.st_uid);
    if (stat(p, &st)) {
        if (errno != ENOENT || !create)
            return fail(errno, err, errlen, "%s: %s", p, strerror(errno));
        if (mkdir(p, 0700) && errno != EEXIST)
            return fail(errno, err, errlen, "cannot create %s: %s", p, strerror(errno));
        if (stat(p, &st)) return fail(errno, err, errlen, "%s: %s", p, strerror(errno));
    }
    if (!S_ISDIR(st.st_mode)) return fail(ENOTDIR, err, errlen, "%s is not a directory", p);
    if (st.st_uid != 0 && st.st_uid != geteuid())
        return fail(EPERM, err, errlen,
                    "refusing %s: its parent %s belongs to another user (uid %lu) who could "
                    "replace it",
                    dir, p, (unsigned long)st.st_uid);
    if ((st.st_mode & 022) && !(st.st_mode & S_ISVTX))
        return fail(EPERM, err, errlen,
                    "refusing %s: other users can write its parent %s (mode %03lo, not sticky)",
                    dir, p, (unsigned long)(st.st_mode & 07777));
    return 0;
}

/* parent_ok for every parent of path p (cut at each '/' in turn and
 * restored): "." first for a relative path, "/" for an absolute one. */
static int parents_ok(char *p, const char *dir, int create, char *err, size_t errlen)
{
    if (p[0] != '/' && parent_ok(".", dir, 0, err, errlen)) return -1;
    if (p[0] == '/' && p[1] && parent_ok("/", dir, 0, err, errlen)) return -1;
    for (char *s = p + 1; *s; s++) {
        if (*s != '/') continue;
        *s = '\0';
        int rc = parent_ok(p, dir, create, err, errlen);
        *s = '/';
        if (rc) return -1;
    }
    return 0;
}

int aoe_fs_private_dir(const char *dir, int flags, char *err, size_t errlen)
{
    char p[PATH_MAX];
    size_t len = dir ? strlen(dir) : 0;
    if (len == 0 || len >= sizeof p)
        return fail(ENAMETOOLONG, err, errlen, "bad directory name '%.200s'", dir ? dir : "");
    memcpy(p, dir, len + 1);
    while (len > 1 && p[len - 1] == '/') p[--len] = '\0';
    int create = (flags & AOE_FS_CREATE) != 0;
    if (parents_ok(p, dir, create, err, errlen)) return -1;
    struct stat st;
    if (lstat(p, &st)) {
        if (errno != ENOENT || !create)
            return fail(errno, err, errlen, "%s: %s", p, strerror(errno));
        if (mkdir(p, 0700) && errno != EEXIST)
            return fail(errno, err, errlen, "cannot create %s: %s", p, strerror(errno));
        if (lstat(p, &st)) return fail(errno, err, errlen, "%s: %s", p, strerror(errno));
    }
    if (S_ISLNK(st.st_mode))
        return fail(ELOOP, err, errlen, "refusing %s: it is a symbolic link", p);
    if (!S_ISDIR(st.st_mode)) return fail(ENOTDIR, err, errlen, "%s is not a directory", p);
    /* and where it leads: a link of ours on the way (~/work -> /proj/team/u)
     * must not lead under a directory another user can rename entries in */
    char real[PATH_MAX];
    if (realpath(p, real) && strcmp(real, p) && parents_ok(real, dir, 0, err, errlen)) return -1;
    int fd = open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st)) {
        int e = errno;
        if (fd >= 0) close(fd);
        if (err && errlen) snprintf(err, errlen, "%s: %s", p, strerror(e));
        errno = e;
        return -1;
    }
    int rc = 0;
    if (st.st_uid != geteuid() && !(st.st_uid == 0 && (flags & AOE_FS_ROOT_OK)))
        rc = fail(EPERM, err, errlen, "refusing %s: owned by another user (uid %lu, you are %lu)",
                  p, (unsigned long)st.st_uid, (unsigned long)geteuid());
    else if (st.st_mode & 022)
        rc = fail(EPERM, err, errlen,
                  "refusing %s: other users can write it (mode %03lo; chmod 700 it)", p,
                  (unsigned long)(st.st_mode & 07777));
    else if ((flags & AOE_FS_TIGHTEN) && (st.st_mode & 077) && st.st_uid == geteuid())
        fchmod(fd, 0700); /* only AOE's own directories (the spool) */
    close(fd);
    return rc;
}

int aoe_fs_check_file(const char *path, unsigned uid, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(path, &st)) {
        if (errno == ENOENT) return 0;
        int e = errno;
        if (err && errlen) snprintf(err, errlen, "%s: %s", path, strerror(e));
        errno = e;
        return -1;
    }
    if (!S_ISREG(st.st_mode))
        return fail(ELOOP, err, errlen, "refusing %s: not a regular file (a link or special file)",
                    path);
    if (st.st_uid != uid)
        return fail(EPERM, err, errlen, "refusing %s: owned by another user (uid %lu, not %lu)",
                    path, (unsigned long)st.st_uid, (unsigned long)uid);
    if (st.st_nlink != 1)
        return fail(EMLINK, err, errlen, "refusing %s: it has %lu hard links", path,
                    (unsigned long)st.st_nlink);
    return 1;
}

int aoe_fs_ensure_file(const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) return close(fd), 0;
    if (errno != EEXIST) {
        int e = errno;
        if (err && errlen) snprintf(err, errlen, "cannot create %s: %s", path, strerror(e));
        errno = e;
        return -1;
    }
    return aoe_fs_check_file(path, (unsigned)geteuid(), err, errlen) < 0 ? -1 : 0;
}

int aoe_fs_open_append(const char *path, char *err, size_t errlen)
{
    /* O_NONBLOCK: a FIFO planted here fails (ENXIO) instead of hanging. */
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600);
    if (fd < 0) {
        int e = errno;
        if (err && errlen) snprintf(err, errlen, "cannot open %s: %s", path, strerror(e));
        errno = e;
        return -1;
    }
    struct stat st;
    int rc = 0;
    if (fstat(fd, &st))
        rc = fail(errno, err, errlen, "%s: cannot stat", path);
    else if (!S_ISREG(st.st_mode))
        rc = fail(EINVAL, err, errlen, "refusing %s: not a regular file", path);
    else if (st.st_uid != geteuid())
        rc = fail(EPERM, err, errlen, "refusing %s: owned by another user (uid %lu, you are %lu)",
                  path, (unsigned long)st.st_uid, (unsigned long)geteuid());
    else if (st.st_nlink != 1)
        rc = fail(EMLINK, err, errlen, "refusing %s: it has %lu hard links", path,
                  (unsigned long)st.st_nlink);
    if (rc) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    if (st.st_mode & 077) fchmod(fd, 0600); /* a log left by an older AOE */
    fcntl(fd, F_SETFL, O_WRONLY | O_APPEND);
    return fd;
}

static atomic_uint g_seq;

int aoe_fs_write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w, len -= (size_t)w;
    }
    return 0;
}

int aoe_fs_write_file_at(int dfd, const char *name, const void *data, size_t len)
{
    char tmp[NAME_MAX + 1];
    int fd = -1;
    for (int i = 0; i < 16 && fd < 0; i++) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        unsigned r =
            (unsigned)ts.tv_nsec ^ ((unsigned)getpid() << 12) ^ atomic_fetch_add(&g_seq, 1);
        if (snprintf(tmp, sizeof tmp, ".%.200s.%08x.tmp", name, r) >= (int)sizeof tmp) break;
        fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) return -1;
    int rc = aoe_fs_write_all(fd, data, len);
    if (close(fd)) rc = -1;
    if (rc == 0) rc = renameat(dfd, tmp, dfd, name);
    int e = errno;
    if (rc) unlinkat(dfd, tmp, 0);
    errno = e;
    return rc;
}

int aoe_fs_write_file(const char *dir, const char *name, const void *data, size_t len)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) return -1;
    int rc = aoe_fs_write_file_at(dfd, name, data, len);
    int e = errno;
    close(dfd);
    errno = e;
    return rc;
}
