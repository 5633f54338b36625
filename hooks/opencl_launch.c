/* clEnqueueNDRangeKernel: the launch path. Steady state: one lock-free table
 * probe for the kernel object, a seqlock-protected cache compare (same
 * queue, sizes and argument shapes as last time), one acquire load of the
 * operator's policy, two per-kernel counter increments. No getenv, syscalls,
 * locks, allocation, runtime queries or global atomic counters. Everything
 * else (key computation, bank lookup, capture) happens when a shape changes,
 * in aoe_cl_launch_slow; the wrapper itself only makes tail calls, so the
 * pass-through cases cost no stack frame. */
#include "hooks/opencl_internal.h"
#include "hooks/opencl_mem.h"

#include "preload/callsite.h"
#include "preload/log.h"
#include "preload/result_file.h"
#include "preload/spool_write.h"
#include "preload/tune_ops.h"

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

static inline int same_sizes(const size_t *a, const size_t *b, cl_uint dim)
{
    for (cl_uint d = 0; d < dim; d++)
        if (a[d] != b[d]) return 0;
    return 1;
}

/* Lock-free read of the launch cache; NULL when it does not match. */
static inline aoe_op *cache_lookup(aoe_cl_kernel *kr, cl_command_queue q, cl_uint dim,
                                   const size_t *gws, const size_t *lws)
{
    unsigned s = atomic_load_explicit(&kr->cache_seq, memory_order_acquire);
    aoe_op *op = kr->c_op;
    if ((s & 1) || !op || kr->c_tag != cache_tag(kr, dim, lws) || kr->c_queue != q ||
        !same_sizes(kr->c_global, gws, dim) || (lws && !same_sizes(kr->c_local, lws, dim)))
        return NULL;
    atomic_thread_fence(memory_order_acquire);
    return atomic_load_explicit(&kr->cache_seq, memory_order_relaxed) == s ? op : NULL;
}

static void cache_store(aoe_cl_kernel *kr, cl_command_queue q, cl_uint dim, const size_t *gws,
                        const size_t *lws, aoe_op *op)
{
    if (atomic_exchange_explicit(&kr->cache_writer, 1, memory_order_acquire)) return;
    unsigned s = atomic_load_explicit(&kr->cache_seq, memory_order_relaxed);
    atomic_store_explicit(&kr->cache_seq, s + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    kr->c_tag = cache_tag(kr, dim, lws);
    kr->c_queue = q;
    memcpy(kr->c_global, gws, dim * sizeof *gws);
    if (lws) memcpy(kr->c_local, lws, dim * sizeof *lws);
    kr->c_op = op;
    atomic_store_explicit(&kr->cache_seq, s + 2, memory_order_release);
    atomic_store_explicit(&kr->cache_writer, 0, memory_order_release);
}

void aoe_cl_flush_kernel_counts(aoe_cl_kernel *kr)
{
    aoe_op *op = kr->count_op;
    if (!op) return;
    uint64_t n = kr->count, t = kr->tuned_count;
    kr->count = kr->tuned_count = 0;
    if (n) atomic_fetch_add(&op->launches, n);
    if (t) atomic_fetch_add(&op->tuned_launches, t);
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
    if (!aoe_tune_ops_allows(kr->name)) return;
    if (kr->captures >= MAX_CAPTURES_PER_KERNEL) return;
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
    if (!op) return NULL;
    if (created) {
        kr->ops_created++;
        first_sight(kr, op, q, dim, gws, lws, &key);
    }
    cache_store(kr, q, dim, gws, lws, op);
    return op;
}

/* Mirrors the program's argument values onto the variant kernel: only those
 * set since the last mirroring. */
static int mirror_args(aoe_cl_kernel *kr)
{
    if (kr->vk_arg_version == kr->arg_version) return 0;
    for (cl_uint i = 0; i < kr->nargs; i++) {
        aoe_cl_arg *a = &kr->args[i];
        if (kr->vk_versions[i] == a->version) continue;
        if (REAL(clSetKernelArg)(kr->vk, i, a->size, a->is_null ? NULL : a->value) != CL_SUCCESS)
            return -1;
        kr->vk_versions[i] = a->version;
    }
    kr->vk_arg_version = kr->arg_version;
    return 0;
}

static cl_kernel variant_kernel(aoe_cl_kernel *kr, const aoe_policy_entry *pol)
{
    if (kr->v_pol == pol) return kr->vk; /* NULL while its program builds, or if it failed */
    aoe_cl_variant *v = aoe_cl_variant_get(kr->prog, pol);
    if (!v) return NULL;
    int st = atomic_load_explicit(&v->state, memory_order_acquire);
    if (st == AOE_VAR_PENDING) return NULL; /* the default runs until it is built */
    aoe_cl_kernel_drop_variant(kr);
    kr->v_pol = pol;
    if (st != AOE_VAR_READY) return NULL;
    cl_int err = CL_SUCCESS;
    kr->vk_versions = calloc(kr->nargs ? kr->nargs : 1, sizeof *kr->vk_versions);
    if (!kr->vk_versions) return NULL;
    kr->vk = REAL(clCreateKernel)(v->vprog, kr->name, &err);
    kr->vk_arg_version = (uint32_t)-1;
    return kr->vk;
}

static cl_int launch_tuned(enqueue_fn real, aoe_cl_kernel *kr, const aoe_policy_entry *pol,
                           cl_command_queue q, cl_uint dim, const size_t *off, const size_t *gws,
                           const size_t *lws, cl_uint nev, const cl_event *evs, cl_event *ev)
{
    cl_kernel k = kr->k;
    if (pol->defines[0]) {
        k = variant_kernel(kr, pol);
        if (!k || mirror_args(kr)) return USE_DEFAULT;
    }
    const size_t *g = pol->work_dim == dim && pol->global[0] ? pol->global : gws;
    const size_t *l = pol->work_dim == dim ? (pol->has_local ? pol->local : NULL) : lws;
    return real(q, k, dim, off, g, l, nev, evs, ev);
}

/* A launch with a policy: the tuned launch, or the program's own when none
 * is possible (yet) or the runtime refused it. */
static inline cl_int launch_hit(enqueue_fn real, aoe_cl_kernel *kr, const aoe_policy_entry *pol,
                                cl_command_queue q, cl_kernel k, cl_uint dim, const size_t *off,
                                const size_t *gws, const size_t *lws, cl_uint nev,
                                const cl_event *evs, cl_event *ev)
{
    cl_int rc = launch_tuned(real, kr, pol, q, dim, off, gws, lws, nev, evs, ev);
    if (rc == CL_SUCCESS) {
        kr->tuned_count++;
        return rc;
    }
    if (rc != USE_DEFAULT) {
        /* The tuned launch was refused (nothing was enqueued): the
         * program's own launch decides what the program sees. */
        kr->broken_pol = pol;
        AOE_DEBUG("tuned launch of %s refused (%d); default used", kr->name, rc);
    }
    return real(q, k, dim, off, gws, lws, nev, evs, ev);
}

/* The launch cache missed: the slow path, then the launch. The cache and the
 * launch counters then name the same operator, so a cached launch only
 * increments. */
static __attribute__((noinline)) cl_int launch_miss(enqueue_fn real, aoe_cl_kernel *kr,
                                                    cl_command_queue q, cl_kernel k, cl_uint dim,
                                                    const size_t *off, const size_t *gws,
                                                    const size_t *lws, cl_uint nev,
                                                    const cl_event *evs, cl_event *ev)
{
    aoe_op *op = aoe_cl_launch_slow(kr, q, dim, gws, lws);
    if (!op) return real(q, k, dim, off, gws, lws, nev, evs, ev);
    if (kr->count_op != op) {
        aoe_cl_flush_kernel_counts(kr);
        kr->count_op = op;
    }
    kr->count++;
    const aoe_policy_entry *pol = atomic_load_explicit(&op->policy, memory_order_acquire);
    if (pol && kr->broken_pol != pol)
        return launch_hit(real, kr, pol, q, k, dim, off, gws, lws, nev, evs, ev);
    return real(q, k, dim, off, gws, lws, nev, evs, ev);
}

static cl_int launch(enqueue_fn real, aoe_cl_kernel *kr, cl_command_queue q, cl_kernel k,
                     cl_uint dim, const size_t *off, const size_t *gws, const size_t *lws,
                     cl_uint nev, const cl_event *evs, cl_event *ev);

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

static inline cl_int launch(enqueue_fn real, aoe_cl_kernel *kr, cl_command_queue q, cl_kernel k,
                            cl_uint dim, const size_t *off, const size_t *gws, const size_t *lws,
                            cl_uint nev, const cl_event *evs, cl_event *ev)
{
    if (!kr || kr->untunable) goto pass;
    aoe_op *op = cache_lookup(kr, q, dim, gws, lws);
    if (__builtin_expect(!op, 0))
        return launch_miss(real, kr, q, k, dim, off, gws, lws, nev, evs, ev);
    kr->count++; /* count_op == c_op: launch_miss set both */
    const aoe_policy_entry *pol = atomic_load_explicit(&op->policy, memory_order_acquire);
    if (pol && kr->broken_pol != pol)
        return launch_hit(real, kr, pol, q, k, dim, off, gws, lws, nev, evs, ev);
pass:
    return real(q, k, dim, off, gws, lws, nev, evs, ev);
}
