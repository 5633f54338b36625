/* Private to store/bank_*.c: the bank handle and its transaction helpers. */
#ifndef AOE_BANK_INTERNAL_H
#define AOE_BANK_INTERNAL_H

#include "store/bank.h"
#include "store/bank_admin.h"

#include <limits.h>
#include <lmdb.h>
#include <pthread.h>

#define AOE_BANK_FORMAT 1
#define AOE_BANK_MAX_FPS 250            /* named databases (device fingerprints) per bank */
#define AOE_BANK_INITIAL_MAP (1u << 20) /* grows by doubling when full */
#define AOE_BANK_MAX_MAP (1ull << 40)
#define AOE_BANK_TXN_POOL 8

typedef struct {
    char *fingerprint;
    MDB_dbi dbi;
} bank_fp;

struct aoe_bank {
    MDB_env *env;
    MDB_dbi meta;
    bool readonly, nolock;
    /* Held shared by every transaction of this process, exclusively while the
     * map is re-mapped (growth, or another process grew it). */
    pthread_rwlock_t map_lock;
    /* Serialises mdb_dbi_open (LMDB requires it) and guards the fp cache. */
    pthread_mutex_t dbi_mu;
    int n_fp;
    bank_fp fps[AOE_BANK_MAX_FPS];
    /* Reset read transactions kept for renewal: renewing skips the reader
     * table scan, which is what makes a warm lookup sub-microsecond. */
    pthread_mutex_t pool_mu;
    int n_pool;
    MDB_txn *pool[AOE_BANK_TXN_POOL];
    char path[PATH_MAX];
};

/* Lock order: dbi_mu, then map_lock, then pool_mu. Never take dbi_mu while a
 * transaction is open. */

/* Read transaction on the latest snapshot (map_lock held until read_end). */
int bank_read_begin(aoe_bank *b, MDB_txn **txn);
void bank_read_end(aoe_bank *b, MDB_txn *txn);

/* Runs fn inside one write transaction; retries after growing the map on
 * MDB_MAP_FULL and after re-mapping on MDB_MAP_RESIZED. fn returns 0 to
 * commit, BANK_NOCHANGE to abort quietly (nothing written), or an error. */
#define BANK_NOCHANGE (-30000)
typedef int (*bank_write_fn)(aoe_bank *b, MDB_txn *txn, void *ctx);
int bank_write(aoe_bank *b, bank_write_fn fn, void *ctx);

/* Bumps the generation counter inside a write transaction. */
int bank_bump_generation(aoe_bank *b, MDB_txn *txn);

/* The database of a fingerprint: 0, MDB_NOTFOUND (not in the bank and create
 * is false), or an LMDB error. Cached per process. */
int bank_fp_dbi(aoe_bank *b, const char *fingerprint, bool create, MDB_dbi *dbi);
/* "fp:<32 hex>": the database name of a fingerprint (also its key in meta). */
void bank_fp_name(const char *fingerprint, char out[40]);

/* Key bytes as stored: hi then lo, big-endian, so LMDB order is hex order. */
void bank_key_bytes(const aoe_key *k, uint8_t out[16]);
void bank_key_from_bytes(const uint8_t in[16], aoe_key *k);

/* What a put compares: the new record's tuned and default times. */
typedef struct {
    double tuned_us, default_us;
} bank_times;

static inline bank_times bank_times_of(const aoe_record *r)
{
    return (bank_times){r->tuned_us, r->default_us};
}

/* The put-if-better decision inside a write transaction (shared by put,
 * import and merge; aoe_bank_put_if_better says what "better" is): sets
 * *result, writes unless RESERVED. 0 or LMDB error. */
int bank_put_in_txn(aoe_bank *b, MDB_txn *txn, MDB_dbi dbi, const aoe_key *key, const uint8_t *enc,
                    size_t enclen, bank_times t, double margin, aoe_put_result *result);
/* Refuses records that could never be compared or decoded (0 / -1 + err). */
int bank_check_record(const aoe_record *rec, char *err, size_t errlen);

/* Every stored key/value of one fingerprint (NULL: all), undecoded, each
 * fingerprint in one read transaction. fn returning non-zero stops. 0 / -1. */
typedef int (*bank_raw_fn)(void *ctx, const char *fp, const void *key, size_t keylen,
                           const void *data, size_t len);
int bank_walk_raw(aoe_bank *b, const char *fp, bank_raw_fn fn, void *ctx);

/* LMDB error as text for messages. */
const char *bank_strerror(int rc);

/* Counts one put of a batch (import, merge) ... */
void bank_count_put(aoe_bank_counts *c, aoe_put_result r);
/* ... and ends the batch: BANK_NOCHANGE when nothing was written, else the
 * generation is bumped in the same transaction. */
int bank_finish_puts(aoe_bank *b, MDB_txn *txn, const aoe_bank_counts *c);

/* Reads an 8-byte counter of the meta database (MDB_CORRUPTED if mis-sized). */
int bank_meta_u64(MDB_txn *txn, MDB_dbi dbi, const char *name, uint64_t *v);

#endif
