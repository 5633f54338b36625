/* Bank administration beyond the shim's needs: read-only state, fingerprints,
 * statistics, verification, JSON export/import and merging. Used by
 * `aoe bank`, tests and tools. (Additions to the store contract.) */
#ifndef AOE_BANK_ADMIN_H
#define AOE_BANK_ADMIN_H

#include "store/bank.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* True when the bank was opened (or fell back to) read-only. */
bool aoe_bank_is_readonly(const aoe_bank *bank);

/* Fingerprints present in the bank, in database order. Returns the count (up
 * to max written to fps, each strdup'ed: free with aoe_bank_free_fingerprints)
 * or -1. */
int aoe_bank_fingerprints(aoe_bank *bank, char **fps, int max);
void aoe_bank_free_fingerprints(char **fps, int n);

typedef struct {
    int format;          /* bank format version */
    int64_t created;     /* unix seconds */
    uint64_t generation; /* write transactions so far */
    uint64_t records;    /* in all fingerprints */
    int fingerprints;    /* named databases */
    uint64_t file_bytes; /* data.mdb on disk */
    uint64_t map_bytes;  /* current map size */
    uint64_t used_bytes; /* pages in use */
    unsigned page_size;
    unsigned readers_used; /* reader slots in use (all processes) */
    unsigned readers_max;
} aoe_bank_stats;

int aoe_bank_get_stats(aoe_bank *bank, aoe_bank_stats *st, char *err, size_t errlen);
/* Records per fingerprint, for stats tables: calls fn once per fingerprint. */
typedef void (*aoe_bank_fp_count_fn)(void *ctx, const char *fingerprint, uint64_t records);
int aoe_bank_count_by_fingerprint(aoe_bank *bank, aoe_bank_fp_count_fn fn, void *ctx);

/* Decodes every record and checks the bank's own structure. Calls problem()
 * once per problem found (may be NULL). Returns the number of problems
 * (0 = clean), or -1 when the bank could not be read at all. *records gets
 * the number of records checked. */
typedef void (*aoe_bank_problem_fn)(void *ctx, const char *fingerprint, const char *key_hex,
                                    const char *message);
long aoe_bank_verify(aoe_bank *bank, aoe_bank_problem_fn problem, void *ctx, uint64_t *records);

/* Export: a JSON document (format in the README, section "bank"). fingerprint
 * NULL: all. out is flushed: returns the number of records written, or -1
 * with err (a failed write: its reason, e.g. a full disk). */
long aoe_bank_export_json(aoe_bank *bank, const char *fingerprint, FILE *out, char *err,
                          size_t errlen);

/* One record as the JSON object export writes (malloc'ed text, free()). */
char *aoe_bank_record_json_text(const char *fingerprint, const aoe_key *key, const aoe_record *rec);

/* One imported entry, validated. */
typedef struct {
    char fingerprint[AOE_FINGERPRINT_LEN];
    aoe_key key;
    aoe_record rec;
} aoe_bank_entry;

/* Parses an export document without touching a bank: good entries go to
 * on_entry, bad ones to on_reject with their index and reason. Returns 0, or -1
 * with err when the document itself is unusable (not JSON, wrong format). */
typedef int (*aoe_bank_entry_fn)(void *ctx, size_t index, const aoe_bank_entry *e);
typedef void (*aoe_bank_reject_fn)(void *ctx, size_t index, const char *reason);
int aoe_bank_parse_json(const char *text, size_t len, aoe_bank_entry_fn on_entry,
                        aoe_bank_reject_fn on_reject, void *ctx, char *err, size_t errlen);

typedef struct {
    size_t added, updated, reserved, rejected;
} aoe_bank_counts;

/* Import: every good entry is put-if-better (margin as in put_if_better) in one
 * transaction; rejects are reported through on_reject (may be NULL) and
 * counted. Returns 0 (even with rejects), or -1 with err (nothing written). */
int aoe_bank_import_json(aoe_bank *bank, const char *text, size_t len, double margin,
                         aoe_bank_reject_fn on_reject, void *ctx, aoe_bank_counts *counts,
                         char *err, size_t errlen);

/* Merge src into dst, keeping the better entry per key (margin 0: strictly
 * faster wins). Only fingerprints dst already holds are merged (into an empty
 * dst, everything); a src fingerprint dst does not hold refuses the whole merge
 * with a message naming both, unless fingerprint selects one that both share.
 * One write transaction. Returns 0 or -1 with err. */
int aoe_bank_merge(aoe_bank *dst, aoe_bank *src, const char *fingerprint, aoe_bank_counts *counts,
                   char *err, size_t errlen);

#endif
