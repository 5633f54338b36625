/* Statistics and verification. verify reads every byte a reader could: the
 * meta data, the fingerprint table, every record (decoded). */
#include "store/bank_admin.h"
#include "store/bank_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int count_reader(const char *msg, void *ctx)
{
    /* one header line, then one line per slot in use */
    if (strstr(msg, "pid") || strstr(msg, "no active")) return 0;
    (*(unsigned *)ctx)++;
    return 0;
}

typedef struct {
    uint64_t n;
} count_ctx;

static int count_raw(void *ctx, const char *fp, const void *k, size_t kl, const void *d, size_t l)
{
    (void)fp, (void)k, (void)kl, (void)d, (void)l;
    ((count_ctx *)ctx)->n++;
    return 0;
}

int aoe_bank_count_by_fingerprint(aoe_bank *b, aoe_bank_fp_count_fn fn, void *ctx)
{
    char *fps[AOE_BANK_MAX_FPS];
    int n = aoe_bank_fingerprints(b, fps, AOE_BANK_MAX_FPS);
    if (n < 0) return -1;
    int ret = 0;
    for (int i = 0; i < n; i++) {
        count_ctx c = {0};
        if (bank_walk_raw(b, fps[i], count_raw, &c)) ret = -1;
        fn(ctx, fps[i], c.n);
    }
    aoe_bank_free_fingerprints(fps, n);
    return ret;
}

int aoe_bank_get_stats(aoe_bank *b, aoe_bank_stats *st, char *err, size_t errlen)
{
    memset(st, 0, sizeof *st);
    MDB_envinfo info;
    MDB_stat ms;
    MDB_txn *txn;
    char p[PATH_MAX + 16];
    struct stat fst;
    mdb_env_info(b->env, &info);
    mdb_env_stat(b->env, &ms);
    snprintf(p, sizeof p, "%s/data.mdb", b->path);
    if (!stat(p, &fst)) st->file_bytes = (uint64_t)fst.st_size;
    st->map_bytes = info.me_mapsize;
    st->page_size = ms.ms_psize;
    st->used_bytes = ((uint64_t)info.me_last_pgno + 1) * ms.ms_psize;
    st->readers_max = info.me_maxreaders;
    if (!b->nolock) mdb_reader_list(b->env, count_reader, &st->readers_used);
    int rc = bank_read_begin(b, &txn);
    if (rc) {
        snprintf(err, errlen, "%s: cannot read: %s", b->path, bank_strerror(rc));
        return -1;
    }
    uint64_t v = 0;
    if (!bank_meta_u64(txn, b->meta, "format", &v)) st->format = (int)v;
    if (!bank_meta_u64(txn, b->meta, "created", &v)) st->created = (int64_t)v;
    bank_meta_u64(txn, b->meta, "generation", &st->generation);
    bank_read_end(b, txn);
    char *fps[AOE_BANK_MAX_FPS];
    int n = aoe_bank_fingerprints(b, fps, AOE_BANK_MAX_FPS);
    if (n < 0) {
        snprintf(err, errlen, "%s: cannot list fingerprints", b->path);
        return -1;
    }
    st->fingerprints = n;
    int ret = 0;
    for (int i = 0; i < n && !ret; i++) {
        count_ctx c = {0};
        if (bank_walk_raw(b, fps[i], count_raw, &c)) {
            snprintf(err, errlen, "%s: cannot count the records of device '%s'", b->path, fps[i]);
            ret = -1;
        }
        st->records += c.n;
    }
    aoe_bank_free_fingerprints(fps, n);
    return ret;
}

typedef struct {
    aoe_bank_problem_fn fn;
    void *ctx;
    long problems;
    uint64_t records;
} verify_ctx;

static void problem(verify_ctx *v, const char *fp, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#include <stdarg.h>
static void problem(verify_ctx *v, const char *fp, const char *key, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    v->problems++;
    if (v->fn) v->fn(v->ctx, fp, key, msg);
}

static int verify_raw(void *ctx, const char *fp, const void *k, size_t kl, const void *d, size_t l)
{
    verify_ctx *v = ctx;
    aoe_record rec;
    char err[200], hex[33] = "?";
    v->records++;
    if (kl != 16) {
        problem(v, fp, NULL, "key of %zu bytes (expected 16)", kl);
        return 0;
    }
    aoe_key key;
    bank_key_from_bytes(k, &key);
    aoe_key_to_hex(&key, hex);
    if (aoe_record_decode(d, l, &rec, err, sizeof err)) problem(v, fp, hex, "%s", err);
    return 0;
}

/* The table of named databases (main db) against meta's fingerprint entries. */
static int verify_structure(aoe_bank *b, verify_ctx *v)
{
    MDB_txn *txn;
    MDB_cursor *cur;
    MDB_dbi main_dbi;
    if (bank_read_begin(b, &txn)) return -1;
    uint64_t x;
    static const char *const keys[] = {"format", "created", "generation"};
    for (int i = 0; i < 3; i++)
        if (bank_meta_u64(txn, b->meta, keys[i], &x))
            problem(v, NULL, NULL, "meta: no valid %s", keys[i]);
    int rc = mdb_dbi_open(txn, NULL, 0, &main_dbi);
    if (!rc) rc = mdb_cursor_open(txn, main_dbi, &cur);
    if (rc) {
        bank_read_end(b, txn);
        return -1;
    }
    MDB_val k, d;
    rc = mdb_cursor_get(cur, &k, &d, MDB_FIRST);
    for (; !rc; rc = mdb_cursor_get(cur, &k, &d, MDB_NEXT)) {
        char name[64];
        if (k.mv_size >= sizeof name) {
            problem(v, NULL, NULL, "unknown database (name of %zu bytes)", k.mv_size);
            continue;
        }
        memcpy(name, k.mv_data, k.mv_size);
        name[k.mv_size] = '\0';
        if (!strcmp(name, "meta")) continue;
        if (strncmp(name, "fp:", 3)) {
            problem(v, NULL, NULL, "unknown database '%s'", name);
            continue;
        }
        MDB_val mk = {k.mv_size, k.mv_data}, md;
        if (mdb_get(txn, b->meta, &mk, &md)) {
            problem(v, NULL, NULL, "database %s has no fingerprint in meta", name);
            continue;
        }
        char fp[AOE_FINGERPRINT_LEN], expect[40];
        if (md.mv_size >= sizeof fp) {
            problem(v, NULL, NULL, "database %s: fingerprint of %zu bytes", name, md.mv_size);
            continue;
        }
        memcpy(fp, md.mv_data, md.mv_size);
        fp[md.mv_size] = '\0';
        bank_fp_name(fp, expect);
        if (strcmp(expect, name))
            problem(v, fp, NULL, "database %s does not match its fingerprint (expected %s)", name,
                    expect);
    }
    mdb_cursor_close(cur);
    bank_read_end(b, txn);
    return 0;
}

long aoe_bank_verify(aoe_bank *b, aoe_bank_problem_fn fn, void *ctx, uint64_t *records)
{
    verify_ctx v = {fn, ctx, 0, 0};
    if (!b || verify_structure(b, &v)) return -1;
    if (bank_walk_raw(b, NULL, verify_raw, &v)) return -1;
    if (records) *records = v.records;
    return v.problems;
}
