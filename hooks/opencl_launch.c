/* clEnqueueNDRangeKernel: the launch path. Steady state: one lock-free table
 * probe for the kernel object, the shape cache's seqlock-protected compare
 * (same queue, sizes and argument shapes as last time; launch/shape_cache.h),
 * one acquire load of the operator's policy inside a read section (two
 * stores to the thread's own counter), the kernel object's launch count
 * (launch/counters.h). No getenv, syscalls, locks, allocation, runtime
 * queries or global atomic counters. When a shape changes,
 * aoe_cl_launch_slow describes the launch to the launch core
 * (launch/sight.h: key, operator, bank lookup, capture); this file applies
 * the policy. The wrapper itself only makes tail calls, so the pass-through
 * cases cost no stack frame. */
#include "hooks/opencl_internal.h"
#include "hooks/opencl_mem.h"

#include "core/log.h"
#include "preload/reclaim.h"

#include <stdlib.h>
#include <string.h>

#define USE_DEFAULT 1 /* launch_tuned: no tuned launch possible (yet) */

typedef __typeof__(&clEnqueueNDRangeKernel) enqueue_fn;

/* The shape cache (launch/shape_cache.h) holds the queue, global and local
 * sizes; its tag the argument shape version, dimensions and whether a local
 * size was given. */
static inline aoe_op *cache_lookup(aoe_cl_kernel *kr, cl_command_queue q, cl_uint dim,
                                   const size_t *gws, const size_t *lws)
{
    return aoe_shape_find(&kr->cache, &kr->shape_version, q, dim, gws, lws);
}

/* A not-tuned kernel object's launches into its entry, then the counts. */
void aoe_cl_flush_kernel_counts(aoe_cl_kernel *kr)
{
    if (kr->untunable) aoe_untuned_flush(&kr->untuned);
    aoe_counts_flush(&kr->counts);
}

static inline void count_launch(aoe_cl_kernel *kr, const void *rd, int tuned)
{
    aoe_counts_launch(&kr->counts, rd, tuned);
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

/* A launch whose shape missed the cache: its description, then the launch
 * core finds or creates the operator (launch/sight.h). */
aoe_op *aoe_cl_launch_slow(aoe_cl_kernel *kr, cl_command_queue q, cl_uint dim, const size_t *gws,
                           const size_t *lws)
{
    if (!aoe_shim_init()) return NULL;
    if (!aoe_launch_args_set(kr->nargs, kr->shapes)) return NULL; /* the runtime reports it */
    if (kernel_part(kr, q)) return NULL;
    aoe_cl_launch_ctx ctx = {kr, q};
    const aoe_cl_program *p = kr->prog;
    aoe_launch_desc d = {
        .rt = &aoe_cl_launch_runtime,
        .rt_ctx = &ctx,
        .runtime = "opencl",
        .fingerprint = kr->fingerprint,
        .kpart = kr->kpart,
        .kernel_name = kr->name,
        .source = p->kind == AOE_PROG_SOURCE ? p->source : NULL,
        .binary = p->kind == AOE_PROG_SOURCE ? NULL : p->binary,
        .binary_len = p->kind == AOE_PROG_SOURCE ? 0 : p->binary_len,
        .options = p->options,
        .program_hash = p->hash,
        .dim = dim,
        .global = gws,
        .local = lws,
        .nargs = kr->nargs,
        .shapes = kr->shapes,
    };
    aoe_op *op = aoe_launch_resolve(&kr->sight, &d);
    if (op) aoe_shape_store(&kr->cache, kr->shape_version, q, dim, gws, lws, op);
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
    if (op) aoe_counts_switch(&kr->counts, op);
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
    if (nt) atomic_store_explicit(&kr->untuned.dest, &nt->launches, memory_order_release);
}

static __attribute__((noinline)) cl_int
launch_untunable(enqueue_fn real, aoe_cl_kernel *kr, cl_command_queue q, cl_kernel k, cl_uint dim,
                 const size_t *off, const size_t *gws, const size_t *lws, cl_uint nev,
                 const cl_event *evs, cl_event *ev)
{
    if (__builtin_expect(!atomic_load_explicit(&kr->untuned.dest, memory_order_relaxed), 0))
        note_untunable(kr);
    aoe_untuned_count(&kr->untuned);
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
    count_launch(kr, rd, 0); /* counts.op == cache.op: launch_miss set both */
pass:
    return real(q, k, dim, off, gws, lws, nev, evs, ev);
}
