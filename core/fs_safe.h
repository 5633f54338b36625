/* File-system operations that never follow a planted link and never trust a
 * directory another user can change. Shared by the shim, the bank and the
 * tuner; no runtime calls, no allocation, no logging (callers report err). */
#ifndef AOE_FS_SAFE_H
#define AOE_FS_SAFE_H

#include <stddef.h>

enum {
    AOE_FS_CREATE = 1,  /* create dir and missing parents, mode 0700 */
    AOE_FS_TIGHTEN = 2, /* chmod an existing own dir to 0700 (AOE's own dirs only) */
    AOE_FS_ROOT_OK = 4  /* a dir owned by root is accepted too (read-only use) */
};

/* Checks dir as the user's private directory: a real directory (not a symbolic
 * link), owned by the effective user, not writable by group or others; every
 * existing parent owned by root or the user and, when others may write it,
 * sticky (like /tmp). Returns 0, or -1 with errno set and one message in err
 * naming the path and why (errno ENOENT: dir does not exist, no CREATE). */
int aoe_fs_private_dir(const char *dir, int flags, char *err, size_t errlen);

/* Checks that path is absent (returns 0) or a regular file owned by uid with
 * one link, looked at without following a link (returns 1). -1 with err. */
int aoe_fs_check_file(const char *path, unsigned uid, char *err, size_t errlen);

/* Creates path if absent with O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600, so that a
 * later open by a library that follows links finds our own regular file.
 * Returns 0 (created or already our own regular file), -1 with err. */
int aoe_fs_ensure_file(const char *path, char *err, size_t errlen);

/* Opens path for appending (O_APPEND|O_CREAT|O_NOFOLLOW|O_CLOEXEC, 0600):
 * only a regular file owned by the user with one link; a wider mode is
 * tightened to 0600. Returns the descriptor, or -1 with err. */
int aoe_fs_open_append(const char *path, char *err, size_t errlen);

/* Writes all len bytes of data to fd (a short write continued, EINTR
 * retried): 0, or -1 (errno). */
int aoe_fs_write_all(int fd, const void *data, size_t len);
/* Replaces dir/name with data: a temporary file created with O_EXCL|O_NOFOLLOW
 * (mode 0600) in dir, renamed over name (rename replaces a link, never writes
 * through one). Returns 0 or -1 (errno). */
int aoe_fs_write_file(const char *dir, const char *name, const void *data, size_t len);
/* The same inside the directory open as dfd (already checked by the caller). */
int aoe_fs_write_file_at(int dfd, const char *name, const void *data, size_t len);

#endif
