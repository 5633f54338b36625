/* First sight: a launch whose shape missed the shape cache resolves to its
 * operator here. The key from the description; the operator found, or
 * created at its first sight in this process (the launch it fits, the call
 * site, the bank's policy, the capture decision and the job), within the
 * limits per kernel object. Never on the steady state: the hook runs it
 * under its kernel object's slow lock, inside a read section. */
#ifndef AOE_LAUNCH_SIGHT_H
#define AOE_LAUNCH_SIGHT_H

#include "launch/desc.h"
#include "launch/op_table.h"

#include <stdint.h>

/* Jobs one kernel object may capture (keeps a kernel whose scalars change
 * every launch cheap). */
#define AOE_MAX_CAPTURES_PER_KERNEL 16
/* Operators one kernel object may create (each costs a bank lookup and a
 * call-site walk): beyond it, new shapes only look up existing operators,
 * lock-free, and otherwise pass. */
#define AOE_MAX_OPS_PER_KERNEL 64

/* Operators one kernel object may create past AOE_MAX_OPS_PER_KERNEL, one
 * per family (keys across runs: launches with a NULL local size). */
#define AOE_MAX_FAMILY_OPS_PER_KERNEL 16

/* Per kernel object, in the hook's record (its slow lock held). */
typedef struct {
    uint32_t ops_created; /* operators created by its launches */
    uint32_t family_ops;  /* family operators created past the limit */
    int captures;         /* jobs captured from it */
    int ops_limited;      /* AOE_MAX_OPS_PER_KERNEL reached (noted once) */
} aoe_sight;

/* The operator for the launch d describes (the arguments all set), or NULL:
 * the launch passes through. */
aoe_op *aoe_launch_resolve(aoe_sight *s, const aoe_launch_desc *d);

/* Captures the job of d into the spool for op (first sight; called by
 * aoe_launch_resolve when the capture is decided). */
void aoe_launch_capture(const aoe_launch_desc *d, aoe_op *op, const aoe_key *key);

/* The job of d with every argument (buffers through d->rt->buffer); args
 * allocated. 0, or -1 out of memory. Freed with aoe_launch_job_free. */
int aoe_launch_job(const aoe_launch_desc *d, const aoe_key *key, const char *call_site, int repeat,
                   uint64_t limit, aoe_job *job);
void aoe_launch_job_free(aoe_job *job);

#endif
