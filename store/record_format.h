/* On-disk layout of a bank record (see record.c). Tags are never reused: a
 * new field gets a new tag, so older readers skip it. */
#ifndef AOE_RECORD_FORMAT_H
#define AOE_RECORD_FORMAT_H

#define AOE_RECORD_MAGIC "AOER"
#define AOE_RECORD_HEADER_LEN 8 /* magic, u16 version, u16 flags */

/* Upper bound of an encoded record (all strings and parameters at their maximum). */
#define AOE_RECORD_ENCODED_MAX 4096

enum {
    AOE_TAG_RUNTIME = 1,
    AOE_TAG_KERNEL_NAME = 2,
    AOE_TAG_PARAM = 3, /* repeated: i64 value, u8 define flag (kind == DEFINE), name bytes */
    AOE_TAG_WORK_DIM = 4,
    AOE_TAG_GLOBAL = 5, /* 3 x u64 */
    AOE_TAG_LOCAL = 6,  /* 3 x u64 */
    AOE_TAG_DEFAULT_US = 7,
    AOE_TAG_DEFAULT_SPREAD_US = 8,
    AOE_TAG_TUNED_US = 9,
    AOE_TAG_TUNED_SPREAD_US = 10,
    AOE_TAG_EVALUATIONS = 11,
    AOE_TAG_TUNING_SECONDS = 12,
    AOE_TAG_STRATEGY = 13,
    AOE_TAG_TUNER_VERSION = 14,
    AOE_TAG_TIMESTAMP = 15,
    AOE_TAG_SUMMARY = 16,
    /* u8 aoe_param_kind per AOE_TAG_PARAM, in their order. Absent (records
     * written before it): each kind is its define flag (0 work size, 1 define). */
    AOE_TAG_PARAM_KINDS = 17,
};

#endif
