/* Remembered NVRTC programs on disk (nvrtc_remembered.h): the directory
 * "<AOE_WORK_PATH or the bank directory>/nvrtc" (next to the spool, made
 * like it: the user's own, 0700, never through a link), one file per
 * image, written once (a temporary file linked to its name: an existing
 * file is never replaced) and never past AOE_NVRTC_REMEMBERED_MAX_FILES
 * files (a temporary file a dead writer left goes then). Read back at
 * module load with one open by name (no directory scan): only the user's
 * own regular file, not a link, that no one else can write; anything else
 * is ignored with one debug message. */
#include "hooks/nvrtc_remembered.h"

#include "core/config_choices.h"
#include "core/fs_safe.h"
#include "core/log.h"
#include "jobs/spool_protocol.h"
#include "preload/shim.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static atomic_int g_write_said, g_full_said;

/* The directory: the spool's sibling "nvrtc". 0, or -1 (no shim paths). */
static int remembered_dir(char *out, size_t len)
{
    const char *spool = aoe_shim.spool_dir;
    size_t n = strlen(spool);
    if (n < 7 || strcmp(spool + n - 6, "/spool")) return -1;
    int w = snprintf(out, len, "%.*s/nvrtc", (int)(n - 6), spool);
    return w < 0 || (size_t)w >= len ? -1 : 0;
}

/* The directory's entries, counted up to limit; a writer's temporary file
 * older than AOE_SPOOL_TMP_TTL_S (its process died) is removed. */
static size_t count_files(int dfd, size_t limit)
{
    time_t now = time(NULL);
    int fd = dup(dfd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    size_t n = 0;
    if (!d) {
        if (fd >= 0) close(fd);
        return limit; /* unreadable: as if full */
    }
    for (struct dirent *e; n < limit && (e = readdir(d));) {
        struct stat st;
        if (e->d_name[0] == '.') continue;
        if (strstr(e->d_name, ".json.tmp") && !fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
            now - st.st_mtime > AOE_SPOOL_TMP_TTL_S && !unlinkat(dfd, e->d_name, 0))
            continue;
        n++;
    }
    closedir(d);
    return n;
}

/* text into dfd/name unless it exists: 1 written, 0 there already, -1 (errno). */
static int write_once(int dfd, const char *name, const char *text)
{
    char tmp[96];
    snprintf(tmp, sizeof tmp, "%.60s.tmp%ld", name, (long)getpid());
    int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return -1;
    int rc = aoe_fs_write_all(fd, text, strlen(text));
    if (close(fd)) rc = -1;
    int err = errno;
    if (!rc) rc = linkat(dfd, tmp, dfd, name, 0) == 0 ? 1 : errno == EEXIST ? 0 : -1;
    if (rc < 0) err = errno;
    unlinkat(dfd, tmp, 0);
    errno = err;
    return rc;
}

void aoe_nvrtc_remember(const aoe_nvrtc_program *p, int kind, uint64_t hash, size_t size)
{
    char dir[4200], name[64], why[4400];
    if (aoe_shim.mode == AOE_MODE_OFF || remembered_dir(dir, sizeof dir)) return;
    aoe_nvrtc_remembered_name(hash, size, name, sizeof name);
    if (aoe_fs_private_dir(dir, AOE_FS_CREATE | AOE_FS_TIGHTEN, why, sizeof why)) {
        aoe_shim_log_once(&g_write_said, AOE_LOG_WARN,
                          "NVRTC programs are not remembered for later runs: %s", why);
        return;
    }
    int dfd = aoe_spool_open(dir, why, sizeof why);
    if (dfd < 0) {
        aoe_shim_log_once(&g_write_said, AOE_LOG_WARN,
                          "NVRTC programs are not remembered for later runs: %s", why);
        return;
    }
    struct stat st;
    if (!fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW)) { /* remembered already */
        close(dfd);
        return;
    }
    if (count_files(dfd, AOE_NVRTC_REMEMBERED_MAX_FILES) >= AOE_NVRTC_REMEMBERED_MAX_FILES) {
        aoe_shim_log_once(&g_full_said, AOE_LOG_WARN,
                          "%s holds %d remembered NVRTC programs: no more are remembered "
                          "(delete it to start afresh)",
                          dir, AOE_NVRTC_REMEMBERED_MAX_FILES);
        close(dfd);
        return;
    }
    char *text = aoe_nvrtc_remembered_format(p, kind, hash, size, aoe_nvrtc_program_library(p), why,
                                             sizeof why);
    int rc = text ? write_once(dfd, name, text) : -1;
    if (!text)
        AOE_DEBUG("nvrtc program %s is not remembered: %s", p->name, why);
    else if (rc < 0)
        aoe_shim_log_once(&g_write_said, AOE_LOG_WARN, "cannot write %s/%s: %s", dir, name,
                          strerror(errno));
    else if (rc > 0)
        AOE_DEBUG("nvrtc program %s remembered as %s/%s", p->name, dir, name);
    free(text);
    close(dfd);
}

/* The file's bytes (the user's own regular file, not a link, no one else
 * may write; at most MAX_FILE): malloc'ed, or NULL and why. */
static char *read_checked(int fd, size_t *len, char *why, size_t wlen)
{
    struct stat st;
    if (fstat(fd, &st)) {
        snprintf(why, wlen, "%s", strerror(errno));
        return NULL;
    }
    if (aoe_spool_check(&st, why, wlen)) return NULL;
    if (st.st_nlink != 1 || (size_t)st.st_size > AOE_NVRTC_REMEMBERED_MAX_FILE) {
        snprintf(why, wlen, st.st_nlink != 1 ? "more than one link" : "too large");
        return NULL;
    }
    char *buf = malloc((size_t)st.st_size + 1);
    size_t got = 0;
    while (buf && got < (size_t)st.st_size) {
        ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    if (!buf || got != (size_t)st.st_size) {
        snprintf(why, wlen, buf ? "truncated while read" : "out of memory");
        free(buf);
        return NULL;
    }
    buf[got] = '\0';
    *len = got;
    return buf;
}

int aoe_nvrtc_recall(uint64_t hash, size_t size, aoe_nvrtc_remembered *out)
{
    char dir[4200], name[64], path[4300], why[256];
    if (remembered_dir(dir, sizeof dir)) return -1;
    aoe_nvrtc_remembered_name(hash, size, name, sizeof name);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    /* non-blocking: a FIFO planted there must not hang the load */
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (errno != ENOENT && errno != ENOTDIR)
            AOE_DEBUG("remembered NVRTC program %s ignored: %s", path,
                      errno == ELOOP ? "a symbolic link" : strerror(errno));
        return -1;
    }
    size_t len = 0;
    char *text = read_checked(fd, &len, why, sizeof why);
    close(fd);
    int rc = text ? aoe_nvrtc_remembered_parse(text, len, hash, size, out, why, sizeof why) : -1;
    free(text);
    if (rc)
        AOE_DEBUG("remembered NVRTC program %s ignored: %s", path, why);
    else
        AOE_DEBUG("NVRTC program %s recalled from %s", out->name, path);
    return rc;
}
