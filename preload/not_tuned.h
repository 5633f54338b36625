/* Kernels the shim saw and did not tune, with why: one entry per (kernel
 * name, reason), filled where the shim decides (kernel creation, a kernel
 * object's first launch, an operator's first sight), never on the steady
 * launch path. The result file lists them under "not_tuned". */
#ifndef AOE_NOT_TUNED_H
#define AOE_NOT_TUNED_H

#include "core/not_tuned_reasons.h"
#include "store/record.h"

struct aoe_op;

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    char name[128];
    char detail[96];
    int reason;                     /* AOE_NT_* */
    atomic_uint_least64_t launches; /* flushed from kernel objects */
} aoe_not_tuned;

/* Reasons decided per operator (its kernel could be tuned): the result file
 * lists them from the operators still without a policy. */
static inline int aoe_not_tuned_per_op(int reason)
{
    return reason == AOE_NT_FILTERED || reason == AOE_NT_CAPTURE_LIMIT ||
           reason == AOE_NT_SPOOL_FULL || reason == AOE_NT_REFUSED ||
           reason == AOE_NT_TUNING_FAILED || reason == AOE_NT_OWN_LOCAL ||
           reason == AOE_NT_NOTHING_TO_TUNE || reason == AOE_NT_QUEUED ||
           reason == AOE_NT_FAMILY_QUEUED || reason == AOE_NT_TUNE_OFF ||
           reason == AOE_NT_NOT_CAPTURED;
}

/* Reasons an operator is counted under but not listed in "not_tuned": it is
 * on its way (queued) or the user turned tuning off. */
static inline int aoe_not_tuned_listed(int reason)
{
    return reason != AOE_NT_QUEUED && reason != AOE_NT_FAMILY_QUEUED && reason != AOE_NT_TUNE_OFF;
}

const char *aoe_not_tuned_json(int reason);
const char *aoe_not_tuned_text(int reason);

/* The entry for (name, reason), created on first call (logged at debug);
 * when the table is full, an entry that is never listed. Takes a lock:
 * first sight only. */
aoe_not_tuned *aoe_not_tuned_note(const char *name, int reason, const char *detail);

typedef void (*aoe_not_tuned_visit)(const aoe_not_tuned *e, void *ctx);
void aoe_not_tuned_foreach(aoe_not_tuned_visit fn, void *ctx);

/* The tuner's reason for giving up on key (the spool's <key>.failed.txt,
 * first line, a private regular file, never through a link): 0, or -1 when
 * the spool holds none. Result file only (one open per untuned operator). */
int aoe_not_tuned_tuner_reason(const aoe_key *key, char *out, size_t len);

/* Why an operator without a policy has none: its first-sight reason, a
 * refused bank record, the tuner's verdict (nothing to tune, or failed, its
 * words in tuner), queued in the spool, tuning off, or not captured. Never
 * 0. Result file only. */
int aoe_not_tuned_why(const struct aoe_op *op, char *tuner, size_t len);

void aoe_not_tuned_atfork_child(void);

#endif
