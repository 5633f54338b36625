/* First sight of a library call (a cuBLAS/cuBLASLt GEMM, later others):
 * what launch/sight.h does for kernel launches, for an operation the
 * runtime's library carries out itself. The hook computes the operator key
 * from the call (its own key function, e.g. aoe_gemm_key) and names the
 * operator; here the operator is found, or created at its first sight in this
 * process (call site, the bank's policy, the capture decision: AOE_TUNE_OPS,
 * per-runtime limits, the spool), and the job the hook builds is written to
 * the spool once per key, starting the background tuner as for kernels.
 * The policy of a library operator is a record of library attributes
 * (AOE_PARAM_LIBRARY_ATTR, e.g. store/gemm_algo.h): published unchanged
 * (aoe_policy_from_library_record) and decoded and checked by the hook
 * against each call, never applied to a kernel launch. Never on the steady
 * state: the hook calls it when its own per-key cache misses. */
#ifndef AOE_LAUNCH_LIBCALL_H
#define AOE_LAUNCH_LIBCALL_H

#include "jobs/job.h"
#include "launch/op_table.h"
#include "store/record.h"

#include <stdatomic.h>
#include <stdint.h>

/* Operators one runtime's library calls may create per process (each costs a
 * bank lookup and a call-site walk): beyond it, new keys only find existing
 * operators, lock-free, and otherwise pass. */
#define AOE_MAX_LIBCALL_OPS 4096
/* Jobs one runtime's library calls may capture per process. */
#define AOE_MAX_LIBCALL_CAPTURES 256

/* Per runtime (or per family of calls), process-wide, zero-initialised. */
typedef struct {
    atomic_uint ops_created; /* operators created */
    atomic_uint captures;    /* jobs captured */
    atomic_int ops_limited;  /* AOE_MAX_LIBCALL_OPS reached (noted once) */
} aoe_libcall_sight;

struct aoe_libcall_desc;
/* Fills job (zeroed by the caller) with the call's job: runtime, fingerprint,
 * operation, arguments, runtime_extra and key (the launch core sets the call
 * site and REPEAT_TUNE). 0, or -1: nothing is captured. */
typedef int (*aoe_libcall_job_fn)(const struct aoe_libcall_desc *d, aoe_job *job);

typedef struct aoe_libcall_desc {
    const char *fingerprint; /* device fingerprint (interned, never freed) */
    const char *op_name;     /* operator name: result file, AOE_TUNE_OPS ("gemm ...") */
    aoe_key key;             /* computed by the hook */
    aoe_libcall_job_fn job;  /* the job of this call */
    const void *ctx;         /* the hook's, for job */
} aoe_libcall_desc;

/* The operator of the call, or NULL (table full, limit reached): the call
 * passes through. Thread-safe; the first sight runs in the thread that
 * created the operator, others see the operator without a policy meanwhile. */
aoe_op *aoe_libcall_resolve(aoe_libcall_sight *s, const aoe_libcall_desc *d);

/* Forked child: re-arms the call-site walk's lock (a runtime using library
 * calls calls it from its atfork_child; idempotent). */
void aoe_libcall_atfork_child(void);

/* A policy entry holding a library operator's bank record as it is (the
 * record passes aoe_record_check and every parameter is a library
 * attribute), or NULL after one error line. */
aoe_policy_entry *aoe_policy_from_library_record(const aoe_record *rec);

#endif
