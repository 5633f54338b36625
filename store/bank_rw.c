/* Lookup, put-if-better and delete: one transaction each. */
#include "core/log.h"
#include "store/bank_internal.h"
#include "store/record_format.h"

#include <errno.h>
#include <math.h>
#include <string.h>

int aoe_bank_get(aoe_bank *b, const char *fp, const aoe_key *key, aoe_record *out)
{
    MDB_dbi dbi;
    MDB_txn *txn;
    uint8_t kb[16];
    if (!b || !key || !out) return -1;
    int rc = bank_fp_dbi(b, fp, false, &dbi);
    if (rc == MDB_NOTFOUND) return 0;
    if (rc) {
        AOE_ERROR("bank %s: cannot open fingerprint '%s': %s", b->path, fp ? fp : "(null)",
                  bank_strerror(rc));
        return -1;
    }
    if ((rc = bank_read_begin(b, &txn))) {
        AOE_ERROR("bank %s: cannot read: %s", b->path, bank_strerror(rc));
        return -1;
    }
    bank_key_bytes(key, kb);
    MDB_val k = {16, kb}, d;
    rc = mdb_get(txn, dbi, &k, &d);
    int ret = 0;
    if (!rc) {
        char err[160];
        ret = 1;
        if (aoe_record_decode(d.mv_data, d.mv_size, out, err, sizeof err)) {
            char hex[33];
            aoe_key_to_hex(key, hex);
            AOE_ERROR("bank %s: record %s: %s", b->path, hex, err);
            ret = -1;
        }
    } else if (rc != MDB_NOTFOUND) {
        AOE_ERROR("bank %s: lookup failed: %s", b->path, bank_strerror(rc));
        ret = -1;
    }
    bank_read_end(b, txn);
    return ret;
}

typedef struct {
    MDB_dbi dbi;
    const aoe_key *key;
    const uint8_t *enc;
    size_t enclen;
    bank_times t;
    double margin;
    aoe_put_result result;
} put_ctx;

/* Whether new times t beat the stored record old by more than margin: by
 * the time relative to the default where both have one (bank.h), else by
 * the tuned time. */
static bool beats(const aoe_record *old, bank_times t, double margin)
{
    if (old->default_us > 0 && old->tuned_us > 0 && t.default_us > 0 && t.tuned_us > 0)
        return old->tuned_us / old->default_us > t.tuned_us / t.default_us * (1.0 + margin);
    return old->tuned_us > t.tuned_us * (1.0 + margin);
}

int bank_put_in_txn(aoe_bank *b, MDB_txn *txn, MDB_dbi dbi, const aoe_key *key, const uint8_t *enc,
                    size_t enclen, bank_times t, double margin, aoe_put_result *result)
{
    uint8_t kb[16];
    bank_key_bytes(key, kb);
    MDB_val k = {16, kb}, d;
    int rc = mdb_get(txn, dbi, &k, &d);
    *result = AOE_PUT_ADDED;
    if (!rc) {
        aoe_record old;
        char err[160];
        if (aoe_record_decode(d.mv_data, d.mv_size, &old, err, sizeof err)) {
            char hex[33];
            aoe_key_to_hex(key, hex);
            unsigned format = aoe_record_format(d.mv_data, d.mv_size);
            if (format > AOE_RECORD_VERSION) {
                /* a newer aoe's (a bank shared between versions): this one
                 * cannot compare it, and must not destroy it */
                AOE_WARN("bank %s: record %s is a newer aoe's (format %u); kept", b->path, hex,
                         format);
                *result = AOE_PUT_RESERVED;
                return 0;
            }
            AOE_WARN("bank %s: replacing unreadable record %s (%s)", b->path, hex, err);
        } else if (!beats(&old, t, margin)) {
            *result = AOE_PUT_RESERVED;
            return 0;
        }
        *result = AOE_PUT_UPDATED;
    } else if (rc != MDB_NOTFOUND) {
        return rc;
    }
    d.mv_size = enclen;
    d.mv_data = (void *)enc;
    return mdb_put(txn, dbi, &k, &d, 0);
}

static int put_fn(aoe_bank *b, MDB_txn *txn, void *vctx)
{
    put_ctx *c = vctx;
    int rc =
        bank_put_in_txn(b, txn, c->dbi, c->key, c->enc, c->enclen, c->t, c->margin, &c->result);
    if (rc) return rc;
    if (c->result == AOE_PUT_RESERVED) return BANK_NOCHANGE;
    return bank_bump_generation(b, txn);
}

/* Records the bank refuses to store: they could never be compared or decoded. */
int bank_check_record(const aoe_record *rec, char *err, size_t errlen)
{
    return aoe_record_check(rec, err, errlen);
}

aoe_put_result aoe_bank_put_if_better(aoe_bank *b, const char *fp, const aoe_key *key,
                                      const aoe_record *rec, double margin)
{
    uint8_t enc[AOE_RECORD_ENCODED_MAX];
    char err[160];
    if (!b || !key || !rec) return AOE_PUT_ERROR;
    if (b->readonly) {
        AOE_ERROR("bank %s is read-only: result not saved", b->path);
        return AOE_PUT_ERROR;
    }
    if (bank_check_record(rec, err, sizeof err)) {
        AOE_ERROR("bank %s: refusing record: %s", b->path, err);
        return AOE_PUT_ERROR;
    }
    size_t n = aoe_record_encode(rec, enc, sizeof enc);
    put_ctx c = {.key = key, .enc = enc, .enclen = n, .t = bank_times_of(rec), .margin = margin};
    int rc = bank_fp_dbi(b, fp, true, &c.dbi);
    if (!rc) rc = bank_write(b, put_fn, &c);
    if (rc == BANK_NOCHANGE) return AOE_PUT_RESERVED;
    if (rc) {
        AOE_ERROR("bank %s: cannot store result: %s", b->path, bank_strerror(rc));
        return AOE_PUT_ERROR;
    }
    return c.result;
}

typedef struct {
    MDB_dbi dbi;
    const aoe_key *key;
    int found;
} del_ctx;

static int del_fn(aoe_bank *b, MDB_txn *txn, void *vctx)
{
    del_ctx *c = vctx;
    uint8_t kb[16];
    bank_key_bytes(c->key, kb);
    MDB_val k = {16, kb};
    int rc = mdb_del(txn, c->dbi, &k, NULL);
    if (rc == MDB_NOTFOUND) return BANK_NOCHANGE;
    if (rc) return rc;
    c->found = 1;
    return bank_bump_generation(b, txn);
}

int aoe_bank_delete(aoe_bank *b, const char *fp, const aoe_key *key)
{
    if (!b || !key) return -1;
    if (b->readonly) {
        AOE_ERROR("bank %s is read-only: nothing deleted", b->path);
        return -1;
    }
    del_ctx c = {.key = key};
    int rc = bank_fp_dbi(b, fp, false, &c.dbi);
    if (rc == MDB_NOTFOUND) return 0;
    if (!rc) rc = bank_write(b, del_fn, &c);
    if (rc == BANK_NOCHANGE) return 0;
    if (rc) {
        AOE_ERROR("bank %s: cannot delete: %s", b->path, bank_strerror(rc));
        return -1;
    }
    return c.found;
}

void bank_count_put(aoe_bank_counts *c, aoe_put_result r)
{
    if (r == AOE_PUT_ADDED) c->added++;
    if (r == AOE_PUT_UPDATED) c->updated++;
    if (r == AOE_PUT_RESERVED) c->reserved++;
}

int bank_finish_puts(aoe_bank *b, MDB_txn *txn, const aoe_bank_counts *c)
{
    if (!c->added && !c->updated) return BANK_NOCHANGE;
    return bank_bump_generation(b, txn);
}
