/* Opening a bank: checks the path, opens the LMDB environment, clears stale
 * reader slots, creates or checks the meta database. Every way a path can be
 * wrong gets one message that says what is wrong and where. */
#include "core/fs_safe.h"
#include "core/log.h"
#include "store/bank_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FAILF(...)                                                                                 \
    do {                                                                                           \
        if (errlen) snprintf(err, errlen, __VA_ARGS__);                                            \
        goto fail;                                                                                 \
    } while (0)
/* A read-only open of a bank that does not exist yet or is being created by
 * a tuner right now: normal on a first run (errno EAGAIN, callers stay quiet). */
#define PENDINGF(...)                                                                              \
    do {                                                                                           \
        pending = b->readonly;                                                                     \
        FAILF(__VA_ARGS__);                                                                        \
    } while (0)

/* A directory without data.mdb is only taken over when it holds nothing but
 * what AOE itself puts there (lock file, spool, dot files). */
static int foreign_entry(const char *path, char *name, size_t namelen)
{
    DIR *d = opendir(path);
    if (!d) return -1;
    struct dirent *e;
    int found = 0;
    while ((e = readdir(d))) {
        /* data.mdb too: another process may have created the bank since the
         * caller looked for it (seen as "holds other files ('data.mdb')"). */
        if (e->d_name[0] == '.' || !strcmp(e->d_name, "lock.mdb") ||
            !strcmp(e->d_name, "data.mdb") || !strcmp(e->d_name, "spool"))
            continue;
        snprintf(name, namelen, "%s", e->d_name);
        found = 1;
        break;
    }
    closedir(d);
    return found;
}

static int file_writable(const char *dir, const char *name)
{
    char p[PATH_MAX + 16];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return access(p, F_OK) || !access(p, W_OK); /* absent counts as writable */
}

/* LMDB maps lock.mdb and writes its reader table through the map: on a full
 * file system a page never backed by a block faults (SIGBUS) in whatever
 * process touches it first, the program under the shim included. Its blocks
 * are reserved here, where a full disk is an error message instead. */
#define LOCK_RESERVE_BYTES (64u << 10)
static int reserve_lock(const char *lock, char *err, size_t errlen)
{
    int fd = open(lock, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return 0; /* a read-only bank: LMDB writes nothing there either */
    struct stat st;
    int rc = fstat(fd, &st) ? errno : 0;
    /* An existing lock file keeps the size LMDB gave it; a new one gets
     * room for LMDB's reader table (it adopts a larger file as it is). */
    off_t want = !rc && st.st_size > 0 ? st.st_size : (off_t)LOCK_RESERVE_BYTES;
    if (!rc) rc = posix_fallocate(fd, 0, want);
    close(fd);
    if (rc == 0 || rc == EOPNOTSUPP || rc == EINVAL) return 0;
    snprintf(err, errlen, "cannot reserve space for %s: %s", lock, strerror(rc));
    return -1;
}

static int env_open(aoe_bank *b, unsigned flags, bool fresh)
{
    int rc = mdb_env_create(&b->env);
    if (rc) return rc;
    mdb_env_set_maxdbs(b->env, AOE_BANK_MAX_FPS + 2);
    mdb_env_set_maxreaders(b->env, 510);
    if (fresh) mdb_env_set_mapsize(b->env, AOE_BANK_INITIAL_MAP);
    rc = mdb_env_open(b->env, b->path, flags, 0600);
    if (rc) {
        mdb_env_close(b->env);
        b->env = NULL;
        return rc;
    }
    /* LMDB leaves the data file's descriptor inheritable (its lock file is
     * close-on-exec): a program under the shim would pass the bank to every
     * program it execs. */
    mdb_filehandle_t fd;
    if (!mdb_env_get_fd(b->env, &fd)) {
        int fl = fcntl(fd, F_GETFD);
        if (fl >= 0 && !(fl & FD_CLOEXEC)) fcntl(fd, F_SETFD, fl | FD_CLOEXEC);
    }
    return 0;
}

/* Pages the meta page says exist must be in the file: a truncated data.mdb
 * would otherwise fault (SIGBUS) on first touch. */
static int check_size(aoe_bank *b, char *err, size_t errlen)
{
    MDB_envinfo info;
    MDB_stat st;
    struct stat fst;
    char p[PATH_MAX + 16];
    snprintf(p, sizeof p, "%s/data.mdb", b->path);
    if (mdb_env_info(b->env, &info) || mdb_env_stat(b->env, &st) || stat(p, &fst)) return 0;
    uint64_t need = ((uint64_t)info.me_last_pgno + 1) * st.ms_psize;
    if ((uint64_t)fst.st_size < need) {
        snprintf(err, errlen,
                 "%s is truncated (%lld bytes, the bank's own header says %llu): corrupt bank, "
                 "restore it from a copy or an export",
                 p, (long long)fst.st_size, (unsigned long long)need);
        return -1;
    }
    return 0;
}

typedef struct {
    int64_t created;
} init_ctx;

int bank_meta_u64(MDB_txn *txn, MDB_dbi dbi, const char *name, uint64_t *v)
{
    MDB_val k = {strlen(name), (void *)name}, d;
    int rc = mdb_get(txn, dbi, &k, &d);
    if (rc) return rc;
    if (d.mv_size != 8) return MDB_CORRUPTED;
    memcpy(v, d.mv_data, 8);
    return 0;
}

static int meta_put_u64(MDB_txn *txn, MDB_dbi dbi, const char *name, uint64_t v)
{
    MDB_val k = {strlen(name), (void *)name}, d = {8, &v};
    return mdb_put(txn, dbi, &k, &d, 0);
}

/* Opens (or in read-write mode creates) the meta database and checks the format. */
static int open_meta(aoe_bank *b, char *err, size_t errlen, bool *pending)
{
    MDB_txn *txn;
    MDB_dbi main_dbi;
    int rc = mdb_txn_begin(b->env, NULL, b->readonly ? MDB_RDONLY : 0, &txn);
    if (rc) {
        snprintf(err, errlen, "%s: cannot start a transaction: %s", b->path, bank_strerror(rc));
        return -1;
    }
    rc = mdb_dbi_open(txn, "meta", 0, &b->meta);
    if (rc == MDB_NOTFOUND || rc == MDB_INCOMPATIBLE) {
        MDB_stat st = {0};
        if (!mdb_dbi_open(txn, NULL, 0, &main_dbi)) mdb_stat(txn, main_dbi, &st);
        if (rc == MDB_INCOMPATIBLE || st.ms_entries > 0 || b->readonly) {
            mdb_txn_abort(txn);
            /* empty and read-only: a tuner is creating the meta data now */
            *pending = b->readonly && rc == MDB_NOTFOUND && st.ms_entries == 0;
            if (*pending) /* an empty LMDB file: a bank being created, or whose creation failed */
                snprintf(err, errlen,
                         "%s is an unfinished knowledge bank (empty, its meta data not written "
                         "yet: a tuner may be creating it; the next aoe tune completes it)",
                         b->path);
            else
                snprintf(err, errlen,
                         "%s is not an AOE knowledge bank (an LMDB database without AOE's meta "
                         "data)",
                         b->path);
            return -1;
        }
        rc = mdb_dbi_open(txn, "meta", MDB_CREATE, &b->meta);
        uint64_t created = (uint64_t)time(NULL);
        if (!rc) rc = meta_put_u64(txn, b->meta, "format", AOE_BANK_FORMAT);
        if (!rc) rc = meta_put_u64(txn, b->meta, "created", created);
        if (!rc) rc = meta_put_u64(txn, b->meta, "generation", 0);
        if (!rc)
            rc = mdb_txn_commit(txn);
        else
            mdb_txn_abort(txn);
        if (rc) {
            snprintf(err, errlen, "%s: cannot create the bank: %s", b->path, bank_strerror(rc));
            return -1;
        }
        return 0;
    }
    if (rc) {
        mdb_txn_abort(txn);
        snprintf(err, errlen, "%s: cannot open the meta data: %s", b->path, bank_strerror(rc));
        return -1;
    }
    uint64_t format = 0;
    rc = bank_meta_u64(txn, b->meta, "format", &format);
    mdb_txn_commit(txn); /* keeps the meta handle open */
    if (rc) {
        snprintf(err, errlen, "%s is not an AOE knowledge bank (no format version: %s)", b->path,
                 bank_strerror(rc));
        return -1;
    }
    if (format == 0 || format > AOE_BANK_FORMAT) {
        snprintf(err, errlen,
                 "%s: bank format version %llu is not supported by this aoe (it reads 1..%d); "
                 "use a newer aoe",
                 b->path, (unsigned long long)format, AOE_BANK_FORMAT);
        return -1;
    }
    return 0;
}

static const char *open_error(int rc)
{
    switch (rc) {
    case MDB_INVALID:
        return "data.mdb is not an LMDB file (garbage or foreign data): not a bank";
    case MDB_VERSION_MISMATCH:
        return "data.mdb was written by an incompatible LMDB version";
    case MDB_CORRUPTED:
    case MDB_PANIC:
        return "data.mdb is corrupt";
    default:
        return bank_strerror(rc);
    }
}

aoe_bank *aoe_bank_open(const char *path, aoe_bank_mode mode, char *err, size_t errlen)
{
    char name[256], data[PATH_MAX + 16], scratch[8];
    struct stat st;
    bool pending = false, not_writable = false;
    if (!err || !errlen) err = scratch, errlen = sizeof scratch; /* messages are optional */
    aoe_bank *b = calloc(1, sizeof *b);
    if (!b) FAILF("out of memory");
    pthread_rwlock_init(&b->map_lock, NULL);
    pthread_mutex_init(&b->dbi_mu, NULL);
    pthread_mutex_init(&b->pool_mu, NULL);
    if (!path || !*path) FAILF("no bank path given");
    if (snprintf(b->path, sizeof b->path, "%s", path) >= (int)sizeof b->path)
        FAILF("bank path too long: %s", path);
    b->readonly = mode == AOE_BANK_READONLY;

    if (lstat(path, &st)) {
        if (errno != ENOENT) FAILF("cannot access bank %s: %s", path, strerror(errno));
        if (b->readonly) PENDINGF("no knowledge bank at %s (the directory does not exist)", path);
    } else if (S_ISREG(st.st_mode)) {
        FAILF("%s is a file, not a bank directory (TUNE_BANK_PATH must name a directory)", path);
    }
    /* The directory must be ours (or root's, used read-only): whoever
     * can write it can plant lock.mdb or data.mdb as a link to our files. */
    if (aoe_fs_private_dir(path, AOE_FS_ROOT_OK | (b->readonly ? 0 : AOE_FS_CREATE), err, errlen))
        goto fail;
    if (lstat(path, &st)) FAILF("cannot access bank %s: %s", path, strerror(errno));
    unsigned owner = (unsigned)st.st_uid;
    char lock[PATH_MAX + 16];
    snprintf(data, sizeof data, "%s/data.mdb", path);
    snprintf(lock, sizeof lock, "%s/lock.mdb", path);
    int have = aoe_fs_check_file(data, owner, err, errlen);
    if (have < 0 || aoe_fs_check_file(lock, owner, err, errlen) < 0) goto fail;
    bool have_data = have == 1;
    if (!have_data) {
        int f = foreign_entry(path, name, sizeof name);
        if (f < 0) FAILF("cannot read bank directory %s: %s", path, strerror(errno));
        if (f)
            FAILF("%s is not an AOE knowledge bank: it holds other files ('%s') and no data.mdb",
                  path, name);
        if (b->readonly) PENDINGF("no knowledge bank at %s (no data.mdb)", path);
    }
    if (!b->readonly && !(!access(path, W_OK) && file_writable(path, "data.mdb") &&
                          file_writable(path, "lock.mdb"))) {
        not_writable = true;
        if (!have_data) FAILF("cannot create a bank in %s: not writable", path);
        if (mode == AOE_BANK_WRITE) FAILF("bank %s is not writable (read-only)", path);
        AOE_WARN("bank %s is not writable: opened read-only, new results will not be saved", path);
        b->readonly = true;
    }
    /* LMDB opens both files following links: create them ourselves (O_EXCL,
     * O_NOFOLLOW, 0600) so it only ever finds our own regular files. */
    if (owner == (unsigned)geteuid()) {
        if (!have_data && aoe_fs_ensure_file(data, err, errlen)) goto fail;
        if (aoe_fs_ensure_file(lock, err, errlen) && errno != EACCES && errno != EROFS) goto fail;
        if (reserve_lock(lock, err, errlen)) goto fail;
    }

    unsigned flags = MDB_NOTLS | (b->readonly ? MDB_RDONLY : 0);
    int rc = env_open(b, flags, !have_data);
    if (rc == EACCES && b->readonly) {
        /* Cannot write the lock file: a shipped or foreign read-only bank.
         * Without a lock file LMDB cannot see writers, so this is only safe
         * because nobody can write here either. */
        rc = env_open(b, flags | MDB_NOLOCK, false);
        b->nolock = rc == 0;
    }
    if (rc && b->readonly && !stat(data, &st) && st.st_size == 0)
        PENDINGF("no knowledge bank at %s (data.mdb is being created)", path);
    if (rc == ENOENT && b->readonly) FAILF("no knowledge bank at %s", path);
    if (rc) FAILF("cannot open bank %s: %s", path, open_error(rc));
    if (check_size(b, err, errlen)) goto fail;
    if (!b->nolock) {
        int dead = 0;
        mdb_reader_check(b->env, &dead);
        if (dead) AOE_DEBUG("bank %s: cleared %d stale reader slot(s)", path, dead);
    }
    if (open_meta(b, err, errlen, &pending)) goto fail;
    return b;
fail:
    if (b) aoe_bank_close(b);
    errno = pending ? EAGAIN : not_writable ? EACCES : EIO;
    return NULL;
}

void aoe_bank_close(aoe_bank *b)
{
    if (!b) return;
    for (int i = 0; i < b->n_pool; i++) mdb_txn_abort(b->pool[i]);
    if (b->env) mdb_env_close(b->env);
    for (int i = 0; i < b->n_fp; i++) free(b->fps[i].fingerprint);
    pthread_rwlock_destroy(&b->map_lock);
    pthread_mutex_destroy(&b->dbi_mu);
    pthread_mutex_destroy(&b->pool_mu);
    free(b);
}

const char *aoe_bank_path(const aoe_bank *b)
{
    return b ? b->path : "";
}

bool aoe_bank_is_readonly(const aoe_bank *b)
{
    return b && b->readonly;
}

const char *bank_strerror(int rc)
{
    return mdb_strerror(rc);
}
