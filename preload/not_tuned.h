/* Kernels the shim saw and did not tune, with why: one entry per (kernel
 * name, reason), filled where the shim decides (kernel creation, a kernel
 * object's first launch, an operator's first sight), never on the steady
 * launch path. The result file lists them under "not_tuned". */
#ifndef AOE_NOT_TUNED_H
#define AOE_NOT_TUNED_H

#include "store/record.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* X(code, JSON name, human text): the one list of reasons. */
#define AOE_NOT_TUNED_REASONS(X)                                                                   \
    X(IMAGE, "image_or_sampler", "image or sampler argument")                                      \
    X(PIPE, "pipe_queue_or_event", "pipe, device queue or event argument")                         \
    X(SVM, "svm", "SVM pointer argument")                                                          \
    X(EXEC_INFO, "exec_info", "clSetKernelExecInfo used")                                          \
    X(UNKNOWN_MEM, "unknown_memory_object", "memory object the shim never saw created")            \
    X(ARG, "argument_not_recorded", "argument the shim could not record")                          \
    X(PROGRAM, "program_not_tracked", "program not tracked")                                       \
    X(UNSEEN, "kernel_not_tracked", "kernel object created outside the shim")                      \
    X(FILTERED, "filtered_by_tune_ops", "filtered by AOE_TUNE_OPS")                                \
    X(CAPTURE_LIMIT, "capture_limit", "capture limit per kernel object")                           \
    X(OPS_LIMIT, "operator_limit", "operator limit per kernel object")                             \
    X(SPOOL_FULL, "spool_full", "spool full")                                                      \
    X(REFUSED, "policy_refused", "bank record refused by the policy check")                        \
    X(TUNING_FAILED, "tuning_failed", "tuning failed or nothing to tune")

#define AOE_NT_ENUM(code, json, text) AOE_NT_##code,
enum { AOE_NT_NONE = 0, AOE_NOT_TUNED_REASONS(AOE_NT_ENUM) AOE_NT_COUNT };
#undef AOE_NT_ENUM

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
