/* Transactions: pooled read transactions, the write-retry loop that grows the
 * map, fingerprint databases, the generation counter. */
#include "core/log.h"
#include "store/bank_internal.h"
#include "store/opkey.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Re-maps at the size another process grew the map to (MDB_MAP_RESIZED), or
 * doubles it (MDB_MAP_FULL). Exclusive: no transaction of this process may be
 * open while the map moves. */
static int remap(aoe_bank *b, bool grow)
{
    pthread_rwlock_wrlock(&b->map_lock);
    int rc;
    if (grow) {
        MDB_envinfo info;
        mdb_env_info(b->env, &info);
        size_t want = info.me_mapsize * 2;
        if (want > AOE_BANK_MAX_MAP) {
            pthread_rwlock_unlock(&b->map_lock);
            return MDB_MAP_FULL;
        }
        rc = mdb_env_set_mapsize(b->env, want);
        AOE_DEBUG("bank %s: map grown to %zu bytes", b->path, want);
    } else {
        rc = mdb_env_set_mapsize(b->env, 0);
    }
    pthread_rwlock_unlock(&b->map_lock);
    return rc;
}

int bank_read_begin(aoe_bank *b, MDB_txn **txn)
{
    for (int attempt = 0; attempt < 8; attempt++) {
        pthread_rwlock_rdlock(&b->map_lock);
        MDB_txn *t = NULL;
        pthread_mutex_lock(&b->pool_mu);
        if (b->n_pool) t = b->pool[--b->n_pool];
        pthread_mutex_unlock(&b->pool_mu);
        int rc = t ? mdb_txn_renew(t) : mdb_txn_begin(b->env, NULL, MDB_RDONLY, &t);
        if (!rc) {
            *txn = t;
            return 0;
        }
        if (t) mdb_txn_abort(t); /* a failed renewal leaves it ended, not freed */
        pthread_rwlock_unlock(&b->map_lock);
        if (rc != MDB_MAP_RESIZED) return rc;
        if ((rc = remap(b, false))) return rc;
    }
    return MDB_MAP_RESIZED;
}

void bank_read_end(aoe_bank *b, MDB_txn *txn)
{
    mdb_txn_reset(txn);
    pthread_mutex_lock(&b->pool_mu);
    if (b->n_pool < AOE_BANK_TXN_POOL) {
        b->pool[b->n_pool++] = txn;
        txn = NULL;
    }
    pthread_mutex_unlock(&b->pool_mu);
    if (txn) mdb_txn_abort(txn);
    pthread_rwlock_unlock(&b->map_lock);
}

int bank_write(aoe_bank *b, bank_write_fn fn, void *ctx)
{
    if (b->readonly) return EACCES;
    for (int attempt = 0; attempt < 64; attempt++) {
        MDB_txn *txn;
        pthread_rwlock_rdlock(&b->map_lock);
        int rc = mdb_txn_begin(b->env, NULL, 0, &txn);
        if (!rc) {
            rc = fn(b, txn, ctx);
            if (rc == BANK_NOCHANGE) {
                mdb_txn_abort(txn);
                pthread_rwlock_unlock(&b->map_lock);
                return BANK_NOCHANGE;
            }
            if (rc)
                mdb_txn_abort(txn);
            else
                rc = mdb_txn_commit(txn);
        }
        pthread_rwlock_unlock(&b->map_lock);
        if (rc == MDB_MAP_FULL || rc == MDB_MAP_RESIZED) {
            int r2 = remap(b, rc == MDB_MAP_FULL);
            if (r2) return r2;
            continue;
        }
        return rc;
    }
    return MDB_MAP_FULL;
}

int bank_bump_generation(aoe_bank *b, MDB_txn *txn)
{
    static const char name[] = "generation";
    MDB_val k = {sizeof name - 1, (void *)name}, d;
    uint64_t gen = 0;
    int rc = mdb_get(txn, b->meta, &k, &d);
    if (!rc && d.mv_size == 8) memcpy(&gen, d.mv_data, 8);
    gen++;
    d.mv_size = 8;
    d.mv_data = &gen;
    return mdb_put(txn, b->meta, &k, &d, 0);
}

uint64_t aoe_bank_generation(aoe_bank *b)
{
    static const char name[] = "generation";
    MDB_txn *txn;
    uint64_t gen = 0;
    if (!b || bank_read_begin(b, &txn)) return 0;
    MDB_val k = {sizeof name - 1, (void *)name}, d;
    if (!mdb_get(txn, b->meta, &k, &d) && d.mv_size == 8) memcpy(&gen, d.mv_data, 8);
    bank_read_end(b, txn);
    return gen;
}

void bank_fp_name(const char *fingerprint, char out[40])
{
    aoe_hash128 h = aoe_hash128_bytes(fingerprint, strlen(fingerprint), 0x414f4546500000ull);
    snprintf(out, 40, "fp:%016llx%016llx", (unsigned long long)h.hi, (unsigned long long)h.lo);
}

typedef struct {
    const char *fp;
    char name[40];
    MDB_dbi dbi;
} create_ctx;

/* Creates the database and records the full fingerprint under its name in meta. */
static int create_fp(aoe_bank *b, MDB_txn *txn, void *vctx)
{
    create_ctx *c = vctx;
    MDB_val k = {strlen(c->name), c->name}, d = {strlen(c->fp), (void *)c->fp};
    int rc = mdb_dbi_open(txn, c->name, MDB_CREATE, &c->dbi);
    if (!rc) rc = mdb_put(txn, b->meta, &k, &d, 0);
    if (!rc) rc = bank_bump_generation(b, txn);
    return rc;
}

/* Checks that the stored fingerprint under this name is ours (a hash collision
 * would otherwise mix two devices' records). */
static int same_fp(aoe_bank *b, MDB_txn *txn, const char *name, const char *fp)
{
    MDB_val k = {strlen(name), (void *)name}, d;
    if (mdb_get(txn, b->meta, &k, &d)) return 1; /* older writer died before meta: accept */
    return d.mv_size == strlen(fp) && !memcmp(d.mv_data, fp, d.mv_size);
}

int bank_fp_dbi(aoe_bank *b, const char *fp, bool create, MDB_dbi *dbi)
{
    if (!fp || !*fp || strlen(fp) >= AOE_FINGERPRINT_LEN) return EINVAL;
    pthread_mutex_lock(&b->dbi_mu);
    for (int i = 0; i < b->n_fp; i++) {
        if (!strcmp(b->fps[i].fingerprint, fp)) {
            *dbi = b->fps[i].dbi;
            pthread_mutex_unlock(&b->dbi_mu);
            return 0;
        }
    }
    int rc = 0;
    if (b->n_fp >= AOE_BANK_MAX_FPS) {
        rc = MDB_DBS_FULL;
        goto out;
    }
    create_ctx c = {.fp = fp};
    bank_fp_name(fp, c.name);
    /* A fresh read transaction, committed, so the handle stays open (a
     * pooled one would close it on reset). */
    MDB_txn *txn;
    for (int attempt = 0;; attempt++) {
        pthread_rwlock_rdlock(&b->map_lock);
        rc = mdb_txn_begin(b->env, NULL, MDB_RDONLY, &txn);
        pthread_rwlock_unlock(&b->map_lock);
        if (rc != MDB_MAP_RESIZED || attempt > 4) break;
        remap(b, false);
    }
    if (rc) goto out;
    pthread_rwlock_rdlock(&b->map_lock);
    rc = mdb_dbi_open(txn, c.name, 0, &c.dbi);
    int same = rc ? 1 : same_fp(b, txn, c.name, fp);
    mdb_txn_commit(txn);
    pthread_rwlock_unlock(&b->map_lock);
    if (!rc && !same) {
        AOE_ERROR("bank %s: fingerprint hash collision for '%s'", b->path, fp);
        rc = MDB_INCOMPATIBLE;
        goto out;
    }
    if (rc == MDB_NOTFOUND && create && !b->readonly) rc = bank_write(b, create_fp, &c);
    if (rc) goto out;
    char *copy = strdup(fp);
    if (!copy) {
        rc = ENOMEM;
        goto out;
    }
    b->fps[b->n_fp].fingerprint = copy;
    b->fps[b->n_fp++].dbi = c.dbi;
    *dbi = c.dbi;
out:
    pthread_mutex_unlock(&b->dbi_mu);
    return rc;
}

void bank_key_bytes(const aoe_key *k, uint8_t out[16])
{
    for (int i = 0; i < 8; i++) {
        out[i] = (uint8_t)(k->hi >> (56 - 8 * i));
        out[8 + i] = (uint8_t)(k->lo >> (56 - 8 * i));
    }
}

void bank_key_from_bytes(const uint8_t in[16], aoe_key *k)
{
    k->hi = k->lo = 0;
    for (int i = 0; i < 8; i++) {
        k->hi = k->hi << 8 | in[i];
        k->lo = k->lo << 8 | in[8 + i];
    }
}
