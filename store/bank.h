/* The knowledge bank: an LMDB environment with one named database per device
 * fingerprint and a meta database (format version, creation time, generation
 * counter bumped by every write). Safe for many processes at once. */
#ifndef AOE_BANK_H
#define AOE_BANK_H

#include "store/record.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct aoe_bank aoe_bank;

typedef enum {
    AOE_BANK_READWRITE = 0, /* create if missing (dir 0700, files 0600) */
    AOE_BANK_READONLY = 1,  /* never creates; fails if there is no bank */
    AOE_BANK_WRITE = 2      /* READWRITE, but an unwritable bank fails instead */
} aoe_bank_mode;

/* Opens the bank at path (a directory). On failure returns NULL with one clear
 * message in err (not a directory, not a bank, not writable, corrupt, not the
 * user's own, ...) and errno EAGAIN when, read-only, the bank does not exist
 * yet or is being created (normal on a first run: callers may stay quiet),
 * EACCES when the bank cannot be written (created) as the mode asks. */
aoe_bank *aoe_bank_open(const char *path, aoe_bank_mode mode, char *err, size_t errlen);
void aoe_bank_close(aoe_bank *bank);
const char *aoe_bank_path(const aoe_bank *bank);

/* 1 found, 0 not found, -1 error (message logged). Thread-safe. */
int aoe_bank_get(aoe_bank *bank, const char *fingerprint, const aoe_key *key, aoe_record *out);

typedef enum {
    AOE_PUT_ERROR = -1,
    AOE_PUT_ADDED = 0,   /* key was new */
    AOE_PUT_UPDATED = 1, /* replaced a worse entry */
    AOE_PUT_RESERVED = 2 /* existing entry kept: new one not better by the margin */
} aoe_put_result;

/* One transaction: writes rec unless an entry exists that it does not beat
 * by more than margin (relative: 0.02 = 2 %). Where both records have a
 * default time, it beats the entry when its speed-up over the default
 * (default_us / tuned_us, both measured in its own run) is larger: times
 * measured in two runs differ by the machine's state between them (on an
 * H200 a GEMM's default took 25.0 us in one run and 18.6 us in the next,
 * docs/cuda.md), and comparing them would keep the luckier run, not the
 * better policy. Otherwise it beats it when its tuned_us is smaller. */
aoe_put_result aoe_bank_put_if_better(aoe_bank *bank, const char *fingerprint, const aoe_key *key,
                                      const aoe_record *rec, double margin);

/* Generation counter (bumped by every write transaction); 0 if unreadable.
 * Cheap: one read transaction, no allocation. */
uint64_t aoe_bank_generation(aoe_bank *bank);

/* Calls fn for every record (fingerprint NULL: of every fingerprint). fn
 * returning non-zero stops the walk. Returns 0, or -1 on error. */
typedef int (*aoe_bank_visit_fn)(void *ctx, const char *fingerprint, const aoe_key *key,
                                 const aoe_record *rec);
int aoe_bank_foreach(aoe_bank *bank, const char *fingerprint, aoe_bank_visit_fn fn, void *ctx);

/* Returns 1 deleted, 0 not found, -1 error. */
int aoe_bank_delete(aoe_bank *bank, const char *fingerprint, const aoe_key *key);

#endif
