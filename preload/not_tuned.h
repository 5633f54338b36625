/* Kernels the shim saw and did not tune, with why: one entry per (kernel
 * name, reason), filled where the shim decides (kernel creation, a kernel
 * object's first launch, an operator's first sight), never on the steady
 * launch path. The result file lists them under "not_tuned". */
#ifndef AOE_NOT_TUNED_H
#define AOE_NOT_TUNED_H

#include "core/not_tuned_reasons.h"
#include "store/record.h"

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
           reason == AOE_NT_TUNING_FAILED;
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

void aoe_not_tuned_atfork_child(void);

#endif
