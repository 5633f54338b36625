/* Merging bank B into bank A: per key the better entry wins (the larger
 * speed-up over the default, aoe_bank_put_if_better), and
 * only for devices A already holds, since a policy tuned on one device says
 * nothing about another. */
#include "store/bank_admin.h"
#include "store/bank_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
    int fp; /* index into fps */
    aoe_key key;
    bank_times t;
    size_t len;
    uint8_t *data;
} merge_item;

typedef struct {
    char **fps;
    int n_fp;
    MDB_dbi dbis[AOE_BANK_MAX_FPS];
    merge_item *items;
    size_t n, cap;
    size_t rejected;
    int oom;
    aoe_bank_counts counts;
} merge_ctx;

static int collect(void *vctx, const char *fp, const void *k, size_t kl, const void *d, size_t l)
{
    merge_ctx *c = vctx;
    aoe_record rec;
    char err[160];
    if (kl != 16 || aoe_record_decode(d, l, &rec, err, sizeof err)) {
        c->rejected++; /* unreadable in the source: never copied */
        return 0;
    }
    int f = 0;
    while (f < c->n_fp && strcmp(c->fps[f], fp)) f++;
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 64;
        merge_item *p = realloc(c->items, cap * sizeof *p);
        if (!p) return c->oom = 1;
        c->items = p, c->cap = cap;
    }
    merge_item *it = &c->items[c->n];
    if (!(it->data = malloc(l))) return c->oom = 1;
    memcpy(it->data, d, l);
    it->len = l;
    it->fp = f;
    it->t = bank_times_of(&rec);
    bank_key_from_bytes(k, &it->key);
    c->n++;
    return 0;
}

static int merge_write(aoe_bank *b, MDB_txn *txn, void *vctx)
{
    merge_ctx *c = vctx;
    memset(&c->counts, 0, sizeof c->counts);
    for (size_t i = 0; i < c->n; i++) {
        merge_item *it = &c->items[i];
        aoe_put_result r;
        int rc =
            bank_put_in_txn(b, txn, c->dbis[it->fp], &it->key, it->data, it->len, it->t, 0.0, &r);
        if (rc) return rc;
        bank_count_put(&c->counts, r);
    }
    return bank_finish_puts(b, txn, &c->counts);
}

static int same_bank(aoe_bank *a, aoe_bank *b)
{
    char pa[PATH_MAX + 16], pb[PATH_MAX + 16];
    struct stat sa, sb;
    snprintf(pa, sizeof pa, "%s/data.mdb", a->path);
    snprintf(pb, sizeof pb, "%s/data.mdb", b->path);
    return !stat(pa, &sa) && !stat(pb, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static int has(char **fps, int n, const char *fp)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(fps[i], fp)) return 1;
    return 0;
}

int aoe_bank_merge(aoe_bank *dst, aoe_bank *src, const char *fingerprint, aoe_bank_counts *counts,
                   char *err, size_t errlen)
{
    char *dfps[AOE_BANK_MAX_FPS];
    char *sfps[AOE_BANK_MAX_FPS];
    merge_ctx c = {0};
    int ret = -1, nd = -1, ns = -1;
    if (counts) memset(counts, 0, sizeof *counts);
    if (dst->readonly) {
        snprintf(err, errlen, "bank %s is read-only: nothing merged", dst->path);
        return -1;
    }
    if (same_bank(dst, src)) {
        snprintf(err, errlen, "%s and %s are the same bank", dst->path, src->path);
        return -1;
    }
    nd = aoe_bank_fingerprints(dst, dfps, AOE_BANK_MAX_FPS);
    ns = aoe_bank_fingerprints(src, sfps, AOE_BANK_MAX_FPS);
    if (nd < 0 || ns < 0) {
        snprintf(err, errlen, "cannot list the fingerprints of %s", nd < 0 ? dst->path : src->path);
        goto out;
    }
    if (fingerprint && !has(sfps, ns, fingerprint)) {
        snprintf(err, errlen, "%s holds no records for device '%s'", src->path, fingerprint);
        goto out;
    }
    for (int i = 0; i < ns; i++) {
        if (fingerprint && strcmp(sfps[i], fingerprint)) continue;
        if (nd == 0 || has(dfps, nd, sfps[i])) continue;
        snprintf(err, errlen,
                 "refusing to merge: %s holds device '%s' but %s holds device '%s'%s; banks of "
                 "different devices are never merged (--fingerprint merges one they share)",
                 src->path, sfps[i], dst->path, dfps[0], nd > 1 ? " (and others)" : "");
        goto out;
    }
    c.fps = sfps, c.n_fp = ns;
    for (int i = 0; i < ns; i++) {
        if (fingerprint && strcmp(sfps[i], fingerprint)) continue;
        if (bank_walk_raw(src, sfps[i], collect, &c) || c.oom) {
            snprintf(err, errlen, "cannot read %s", src->path);
            goto out;
        }
        int rc = bank_fp_dbi(dst, sfps[i], true, &c.dbis[i]);
        if (rc) {
            snprintf(err, errlen, "%s: device '%s': %s", dst->path, sfps[i], bank_strerror(rc));
            goto out;
        }
    }
    int rc = c.n ? bank_write(dst, merge_write, &c) : 0;
    if (rc && rc != BANK_NOCHANGE) {
        snprintf(err, errlen, "merge into %s failed, nothing written: %s", dst->path,
                 bank_strerror(rc));
        goto out;
    }
    ret = 0;
    if (counts) *counts = c.counts;
out:
    if (counts) counts->rejected = c.rejected;
    for (size_t i = 0; i < c.n; i++) free(c.items[i].data);
    free(c.items);
    if (nd > 0) aoe_bank_free_fingerprints(dfps, nd);
    if (ns > 0) aoe_bank_free_fingerprints(sfps, ns);
    return ret;
}
