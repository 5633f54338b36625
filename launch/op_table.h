/* The in-process operator table: one entry per operator key this process has
 * launched, holding the policy the bank knows for it. Entries are created at
 * the first sight of a key (not on the launch path's steady state) and never
 * freed; a policy is an immutable object published with a release store, so a
 * launch reads it with one acquire load. */
#ifndef AOE_OP_TABLE_H
#define AOE_OP_TABLE_H

#include "space/tunables.h"
#include "store/record.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    /* What a tuned launch reads first, in one cache line. */
    uint64_t serial;    /* unique per published entry (an address may be reused) */
    uint32_t work_dim;  /* 0: keep the program's sizes */
    int has_local;      /* 0: NULL local size */
    size_t global[3];   /* tuned global size (the program's if the policy keeps it) */
    size_t local[3];    /* tuned local size */
    char defines[1024]; /* " -DNAME=value ..." added to the build options, or "" */
    aoe_record rec;     /* as read from the bank */
} aoe_policy_entry;

enum {
    AOE_OP_FIRST_MISS = 0, /* bank had nothing at first sight */
    AOE_OP_FIRST_HIT = 1   /* bank had a policy at first sight */
};

/* The launch an operator was created for, with the device's limits and the
 * kernel's declared tunables: what a policy must fit (preload/policy_check.h). */
typedef struct aoe_launch_shape {
    uint32_t dim;
    int has_local;
    uint64_t global[3], local[3];
    uint64_t max_wg, max_item[3];   /* device limits, 0: unknown */
    const aoe_tunable_kernel *decl; /* declared tunables of the kernel, or NULL */
} aoe_launch_shape;

typedef struct aoe_op {
    aoe_key key;
    const char *fingerprint; /* device fingerprint (interned by the hooks, never freed) */
    _Atomic(const aoe_policy_entry *) policy;
    int first;                            /* AOE_OP_FIRST_* */
    int64_t first_timestamp;              /* bank record timestamp at first sight (0: none) */
    int job_written;                      /* a job was written to the spool by this process */
    int repeat_job;                       /* the job asked for re-tuning */
    atomic_uint_least64_t launches;       /* launches seen (flushed from kernels) */
    atomic_uint_least64_t tuned_launches; /* of which went out with a tuned policy */
    double active_after_s; /* seconds from the first launch until its policy was published */
    /* the launch it was created for (NULL until set at first sight): a
     * policy is published only if it fits (preload/policy_check.h) */
    _Atomic(const aoe_launch_shape *) shape;
    atomic_int_least64_t refused_ts; /* timestamp of the last record refused (one message) */
    atomic_uint refused;             /* records refused */
    int not_tuned;                   /* AOE_NT_* decided at first sight, or 0 */
    /* set (release) once first sight wrote call_site, first, not_tuned and the
     * capture fields: the result file reads those only after it (acquire) */
    atomic_int sighted;
    char kernel_name[128];
    char call_site[256];
    /* 1: a library call's operator (launch/libcall.h): its policy holds a
     * record of library attributes, checked by the hook, not a launch's
     * sizes. Set before shape is published. */
    int libcall;
    /* The hook's own data for a library operator (e.g. the algorithm it
     * rebuilt from the policy), published and retired by the hook. */
    _Atomic(void *) hook_data;
    /* Keys across runs: set before first sight's bank lookup, for a launch
     * with a NULL local size only (family_set 1): its family key, and
     * whether its kernel's declaration names the scalars its tunables depend
     * on (then a -D policy may be served through the family too). */
    aoe_key family;
    uint8_t family_set, family_scalars;
    /* 1: keyed by its family key (launch/sight.h: past the operator limit);
     * a record under it is served only where a family record may be */
    uint8_t family_op;
} aoe_op;

/* Claims family for a capture in this process: 1 the first time, 0 when an
 * operator of the family was captured here already (a full table claims
 * every family: captured as before). */
int aoe_family_claim(const aoe_key *family);

/* Lock-free lookup. */
aoe_op *aoe_op_find(const aoe_key *key);
/* Finds or creates (mutex; first sight only). *created is set when new.
 * NULL when the table is full. */
aoe_op *aoe_op_get_or_create(const aoe_key *key, const char *kernel_name, const char *fingerprint,
                             int *created);
/* Iterates over every operator (stable pointers). */
typedef void (*aoe_op_visit)(aoe_op *op, void *ctx);
void aoe_op_foreach(aoe_op_visit fn, void *ctx);

/* Builds a policy entry from a bank record for a launch of work_dim dims
 * (NULL when it does not apply, e.g. another dimensionality). */
aoe_policy_entry *aoe_policy_from_record(const aoe_record *rec);

/* 1 when e is the program's own launch: the tuner keeps the default exactly
 * when no candidate beat it, and records tuned_us == default_us then (a
 * policy it kept is faster by more than the noise). */
int aoe_policy_is_default(const aoe_policy_entry *e);

/* Replaces op's policy cur with e (unique serial given here): 1 when
 * published (cur is retired through the host, launch/host.h), 0 when another thread published first
 * (e is freed). */
int aoe_op_publish(aoe_op *op, const aoe_policy_entry *cur, aoe_policy_entry *e);

/* Reads op's record from the bank and publishes it when new or changed.
 * Returns 1 when a new policy was published. */
struct aoe_bank;
int aoe_op_refresh(aoe_op *op, struct aoe_bank *bank);

/* Forked child: re-arms the lock; the child counts its own launches. */
void aoe_op_table_atfork_child(void);

#endif
