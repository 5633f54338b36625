/* Walking the bank: the list of fingerprints (from meta) and every record of
 * one or all of them. */
#include "core/log.h"
#include "store/bank_admin.h"
#include "store/bank_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The whole list or -1 (errno set): a partial one would make an export, a
 * verify or a merge's device check silently skip devices. */
int aoe_bank_fingerprints(aoe_bank *b, char **fps, int max)
{
    MDB_txn *txn;
    MDB_cursor *cur;
    int n = 0, rc;
    if (!b) return errno = EINVAL, -1;
    if ((rc = bank_read_begin(b, &txn))) return errno = rc > 0 ? rc : EIO, -1;
    if ((rc = mdb_cursor_open(txn, b->meta, &cur))) {
        bank_read_end(b, txn);
        return errno = rc > 0 ? rc : EIO, -1;
    }
    MDB_val k = {3, "fp:"}, d;
    rc = mdb_cursor_get(cur, &k, &d, MDB_SET_RANGE);
    while (!rc && k.mv_size > 3 && !memcmp(k.mv_data, "fp:", 3)) {
        if (n < max) {
            char *s = malloc(d.mv_size + 1);
            if (!s) {
                rc = ENOMEM;
                break;
            }
            memcpy(s, d.mv_data, d.mv_size);
            s[d.mv_size] = '\0';
            fps[n++] = s;
        }
        rc = mdb_cursor_get(cur, &k, &d, MDB_NEXT);
    }
    mdb_cursor_close(cur);
    bank_read_end(b, txn);
    if (rc && rc != MDB_NOTFOUND) {
        aoe_bank_free_fingerprints(fps, n);
        return errno = rc > 0 ? rc : EIO, -1;
    }
    return n;
}

void aoe_bank_free_fingerprints(char **fps, int n)
{
    for (int i = 0; i < n; i++) free(fps[i]);
}

int bank_walk_raw(aoe_bank *b, const char *fp, bank_raw_fn fn, void *ctx)
{
    char *fps[AOE_BANK_MAX_FPS];
    int n;
    if (fp) {
        fps[0] = strdup(fp);
        n = fps[0] ? 1 : -1;
    } else {
        n = aoe_bank_fingerprints(b, fps, AOE_BANK_MAX_FPS);
    }
    if (n < 0) return -1;
    int ret = 0, stop = 0;
    for (int i = 0; i < n && !stop && !ret; i++) {
        MDB_dbi dbi;
        MDB_txn *txn;
        MDB_cursor *cur;
        int rc = bank_fp_dbi(b, fps[i], false, &dbi);
        if (rc == MDB_NOTFOUND) continue;
        if (rc || bank_read_begin(b, &txn)) {
            ret = -1;
            break;
        }
        if (mdb_cursor_open(txn, dbi, &cur)) {
            bank_read_end(b, txn);
            ret = -1;
            break;
        }
        MDB_val k, d;
        rc = mdb_cursor_get(cur, &k, &d, MDB_FIRST);
        while (!rc) {
            if ((stop = fn(ctx, fps[i], k.mv_data, k.mv_size, d.mv_data, d.mv_size))) break;
            rc = mdb_cursor_get(cur, &k, &d, MDB_NEXT);
        }
        if (rc && rc != MDB_NOTFOUND) ret = -1;
        mdb_cursor_close(cur);
        bank_read_end(b, txn);
    }
    aoe_bank_free_fingerprints(fps, n);
    return ret;
}

typedef struct {
    aoe_bank *b;
    aoe_bank_visit_fn fn;
    void *ctx;
} visit_ctx;

static int visit_raw(void *vctx, const char *fp, const void *kdata, size_t klen, const void *data,
                     size_t len)
{
    visit_ctx *v = vctx;
    aoe_record rec;
    aoe_key key;
    char err[160];
    if (klen != 16) return 0;
    bank_key_from_bytes(kdata, &key);
    if (aoe_record_decode(data, len, &rec, err, sizeof err)) {
        char hex[33];
        aoe_key_to_hex(&key, hex);
        AOE_WARN("bank %s: skipping unreadable record %s: %s (run `aoe bank verify`)", v->b->path,
                 hex, err);
        return 0;
    }
    return v->fn(v->ctx, fp, &key, &rec);
}

int aoe_bank_foreach(aoe_bank *b, const char *fp, aoe_bank_visit_fn fn, void *ctx)
{
    if (!b || !fn) return -1;
    visit_ctx v = {b, fn, ctx};
    return bank_walk_raw(b, fp, visit_raw, &v);
}
