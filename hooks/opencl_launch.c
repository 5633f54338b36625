/* clEnqueueNDRangeKernel: the launch path. Steady state: one lock-free table
 * probe for the kernel object, a seqlock-protected cache compare (same
 * queue, sizes and argument shapes as last time), one acquire load of the
 * operator's policy inside a read section (two stores to the thread's own
 * counter), one relaxed add to the kernel object's counter. No getenv,
 * syscalls, locks, allocation, runtime queries or global atomic counters. Everything
 * else (key computation, bank lookup, capture) happens when a shape changes,
 * in aoe_cl_launch_slow; the wrapper itself only makes tail calls, so the
 * pass-through cases cost no stack frame. */
#include "hooks/opencl_internal.h"
#include "hooks/opencl_mem.h"

#include "preload/callsite.h"
#include "core/log.h"
#include "preload/policy_check.h"
#include "preload/reclaim.h"
#include "preload/result_file.h"
#include "preload/spool_write.h"
#include "preload/tune_ops.h"

#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))
#define MAX_CAPTURES_PER_KERNEL 16 /* keeps a kernel whose scalars change every launch cheap */
/* Operators one kernel object may create (each costs a bank lookup and a
 * call-site walk): beyond it, new shapes (e.g. a scalar that changes every
 * launch) only look up existing operators, lock-free, and otherwise pass. */
#define MAX_OPS_PER_KERNEL 64
#define USE_DEFAULT 1 /* launch_tuned: no tuned launch possible (yet) */

typedef __typeof__(&clEnqueueNDRangeKernel) enqueue_fn;

/* The cache tag: shape version, dimensions and whether a local size was given. */
static inline uint64_t cache_tag(const aoe_cl_kernel *kr, cl_uint dim, const size_t *lws)
{
    return (uint64_t)kr->shape_version << 8 | (uint64_t)dim << 1 | (lws != NULL);
}

static inline int same_sizes(const atomic_size_t *a, const size_t *b, cl_uint dim)
{
    for (cl_uint d = 0; d < dim; d++)
        if (atomic_load_explicit(&a[d], memory_order_acquire) != b[d]) return 0;
    return 1;
}

/* Lock-free read of the launch cache; NULL when it does not match. The
 * acquire loads keep the second read of the sequence after them. */
static inline aoe_op *cache_lookup(aoe_cl_kernel *kr, cl_command_queue q, cl_uint dim,
                                   const size_t *gws, const size_t *lws)
{
    unsigned s = atomic_load_explicit(&kr->cache_seq, memory_order_acquire);
    aoe_op *op = atomic_load_explicit(&kr->c_op, memory_order_acquire);
    if ((s & 1) || !op ||
        atomic_load_explicit(&kr->c_tag, memory_order_acquire) != cache_tag(kr, dim, lws) ||
        atomic_load_explicit(&kr->c_queue, memory_order_acquire) != q ||
        !same_sizes(kr->c_global, gws, dim) || (lws && !same_sizes(kr->c_local, lws, dim)))
        return NULL;
    return atomic_load_explicit(&kr->cache_seq, memory_order_relaxed) == s ? op : NULL;
}

/* The release stores keep the odd sequence before every field. */
static void cache_store(aoe_cl_kernel *kr, cl_command_queue q, cl_uint dim, const size_t *gws,
                        const size_t *lws, aoe_op *op)
{
    if (atomic_exchange_explicit(&kr->cache_writer, 1, memory_order_acquire)) return;
    unsigned s = atomic_load_explicit(&kr->cache_seq, memory_order_relaxed);
    atomic_store_explicit(&kr->cache_seq, s + 1, memory_order_relaxed);
    atomic_store_explicit(&kr->c_tag, cache_tag(kr, dim, lws), memory_order_release);
    atomic_store_explicit(&kr->c_queue, q, memory_order_release);
    for (cl_uint d = 0; d < dim; d++) {
        atomic_store_explicit(&kr->c_global[d], gws[d], memory_order_release);
        if (lws) atomic_store_explicit(&kr->c_local[d], lws[d], memory_order_release);
    }
    atomic_store_explicit(&kr->c_op, op, memory_order_release);
    atomic_store_explicit(&kr->cache_seq, s + 2, memory_order_release);
    atomic_store_explicit(&kr->cache_writer, 0, memory_order_release);
}

/* A not-tuned kernel object's launches into its entry. */
static void flush_not_tuned(aoe_cl_kernel *kr)
{
    aoe_not_tuned *nt = atomic_load_explicit(&kr->nt, memory_order_acquire);
    if (!nt || atomic_exchange_explicit(&kr->flush_lock, 1, memory_order_acquire)) return;
    uint64_t n = atomic_load_explicit(&kr->nt_launches, memory_order_relaxed);
    uint64_t dn = n - kr->nt_flushed;
    kr->nt_flushed = n;
    atomic_store_explicit(&kr->flush_lock, 0, memory_order_release);
    if (dn) atomic_fetch_add_explicit(&nt->launches, dn, memory_order_relaxed);
}

void aoe_cl_flush_kernel_counts(aoe_cl_kernel *kr)
{
    if (kr->untunable) flush_not_tuned(kr);
    aoe_op *op = atomic_load_explicit(&kr->count_op, memory_order_relaxed);
    if (!op) return;
    /* A flush already running elsewhere takes these counts too. */
    if (atomic_exchange_explicit(&kr->flush_lock, 1, memory_order_acquire)) return;
    uint64_t v = atomic_exchange_explicit(&kr->shared, 0, memory_order_relaxed);
    uint64_t n = atomic_load_explicit(&kr->own_n, memory_order_relaxed);
    uint64_t t = atomic_load_explicit(&kr->own_t, memory_order_relaxed);
    uint64_t dn = n - kr->flushed_n, dt = t - kr->flushed_t;
    kr->flushed_n = n;
    kr->flushed_t = t;
    atomic_store_explicit(&kr->flush_lock, 0, memory_order_release);
    dn += v & 0xffffffffu;
    dt += v >> 32;
    if (dn) atomic_fetch_add(&op->launches, dn);
    if (dt) atomic_fetch_add(&op->tuned_launches, dt);
}

static inline void own_add(atomic_uint_least64_t *c)
{
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
                          memory_order_relaxed);
}

static __attribute__((noinline)) void count_other(aoe_cl_kernel *kr, const void *rd, int tuned)
{
    const void *none = NULL;
    if (rd && atomic_compare_exchange_strong(&kr->count_owner, &none, rd)) {
        own_add(&kr->own_n);
        if (tuned) own_add(&kr->own_t);
        return;
    }
    uint64_t inc = tuned ? (1ull << 32) | 1u : 1u;
    uint64_t v = atomic_fetch_add_explicit(&kr->shared, inc, memory_order_relaxed);
    if ((uint32_t)v >= 1u << 31) aoe_cl_flush_kernel_counts(kr);
}

/* The owner's count is two plain moves; no lost counts from other threads. */
static inline void count_launch(aoe_cl_kernel *kr, const void *rd, int tuned)
{
    if (__builtin_expect(atomic_load_explicit(&kr->count_owner, memory_order_relaxed) == rd, 1) &&
        rd) {
        own_add(&kr->own_n);
        if (tuned) own_add(&kr->own_t);
        return;
    }
    count_other(kr, rd, tuned);
}

/* Queue -> device fingerprint, so a kernel launched on several queues of one
 * device computes its kernel part once and never queries the runtime again. */
static aoe_ptr_slot g_queue_slots[1024];
static aoe_ptr_table g_queues = AOE_PTR_TABLE_INIT(g_queue_slots);

static const char *queue_fingerprint(cl_command_queue q)
{
    const char *fp = aoe_ptr_find(&g_queues, q);
    if (fp) return fp;
    cl_device_id dev = NULL;
    if (REAL(clGetCommandQueueInfo)(q, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL) != CL_SUCCESS)
        return NULL;
    fp = aoe_cl_fingerprint(dev);
    if (fp) aoe_ptr_insert(&g_queues, q, (void *)fp); /* full: asked again next time */
    return fp;
}

void aoe_cl_queue_forget(cl_command_queue q)
{
    aoe_ptr_remove(&g_queues, q);
}

void aoe_cl_launch_atfork_child(void)
{
    aoe_ptr_table_atfork_child(&g_queues);
}

static int kernel_part(aoe_cl_kernel *kr, cl_command_queue q)
{
    if (kr->kq == q && kr->fingerprint) return 0;
    const char *fp = queue_fingerprint(q);
    if (!fp) return -1;
    if (fp != kr->fingerprint) {
        kr->kpart = aoe_opkey_kernel(fp, kr->prog->hash, kr->name, kr->prog->options);
        kr->fingerprint = fp;
    }
    kr->kq = q;
    return 0;
}

/* The result file and the poller start with the first operator of a
 * process (a forked child starts its own): checked without a lock. */
static atomic_uint g_started_epoch = ~0u;
static void start_background(void)
{
    if (atomic_load_explicit(&g_started_epoch, memory_order_relaxed) == aoe_fork_epoch) return;
    aoe_result_start();
    aoe_poller_start();
    atomic_store_explicit(&g_started_epoch, aoe_fork_epoch, memory_order_relaxed);
}

/* The launch an operator was created for, with the device's work-group
 * limits and the kernel's declared tunables: what a policy must fit. */
static void set_shape(aoe_cl_kernel *kr, aoe_op *op, cl_command_queue q, cl_uint dim,
                      const size_t *gws, const size_t *lws)
{
    aoe_launch_shape *ls = calloc(1, sizeof *ls);
    if (!ls) return; /* no policy is applied to it */
    ls->dim = dim;
    ls->has_local = lws != NULL;
    for (cl_uint d = 0; d < dim; d++) {
        ls->global[d] = gws[d];
        ls->local[d] = lws ? lws[d] : 0;
    }
    cl_device_id dev = NULL;
    size_t wg = 0, items[3] = {0, 0, 0};
    if (REAL(clGetCommandQueueInfo)(q, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL) == CL_SUCCESS) {
        if (REAL(clGetDeviceInfo)(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, NULL)) wg = 0;
        if (REAL(clGetDeviceInfo)(dev, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof items, items, NULL))
            items[0] = items[1] = items[2] = 0;
    }
    ls->max_wg = wg;
    for (int d = 0; d < 3; d++) ls->max_item[d] = items[d];
    ls->decl = aoe_shim_tunables_for(kr->name, kr->prog->source, kr->prog->hash);
    atomic_store_explicit(&op->shape, ls, memory_order_release);
}

/* An operator left untuned at its first sight (the kernel could be). */
static void not_tuned(aoe_op *op, int why, const char *detail)
{
    op->not_tuned = why;
    aoe_not_tuned_note(op->kernel_name, why, detail);
}

/* First sight of an operator in this process: call site, bank lookup, and
 * the capture decision. */
static void first_sight(aoe_cl_kernel *kr, aoe_op *op, cl_command_queue q, cl_uint dim,
                        const size_t *gws, const size_t *lws, const aoe_key *key)
{
    aoe_callsite_describe(op->call_site, sizeof op->call_site);
    aoe_bank *bank = aoe_shim_bank();
    if (bank) aoe_op_refresh(op, bank); /* the poller may have published it meanwhile */
    const aoe_policy_entry *p = atomic_load_explicit(&op->policy, memory_order_acquire);
    if (p) {
        op->first = AOE_OP_FIRST_HIT;
        op->first_timestamp = p->rec.timestamp;
        aoe_shim_note_active();
    }
    if (aoe_shim.mode == AOE_MODE_OFF) return;
    if (op->first == AOE_OP_FIRST_HIT && !aoe_shim.repeat) return;
    if (!aoe_tune_ops_allows(kr->name)) {
        not_tuned(op, AOE_NT_FILTERED, "");
        return;
    }
    if (kr->captures >= MAX_CAPTURES_PER_KERNEL) {
        not_tuned(op, AOE_NT_CAPTURE_LIMIT, "16 jobs per kernel object");
        return;
    }
    kr->captures++;
    aoe_cl_capture(kr, op, q, dim, gws, lws, key);
}

aoe_op *aoe_cl_launch_slow(aoe_cl_kernel *kr, cl_command_queue q, cl_uint dim, const size_t *gws,
                           const size_t *lws)
{
    if (!aoe_shim_init()) return NULL;
    for (cl_uint i = 0; i < kr->nargs; i++)
        if (kr->shapes[i].kind == AOE_ARGK_UNSET) return NULL; /* the runtime reports it */
    if (kernel_part(kr, q)) return NULL;
    start_background();
    aoe_key key = aoe_opkey_launch(kr->kpart, dim, gws, lws, kr->nargs, kr->shapes);
    int created = 0;
    aoe_op *op;
    if (kr->ops_created < MAX_OPS_PER_KERNEL)
        op = aoe_op_get_or_create(&key, kr->name, kr->fingerprint, &created);
    else
        op = aoe_op_find(&key);
    if (!op && kr->ops_created >= MAX_OPS_PER_KERNEL && !kr->ops_limited) {
        kr->ops_limited = 1;
        aoe_not_tuned_note(kr->name, AOE_NT_OPS_LIMIT, "64 operators per kernel object");
    }
    if (!op) return NULL;
    if (created) {
        kr->ops_created++;
        set_shape(kr, op, q, dim, gws, lws);
        first_sight(kr, op, q, dim, gws, lws, &key);
        atomic_store_explicit(&op->sighted, 1, memory_order_release);
    }
    cache_store(kr, q, dim, gws, lws, op);
    return op;
}

static cl_int launch_tuned(enqueue_fn real, aoe_cl_kernel *kr, const aoe_policy_entry *pol,
                           cl_command_queue q, cl_uint dim, const size_t *off, const size_t *gws,
                           const size_t *lws, cl_uint nev, const cl_event *evs, cl_event *ev)
{
    cl_kernel k = kr->k;
    if (pol->defines[0] && !(k = aoe_cl_variant_kernel(kr, pol))) return USE_DEFAULT;
    const size_t *g = pol->work_dim == dim && pol->global[0] ? pol->global : gws;
    const size_t *l = pol->work_dim == dim ? (pol->has_local ? pol->local : NULL) : lws;
    return real(q, k, dim, off, g, l, nev, evs, ev);
}

/* A launch with a policy (inside a read section): the tuned launch, or the
 * program's own when none is possible (yet) or the runtime refused it. */
static inline cl_int launch_hit(enqueue_fn real, aoe_cl_kernel *kr, const aoe_policy_entry *pol,
                                const void *rd, cl_command_queue q, cl_kernel k, cl_uint dim,
                                const size_t *off, const size_t *gws, const size_t *lws,
                                cl_uint nev, const cl_event *evs, cl_event *ev)
{
    cl_int rc = launch_tuned(real, kr, pol, q, dim, off, gws, lws, nev, evs, ev);
    if (rc == CL_SUCCESS) {
        count_launch(kr, rd, 1);
        return rc;
    }
    count_launch(kr, rd, 0);
    if (rc != USE_DEFAULT) {
        /* The tuned launch was refused (nothing was enqueued): the
         * program's own launch decides what the program sees. */
        atomic_store_explicit(&kr->broken_serial, pol->serial, memory_order_relaxed);
        AOE_DEBUG("tuned launch of %s refused (%d); default used", kr->name, rc);
    }
    return real(q, k, dim, off, gws, lws, nev, evs, ev);
}

static inline int applies(const aoe_cl_kernel *kr, const aoe_policy_entry *pol)
{
    return pol && atomic_load_explicit(&kr->broken_serial, memory_order_relaxed) != pol->serial;
}

/* The launch cache missed: the slow path, then the launch. The cache and the
 * launch counters then name the same operator, so a cached launch only
 * counts. */
static __attribute__((noinline)) cl_int launch_miss(enqueue_fn real, aoe_cl_kernel *kr,
                                                    cl_command_queue q, cl_kernel k, cl_uint dim,
                                                    const size_t *off, const size_t *gws,
                                                    const size_t *lws, cl_uint nev,
                                                    const cl_event *evs, cl_event *ev)
{
    aoe_rd_node *rd = aoe_rd_begin(); /* first sight reads the policy too */
    if (!rd) return real(q, k, dim, off, gws, lws, nev, evs, ev);
    cl_int rc;
    if (atomic_exchange_explicit(&kr->slow_lock, 1, memory_order_acquire)) {
        /* another thread is on the slow path of this kernel object */
        aoe_rd_end(rd);
        count_launch(kr, rd, 0);
        return real(q, k, dim, off, gws, lws, nev, evs, ev);
    }
    aoe_op *op = aoe_cl_launch_slow(kr, q, dim, gws, lws);
    if (op && atomic_load_explicit(&kr->count_op, memory_order_relaxed) != op) {
        aoe_cl_flush_kernel_counts(kr);
        atomic_store_explicit(&kr->count_op, op, memory_order_relaxed);
    }
    atomic_store_explicit(&kr->slow_lock, 0, memory_order_release);
    if (!op) {
        aoe_rd_end(rd);
        return real(q, k, dim, off, gws, lws, nev, evs, ev);
    }
    const aoe_policy_entry *pol = atomic_load_explicit(&op->policy, memory_order_acquire);
    if (applies(kr, pol)) {
        rc = launch_hit(real, kr, pol, rd, q, k, dim, off, gws, lws, nev, evs, ev);
    } else {
        count_launch(kr, rd, 0);
        rc = real(q, k, dim, off, gws, lws, nev, evs, ev);
    }
    aoe_rd_end(rd);
    return rc;
}

static inline __attribute__((always_inline)) cl_int
launch(enqueue_fn real, aoe_cl_kernel *kr, cl_command_queue q, cl_kernel k, cl_uint dim,
       const size_t *off, const size_t *gws, const size_t *lws, cl_uint nev, const cl_event *evs,
       cl_event *ev);

/* While some buffer is not yet initialised, a launch marks its buffer
 * arguments written after it was enqueued (after any capture it made). */
static __attribute__((noinline)) cl_int launch_marking(enqueue_fn real, aoe_cl_kernel *kr,
                                                       cl_command_queue q, cl_kernel k, cl_uint dim,
                                                       const size_t *off, const size_t *gws,
                                                       const size_t *lws, cl_uint nev,
                                                       const cl_event *evs, cl_event *ev)
{
    cl_int rc = launch(real, kr, q, k, dim, off, gws, lws, nev, evs, ev);
    if (rc == CL_SUCCESS) aoe_cl_mem_launched(kr);
    return rc;
}

EXPORT cl_int clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dim,
                                     const size_t *off, const size_t *gws, const size_t *lws,
                                     cl_uint nev, const cl_event *evs, cl_event *ev)
{
    enqueue_fn real = REAL(clEnqueueNDRangeKernel);
    if (__builtin_expect(!real, 0)) return CL_INVALID_PLATFORM;
    if (!aoe_shim_active || !gws || dim - 1 > 2)
        return real(q, k, dim, off, gws, lws, nev, evs, ev);
    aoe_cl_kernel *kr = aoe_ptr_find(&aoe_cl_kernels, k);
    if (__builtin_expect(kr && atomic_load_explicit(&aoe_cl_unwritten, memory_order_relaxed), 0))
        return launch_marking(real, kr, q, k, dim, off, gws, lws, nev, evs, ev);
    return launch(real, kr, q, k, dim, off, gws, lws, nev, evs, ev);
}

/* A kernel object the shim does not tune: its first launch says why, every
 * launch counts with two plain moves (tail call: no stack frame). */
static __attribute__((noinline, cold)) void note_untunable(aoe_cl_kernel *kr)
{
    aoe_not_tuned *nt = aoe_not_tuned_note(kr->name, kr->untunable, kr->nt_detail);
    if (nt) atomic_store_explicit(&kr->nt, nt, memory_order_release);
}

static __attribute__((noinline)) cl_int
launch_untunable(enqueue_fn real, aoe_cl_kernel *kr, cl_command_queue q, cl_kernel k, cl_uint dim,
                 const size_t *off, const size_t *gws, const size_t *lws, cl_uint nev,
                 const cl_event *evs, cl_event *ev)
{
    if (__builtin_expect(!atomic_load_explicit(&kr->nt, memory_order_relaxed), 0))
        note_untunable(kr);
    own_add(&kr->nt_launches);
    return real(q, k, dim, off, gws, lws, nev, evs, ev);
}

/* A kernel object whose creation the shim did not see: recorded once (then
 * found in the table), bounded. */
static __attribute__((noinline)) cl_int
launch_unseen(enqueue_fn real, cl_command_queue q, cl_kernel k, cl_uint dim, const size_t *off,
              const size_t *gws, const size_t *lws, cl_uint nev, const cl_event *evs, cl_event *ev)
{
    aoe_cl_kernel *kr = aoe_cl_kernel_unseen(k);
    if (kr) return launch_untunable(real, kr, q, k, dim, off, gws, lws, nev, evs, ev);
    return real(q, k, dim, off, gws, lws, nev, evs, ev);
}

/* Inlined into both callers: a call with eleven arguments costs more than
 * the whole steady state. */
static inline __attribute__((always_inline)) cl_int
launch(enqueue_fn real, aoe_cl_kernel *kr, cl_command_queue q, cl_kernel k, cl_uint dim,
       const size_t *off, const size_t *gws, const size_t *lws, cl_uint nev, const cl_event *evs,
       cl_event *ev)
{
    if (__builtin_expect(!kr, 0))
        return launch_unseen(real, q, k, dim, off, gws, lws, nev, evs, ev);
    if (__builtin_expect(kr->untunable, 0))
        return launch_untunable(real, kr, q, k, dim, off, gws, lws, nev, evs, ev);
    aoe_op *op = cache_lookup(kr, q, dim, gws, lws);
    if (__builtin_expect(!op, 0))
        return launch_miss(real, kr, q, k, dim, off, gws, lws, nev, evs, ev);
    /* No policy (a miss, or off with an unknown operator): nothing to read,
     * so no read section; one is entered (and the pointer loaded again
     * inside it) only when there is a policy to dereference. */
    if (!atomic_load_explicit(&op->policy, memory_order_relaxed)) {
        count_launch(kr, aoe_rd_self, 0);
        goto pass;
    }
    aoe_rd_node *rd = aoe_rd_begin();
    if (__builtin_expect(!rd, 0)) goto pass;
    const aoe_policy_entry *pol = atomic_load_explicit(&op->policy, memory_order_acquire);
    if (applies(kr, pol)) {
        cl_int rc = launch_hit(real, kr, pol, rd, q, k, dim, off, gws, lws, nev, evs, ev);
        aoe_rd_end(rd);
        return rc;
    }
    aoe_rd_end(rd);
    count_launch(kr, rd, 0); /* count_op == c_op: launch_miss set both */
pass:
    return real(q, k, dim, off, gws, lws, nev, evs, ev);
}
