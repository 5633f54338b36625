/* The launch path of a tuned CUDA function. Steady state: compare the
 * launch with the function's last shape (grid, block, dynamic shared bytes,
 * which pointers are NULL, the scalars' bytes; an immutable record: plain
 * loads, no lock), then the operator's policy: none, the program's own
 * launch; one, inside a read section, the variant with the policy's -D
 * values (hooks/cuda_variant.h) at the policy's block and grid (threads /
 * block, exact), else the program's own launch. No syscall, lock or
 * allocation. A shape the function has not launched with goes through the
 * launch core (launch/sight.h): key, operator, bank, capture; a shape first
 * seen while its stream is captured into a graph is never captured or
 * substituted. */
#include "hooks/cuda_tune.h"
#include "hooks/cuda_variant.h"

#include "core/log.h"
#include "core/not_tuned_reasons.h"
#include "preload/reclaim.h"

#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                              unsigned, unsigned, CUstream, void **, void **);
typedef CUresult (*launch_ex_fn)(const CUlaunchConfig *, CUfunction, void **, void **);

static inline CUresult call(const aoe_cu_how *how, CUfunction f, const unsigned g[3],
                            const unsigned b[3], unsigned shared, CUstream s, void **params,
                            void **extra)
{
    if (__builtin_expect(!how->cfg, 1))
        return ((launch_fn)how->real)(f, g[0], g[1], g[2], b[0], b[1], b[2], shared, s, params,
                                      extra);
    CUlaunchConfig c = *how->cfg; /* the caller's, with the sizes of this launch */
    c.gridDimX = g[0], c.gridDimY = g[1], c.gridDimZ = g[2];
    c.blockDimX = b[0], c.blockDimY = b[1], c.blockDimZ = b[2];
    return ((launch_ex_fn)how->real)(&c, f, params, extra);
}

static inline int shape_same(const aoe_cu_tuned *L, const aoe_cu_shape *e, const unsigned g[3],
                             const unsigned b[3], unsigned shared, void **params)
{
    return aoe_cu_shape_is(L, e, g[0], g[1], g[2], b[0], b[1], b[2], shared, params);
}

static void shape_fill(const aoe_cu_tuned *L, aoe_cu_shape *e, const unsigned g[3],
                       const unsigned b[3], unsigned shared, void **params)
{
    memset(e, 0, sizeof *e);
    e->dim = 1;
    for (int d = 0; d < 3; d++) {
        e->grid[d] = g[d], e->block[d] = b[d];
        if (d && (g[d] != 1 || b[d] != 1)) e->dim = (unsigned)d + 1;
    }
    e->shared = shared;
    e->nulls = aoe_cu_null_mask(L, params);
    for (uint32_t k = 0; k < L->nscalars && k < AOE_CU_TUNE_MAX_PARAMS; k++)
        memcpy((unsigned char *)&e->words[L->scalar[k].word], params[L->scalar[k].param],
               L->scalar[k].size);
}

/* The operator of a new shape (the launch core: key, bank, capture), or NULL. */
static aoe_op *resolve(aoe_cu_tunable *t, const aoe_cu_shape *e, CUstream s, int per_thread,
                       void **params, int graph)
{
    aoe_cu_tuned *L = t->launch;
    aoe_arg_shape shapes[AOE_CU_TUNE_MAX_PARAMS];
    for (uint32_t i = 0; i < L->nparams; i++) {
        if (L->sig[i].pointer)
            shapes[i] = (aoe_arg_shape){
                *(void *const *)params[i] ? AOE_ARGK_BUFFER : AOE_ARGK_NULLMEM, 0, 0, NULL};
        else
            shapes[i] = (aoe_arg_shape){AOE_ARGK_SCALAR, L->layout[i].size, 0, params[i]};
    }
    /* the kernel part exactly as aoe_job_compute_key computes the job's */
    aoe_job kj;
    memset(&kj, 0, sizeof kj);
    kj.runtime = "cuda";
    kj.fingerprint = (char *)L->fingerprint;
    kj.source = (char *)L->source;
    kj.options = L->options;
    kj.kernel_name = t->name;
    kj.op = AOE_OP_KERNEL;
    kj.program_kind = AOE_JOB_PROG_SOURCE;
    kj.launch_kind = AOE_LAUNCH_GRID_BLOCK;
    kj.dynamic_shared_bytes = e->shared;
    int oom = 0;
    uint64_t kpart = aoe_job_kernel_part(&kj, &oom);
    if (oom) return NULL;
    size_t grid[3], block[3];
    for (int d = 0; d < 3; d++) grid[d] = e->grid[d], block[d] = e->block[d];
    aoe_cu_capture_ctx ctx = {L, params, s, per_thread, 0};
    aoe_launch_desc d = {
        .rt = &aoe_cu_launch_runtime,
        .rt_ctx = &ctx,
        .runtime = "cuda",
        .fingerprint = L->fingerprint,
        .kpart = kpart,
        .kernel_name = t->name,
        .source = L->source,
        .options = L->options,
        .program_hash = L->program_hash,
        .dim = e->dim,
        .global = grid,
        .local = block,
        .nargs = L->nparams,
        .shapes = shapes,
        .launch_kind = AOE_LAUNCH_GRID_BLOCK,
        .dynamic_shared_bytes = e->shared,
        .option_list = t->program->options,
        .noptions = (uint32_t)t->program->num_options,
        .runtime_extra = L->runtime_extra,
        .not_capturable = graph ? AOE_NT_GRAPH_CAPTURE : 0,
    };
    aoe_rd_node *rd = aoe_rd_begin(); /* first sight reads the policy */
    if (!rd) return NULL;
    aoe_op *op = aoe_launch_resolve(&L->sight, &d);
    aoe_rd_end(rd);
    return op;
}

/* A shape that is not the last one: one of the function's shapes (found
 * lock-free), or made (its operator resolved, one thread at a time); NULL:
 * pass through (another thread is making one, or too many shapes). */
static __attribute__((noinline)) const aoe_cu_shape *
shape_miss(const aoe_cu_how *how, aoe_cu_tunable *t, const unsigned g[3], const unsigned b[3],
           unsigned shared, CUstream s, void **params)
{
    aoe_cu_tuned *L = t->launch;
    int n = atomic_load_explicit(&L->nshapes, memory_order_acquire);
    for (int i = 0; i < n; i++)
        if (shape_same(L, L->shapes[i], g, b, shared, params)) {
            atomic_store_explicit(&L->last, L->shapes[i], memory_order_release);
            return L->shapes[i];
        }
    if (!aoe_shim_init()) return NULL;
    if (atomic_exchange_explicit(&L->slow_lock, 1, memory_order_acquire)) return NULL;
    aoe_cu_shape cand;
    shape_fill(L, &cand, g, b, shared, params);
    const aoe_cu_shape *found = NULL;
    n = atomic_load_explicit(&L->nshapes, memory_order_relaxed);
    for (int i = 0; i < n && !found; i++)
        if (!memcmp(L->shapes[i], &cand, offsetof(aoe_cu_shape, op))) found = L->shapes[i];
    if (!found && n < AOE_CU_TUNE_MAX_SHAPES) {
        aoe_cu_shape *e = malloc(sizeof *e);
        if (e) {
            *e = cand;
            e->no_subst =
                aoe_cu_capture_status(s, how->per_thread) != CU_STREAM_CAPTURE_STATUS_NONE;
            e->op = resolve(t, e, s, how->per_thread, params, e->no_subst);
            if (e->op) aoe_counts_switch(&e->counts, e->op);
            if (e->no_subst)
                AOE_DEBUG("CUDA kernel %s: a shape first launched into a graph capture: never "
                          "captured or substituted",
                          t->name);
            L->shapes[n] = e;
            atomic_store_explicit(&L->nshapes, n + 1, memory_order_release);
            found = e;
        }
    }
    if (found) atomic_store_explicit(&L->last, found, memory_order_release);
    atomic_store_explicit(&L->slow_lock, 0, memory_order_release);
    return found;
}

/* The tuned launch of shape e under policy serial, for the next hits. */
static void remember(const aoe_cu_shape *e, uint64_t serial, CUfunction fn, const unsigned g[3],
                     const unsigned b[3])
{
    aoe_cu_shape *m = (aoe_cu_shape *)e; /* only its hit changes */
    const aoe_cu_hit *old = atomic_load_explicit(&m->hit, memory_order_acquire);
    if (old && old->serial == serial && old->fn == fn) return;
    aoe_cu_hit *h = malloc(sizeof *h);
    if (!h) return;
    *h = (aoe_cu_hit){serial, fn, {g[0], g[1], g[2]}, {b[0], b[1], b[2]}};
    if (atomic_compare_exchange_strong_explicit(&m->hit, &old, h, memory_order_acq_rel,
                                                memory_order_acquire)) {
        if (old) aoe_retire((void *)old);
    } else {
        free(h); /* another thread remembered one */
    }
}

/* A launch with a policy (inside a read section): the variant at the
 * policy's sizes, or the program's own launch when none is possible (yet)
 * or the driver refused it (then not tried again for this policy). */
static CUresult launch_hit(const aoe_cu_how *how, aoe_cu_tunable *t, const aoe_cu_shape *e,
                           const aoe_policy_entry *pol, const void *rd, CUfunction f,
                           const unsigned g[3], const unsigned b[3], unsigned shared, CUstream s,
                           void **params)
{
    aoe_cu_tuned *L = t->launch;
    CUfunction vf = f;
    unsigned tg[3] = {g[0], g[1], g[2]}, tb[3] = {b[0], b[1], b[2]};
    int own = pol->defines[0] && !(vf = aoe_cu_variant_function(t, pol->defines));
    if (!own && pol->work_dim) {
        own = pol->work_dim != e->dim;
        for (unsigned d = 0; d < 3 && !own; d++) {
            if (d >= e->dim) {
                tg[d] = tb[d] = 1;
                continue;
            }
            uint64_t lb = pol->has_local ? pol->local[d] : b[d];
            uint64_t thr = pol->global[0] ? pol->global[d] : (uint64_t)g[d] * b[d];
            own = !lb || lb > UINT_MAX || thr % lb || thr / lb > UINT_MAX;
            if (!own) tg[d] = (unsigned)(thr / lb), tb[d] = (unsigned)lb;
        }
    }
    if (!own) {
        CUresult rc = call(how, vf, tg, tb, shared, s, params, NULL);
        if (rc == CUDA_SUCCESS) {
            aoe_counts_launch(aoe_cu_shape_counts(e), rd, 1);
            remember(e, pol->serial, vf, tg, tb);
            return rc;
        }
        /* refused (nothing was launched): the program's own launch decides
         * what the program sees */
        atomic_store_explicit(&L->broken_serial, pol->serial, memory_order_relaxed);
        AOE_DEBUG("tuned launch of %s refused (%d); the program's own launch used", t->name,
                  (int)rc);
    }
    aoe_counts_launch(aoe_cu_shape_counts(e), rd, 0);
    return call(how, f, g, b, shared, s, params, NULL);
}

/* Shape e's launch when its operator has a policy: read inside a read
 * section, the tuned launch unless that policy's was refused before. */
static CUresult with_policy(const aoe_cu_how *how, aoe_cu_tunable *t, const aoe_cu_shape *e,
                            CUfunction f, const unsigned g[3], const unsigned b[3], unsigned shared,
                            CUstream s, void **params)
{
    aoe_cu_tuned *L = t->launch;
    aoe_rd_node *rd = aoe_rd_begin();
    if (__builtin_expect(!rd, 0)) return call(how, f, g, b, shared, s, params, NULL);
    const aoe_policy_entry *pol = atomic_load_explicit(&e->op->policy, memory_order_acquire);
    CUresult rc;
    if (pol && atomic_load_explicit(&L->broken_serial, memory_order_relaxed) != pol->serial) {
        rc = launch_hit(how, t, e, pol, rd, f, g, b, shared, s, params);
    } else {
        aoe_counts_launch(aoe_cu_shape_counts(e), rd, 0);
        rc = call(how, f, g, b, shared, s, params, NULL);
    }
    aoe_rd_end(rd);
    return rc;
}

CUresult aoe_cu_launch_tuned(const aoe_cu_how *how, aoe_cu_tunable *t, CUfunction f,
                             const unsigned g[3], const unsigned b[3], unsigned shared, CUstream s,
                             void **params, void **extra)
{
    aoe_cu_tuned *L = t->launch;
    if (__builtin_expect(extra != NULL || !params, 0))
        return call(how, f, g, b, shared, s, params, extra);
    const aoe_cu_shape *e = atomic_load_explicit(&L->last, memory_order_acquire);
    if (__builtin_expect(!e || !shape_same(L, e, g, b, shared, params), 0)) {
        e = shape_miss(how, t, g, b, shared, s, params);
        if (!e) return call(how, f, g, b, shared, s, params, NULL);
    }
    aoe_op *op = e->op;
    if (!op || e->no_subst || !atomic_load_explicit(&op->policy, memory_order_relaxed)) {
        if (op) aoe_counts_launch(aoe_cu_shape_counts(e), aoe_rd_self, 0);
        return call(how, f, g, b, shared, s, params, NULL);
    }
    return with_policy(how, t, e, f, g, b, shared, s, params);
}

CUresult aoe_cu_hit_plain(void *real, int pt, aoe_cu_tunable *t, const aoe_cu_shape *e,
                          CUfunction f, unsigned shared, CUstream s, void **params)
{
    const aoe_cu_how how = {real, NULL, pt};
    return with_policy(&how, t, e, f, e->grid, e->block, shared, s, params);
}

CUresult aoe_cu_hit_refused(void *real, int pt, aoe_cu_tunable *t, const aoe_cu_shape *e,
                            uint64_t serial, CUresult rc, CUfunction f, unsigned shared, CUstream s,
                            void **params)
{
    const aoe_cu_how how = {real, NULL, pt};
    aoe_cu_tuned *L = t->launch;
    atomic_store_explicit(&L->broken_serial, serial, memory_order_relaxed);
    AOE_DEBUG("tuned launch of %s refused (%d); the program's own launch used", t->name, (int)rc);
    aoe_counts_launch(aoe_cu_shape_counts(e), aoe_rd_self, 0);
    return call(&how, f, e->grid, e->block, shared, s, params, NULL);
}

void aoe_cu_tune_flush(aoe_cu_tunable *t)
{
    aoe_cu_tuned *L = t->launch;
    int n = atomic_load_explicit(&L->nshapes, memory_order_acquire);
    for (int i = 0; i < n; i++) aoe_counts_flush(&L->shapes[i]->counts);
}
