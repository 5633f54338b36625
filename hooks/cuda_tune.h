/* The shim's tuning path for CUDA kernels (hooks/cuda_tune*.c,
 * hooks/cuda_capture.c): what a tuned function's launches read
 * (aoe_cu_tunable.launch), its shapes, and the entry points from the
 * launch wrappers (hooks/cuda_launch.c). docs/design.md, "Tuning CUDA
 * kernels". */
#ifndef AOE_CUDA_TUNE_H
#define AOE_CUDA_TUNE_H

#include "hooks/cuda_internal.h"
#include "hooks/cuda_nvinfo.h"
#include "hooks/cuda_signature.h"
#include "launch/counters.h"
#include "launch/sight.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#define AOE_CU_TUNE_MAX_PARAMS 64
#define AOE_CU_TUNE_MAX_WORDS 16  /* scalars' bytes a shape holds, in 8-byte words */
#define AOE_CU_TUNE_MAX_SHAPES 96 /* shapes kept per function (more: passed through) */

/* A shape's tuned launch under one policy (its serial): the variant and
 * its sizes, so that a hit computes nothing. Replaced when the policy
 * changes (the old one retired: read inside a read section). */
typedef struct {
    uint64_t serial;
    CUfunction fn;
    unsigned grid[3], block[3];
} aoe_cu_hit;

/* One launch shape of a tuned function: immutable once published (but for
 * its hit), never freed (a launch may hold it). */
typedef struct {
    unsigned grid[3], block[3], shared;
    unsigned dim;                          /* 1 + the last dimension where grid or block is not 1 */
    uint64_t nulls;                        /* bit k: pointer parameter k was NULL */
    uint64_t words[AOE_CU_TUNE_MAX_WORDS]; /* the scalars' bytes, zero padded */
    struct aoe_op *op;                     /* NULL: its launches pass through */
    int no_subst;                    /* first seen while its stream was captured into a graph */
    _Atomic(const aoe_cu_hit *) hit; /* the last tuned launch's, or NULL */
    aoe_counts counts;               /* its launches, counted into op */
} aoe_cu_shape;

/* A shape's launch counters (the one mutable part besides its hit). */
static inline aoe_counts *aoe_cu_shape_counts(const aoe_cu_shape *e)
{
    return (aoe_counts *)&e->counts;
}

/* aoe_cu_tunable.launch: fixed at the function's first sight, then the
 * launch path's state. */
typedef struct {
    uint32_t nparams, nptrs, nscalars;
    uint8_t ptr_param[AOE_CU_TUNE_MAX_PARAMS]; /* parameter index of pointer k */
    struct {
        uint8_t param, word; /* parameter index, first word in aoe_cu_shape.words */
        uint16_t size;
    } scalar[AOE_CU_TUNE_MAX_PARAMS];
    aoe_cu_param layout[AOE_CU_TUNE_MAX_PARAMS];
    aoe_cu_sig_param sig[AOE_CU_TUNE_MAX_PARAMS];
    const char *fingerprint;  /* the device's (interned) */
    char *options;            /* the program's options joined with single spaces */
    char *runtime_extra;      /* the job's runtime_extra (JSON text) */
    const char *source;       /* the program's */
    aoe_hash128 program_hash; /* of source (aoe_program_hash) */
    /* the launch path */
    _Atomic(const aoe_cu_shape *) last;
    aoe_cu_shape *shapes[AOE_CU_TUNE_MAX_SHAPES]; /* added under slow_lock */
    atomic_int nshapes;                           /* published (release) after each add */
    atomic_int slow_lock;
    aoe_sight sight;
    atomic_uint_least64_t broken_serial; /* the policy whose tuned launch was refused */
    atomic_int said_other;               /* a launch the shim does not tune was noted */
} aoe_cu_tuned;

/* How a launch reaches the driver: the real entry point and, for
 * cuLaunchKernelEx, the caller's configuration. */
typedef struct {
    void *real;
    const CUlaunchConfig *cfg; /* NULL: cuLaunchKernel's ABI */
    int per_thread;
} aoe_cu_how;

/* First sight of a function (hooks/cuda_tune.c): publishes r->tunable and
 * returns 0 when the function is tuned; else the AOE_NT_* reason (detail in
 * why) and nothing changed. */
int aoe_cu_tune_decide(aoe_cu_func *r, const void *fn, const char *name, const aoe_cu_launch *l,
                       char *why, size_t whylen);

/* Whether params match shape e's pointer kinds and scalars' bytes. */
static inline int aoe_cu_same_bytes(const void *p, const uint64_t *w, unsigned size)
{
    switch (size) {
    case 4: {
        uint32_t a, b;
        memcpy(&a, p, 4);
        memcpy(&b, w, 4);
        return a == b;
    }
    case 8: {
        uint64_t a;
        memcpy(&a, p, 8);
        return a == w[0];
    }
    default: { /* a byte loop: no library call on the launch path */
        const unsigned char *a = p, *b = (const unsigned char *)w;
        for (unsigned i = 0; i < size; i++)
            if (a[i] != b[i]) return 0;
        return 1;
    }
    }
}

/* Bit k: pointer parameter k of the launch is NULL. */
static inline uint64_t aoe_cu_null_mask(const aoe_cu_tuned *L, void **params)
{
    uint64_t nulls = 0;
    for (uint32_t k = 0; k < L->nptrs && k < AOE_CU_TUNE_MAX_PARAMS; k++)
        nulls |= (uint64_t)(*(void *const *)params[L->ptr_param[k]] == NULL) << k;
    return nulls;
}

static inline int aoe_cu_args_same(const aoe_cu_tuned *L, const aoe_cu_shape *e, void **params)
{
    if (aoe_cu_null_mask(L, params) != e->nulls) return 0;
    for (uint32_t k = 0; k < L->nscalars && k < AOE_CU_TUNE_MAX_PARAMS; k++)
        if (!aoe_cu_same_bytes(params[L->scalar[k].param], &e->words[L->scalar[k].word],
                               L->scalar[k].size))
            return 0;
    return 1;
}

/* Whether a launch is shape e: its sizes, dynamic shared bytes and arguments. */
static inline int aoe_cu_shape_is(const aoe_cu_tuned *L, const aoe_cu_shape *e, unsigned gx,
                                  unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                                  unsigned shared, void **params)
{
    return e->grid[0] == gx && e->block[0] == bx && e->grid[1] == gy && e->block[1] == by &&
           e->grid[2] == gz && e->block[2] == bz && e->shared == shared &&
           aoe_cu_args_same(L, e, params);
}

/* The steady state of a tuned function's cuLaunchKernel(_ptsz), inlined
 * into the wrapper: the shape compared with the last one; no policy: the
 * counter, then a tail call of the driver; a policy: aoe_cu_hit_plain;
 * anything else: NULL (the caller takes the general path). */
typedef CUresult (*aoe_cu_launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                     unsigned, unsigned, CUstream, void **, void **);
CUresult aoe_cu_hit_plain(void *real, int pt, aoe_cu_tunable *t, const aoe_cu_shape *e,
                          CUfunction f, unsigned shared, CUstream s, void **params);
/* The driver refused the cached tuned launch of policy serial: not tried
 * again for it; the program's own launch. */
CUresult aoe_cu_hit_refused(void *real, int pt, aoe_cu_tunable *t, const aoe_cu_shape *e,
                            uint64_t serial, CUresult rc, CUfunction f, unsigned shared, CUstream s,
                            void **params);

/* A launch of a tuned function (hooks/cuda_tune_launch.c). */
CUresult aoe_cu_launch_tuned(const aoe_cu_how *how, aoe_cu_tunable *t, CUfunction f,
                             const unsigned grid[3], const unsigned block[3], unsigned shared,
                             CUstream s, void **params, void **extra);
/* The tuned functions' launch counts into their operators (poller). */
void aoe_cu_tune_flush(aoe_cu_tunable *t);

/* The launch core's callbacks for a tuned function's launch (hooks/cuda_capture.c). */
typedef struct {
    aoe_cu_tuned *L;
    void **params;
    CUstream stream;
    int per_thread;
    int synced; /* the stream was synchronised for this capture */
} aoe_cu_capture_ctx;
extern const aoe_launch_runtime aoe_cu_launch_runtime;

#endif
