/* A knowledge-bank record: the tuned policy of one operator on one device.
 * In memory it is a fixed-size struct (no allocation on lookup); on disk it is
 * encoded by record.c in a versioned, self-describing form. */
#ifndef AOE_RECORD_H
#define AOE_RECORD_H

#include <stdint.h>
#include <stddef.h>

#define AOE_MAX_PARAMS 16
#define AOE_NAME_LEN 48
#define AOE_KERNEL_NAME_LEN 128
#define AOE_SUMMARY_LEN 256
#define AOE_FINGERPRINT_LEN 256

/* Operator key: 128-bit hash of fingerprint, program identity and shape. */
typedef struct {
    uint64_t hi, lo;
} aoe_key;

/* What a policy parameter is applied as. Values are stored on disk: never
 * renumber. WORK_SIZE and DEFINE are what format-1 records mean by their
 * define flag 0 and 1. */
typedef enum {
    AOE_PARAM_WORK_SIZE = 0,    /* decides the work sizes only (kept for the reader) */
    AOE_PARAM_DEFINE = 1,       /* passed to the compiler as -DNAME=value */
    AOE_PARAM_LIBRARY_ATTR = 2, /* a library's algorithm attribute (cuBLASLt), set by name */
    AOE_PARAM_KIND_COUNT
} aoe_param_kind;

typedef struct {
    char name[AOE_NAME_LEN];
    int64_t value;
    union {
        uint8_t kind; /* aoe_param_kind */
        /* The former name of kind (0/1), for code not yet moved to kind;
         * note it is also non-zero for a library attribute. */
        uint8_t is_define;
    };
} aoe_param;

/* "work_size", "define", "library_attribute"; "?" outside the enum. */
const char *aoe_param_kind_name(unsigned kind);
/* 0 and *kind for one of those names; -1 otherwise. */
int aoe_param_kind_parse(const char *name, uint8_t *kind);

/* A policy: named parameter values and the work sizes they imply. */
typedef struct {
    uint32_t n_params;
    aoe_param params[AOE_MAX_PARAMS];
    uint32_t work_dim; /* 1..3 */
    uint64_t global[3];
    uint64_t local[3]; /* all zero: NULL local size */
} aoe_policy;

typedef struct {
    char runtime[16]; /* "opencl", "cuda" */
    char kernel_name[AOE_KERNEL_NAME_LEN];
    aoe_policy policy;
    double default_us, default_spread_us; /* the program's own policy */
    double tuned_us, tuned_spread_us;     /* this policy */
    uint32_t evaluations;
    double tuning_seconds;
    char strategy[32];
    char tuner_version[16];
    int64_t timestamp;             /* unix seconds */
    char summary[AOE_SUMMARY_LEN]; /* human text: source and shape */
} aoe_record;

/* Bounds every stored record obeys (aoe_record_check). */
#define AOE_PARAM_VALUE_MIN (-(1LL << 53)) /* parameter values: exact in JSON */
#define AOE_PARAM_VALUE_MAX (1LL << 53)
#define AOE_GLOBAL_MAX (1ULL << 32) /* per dimension */
#define AOE_LOCAL_PRODUCT_MAX 8192  /* work-group size (the largest device maximum known) */

/* Library attribute values fit the 32-bit attributes libraries take. */
#define AOE_LIBRARY_ATTR_MIN (-(1LL << 31))
#define AOE_LIBRARY_ATTR_MAX ((1LL << 32) - 1)

/* 0 when rec is a record the bank may hold and the shim may apply: runtime,
 * kernel name and texts printable; parameter names C identifiers, unique, at
 * most AOE_MAX_PARAMS, values within +-2^53, kinds known, library attribute
 * values within AOE_LIBRARY_ATTR_MIN..MAX; work_dim 1..3; global all 0 (the
 * launch's own) or 1..AOE_GLOBAL_MAX; local all 0 or at most global with a
 * product <= AOE_LOCAL_PRODUCT_MAX; sizes beyond work_dim 0; times finite
 * and >= 0. Otherwise -1 with the reason in err. */
int aoe_record_check(const aoe_record *rec, char *err, size_t errlen);
/* 1 when s (at most cap bytes) is a C identifier [A-Za-z_][A-Za-z0-9_]*. */
int aoe_is_identifier(const char *s, size_t cap);

/* Current on-disk format version written by aoe_record_encode. */
#define AOE_RECORD_VERSION 1

/* Encodes into buf (returns bytes needed; writes only when it fits). */
size_t aoe_record_encode(const aoe_record *rec, uint8_t *buf, size_t cap);
/* The format version an encoded record declares (0: not an AOE record). A
 * version above AOE_RECORD_VERSION is a newer aoe's record, not damage. */
unsigned aoe_record_format(const uint8_t *buf, size_t len);
/* Decodes; returns 0 or -1 with a reason in err (never reads past len). */
int aoe_record_decode(const uint8_t *buf, size_t len, aoe_record *rec, char *err, size_t errlen);

/* Key as 32 lowercase hex digits (+NUL), and back (0 / -1). */
void aoe_key_to_hex(const aoe_key *k, char out[33]);
int aoe_key_from_hex(const char *hex, aoe_key *k);

#endif
