/* The launch entry points (cuLaunchKernel, cuLaunchKernelEx,
 * cuLaunchCooperativeKernel, each legacy and _ptsz). A launch of a function
 * past its first sight costs a lock-free table lookup; an untuned function
 * then a counter move and a tail call of the real entry point with the
 * caller's arguments (no syscall, lock or allocation); a tuned one
 * (hooks/cuda_tune_launch.c) its shape and policy. The first launch of a
 * function (aoe_cu_first_sight, out of line) asks the driver for its name,
 * walks the call site, asks whether the stream is being captured into a
 * graph, and decides whether it is tuned (hooks/cuda_tune.c); if not, lists
 * the kernel with the reason (graph capture, NVRTC program without a
 * tunables declaration, parameters not understood, precompiled, ...). */
#include "hooks/cuda_internal.h"
#include "hooks/cuda_tune.h"

#include "core/log.h"
#include "core/not_tuned_reasons.h"
#include "preload/reclaim.h"
#include "preload/callsite.h"

#include <pthread.h>
#include <stdio.h>

#define REAL(id, type) ((type)aoe_cu_real(AOE_CUF_##id))
#define WRAPPER(id, name, params)                                                                  \
    AOE_CU_EXPORT CUresult aoe_cu_w_##id params __asm__(name);                                     \
    AOE_CU_EXPORT CUresult aoe_cu_w_##id params

typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                              unsigned, unsigned, CUstream, void **, void **);
typedef CUresult (*coop_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                            unsigned, CUstream, void **);
typedef CUresult (*launch_ex_fn)(const CUlaunchConfig *, CUfunction, void **, void **);
typedef CUresult (*name_fn)(const char **, void *);
typedef CUresult (*capturing_fn)(CUstream, CUstreamCaptureStatus *);

static atomic_int g_said_unnamed;
/* libunwind's walk keeps global state (its signal-mask lock) that
 * ThreadSanitizer sees racing when two first sights walk at once: one walk
 * at a time (first sight only). */
static pthread_mutex_t g_walk_lock = PTHREAD_MUTEX_INITIALIZER;

void aoe_cu_callsite(char *out, size_t len)
{
    pthread_mutex_lock(&g_walk_lock);
    aoe_callsite_describe(out, len);
    pthread_mutex_unlock(&g_walk_lock);
}

void aoe_cu_launch_atfork_child(void)
{
    pthread_mutex_init(&g_walk_lock, NULL);
}

/* The driver's name for fn (cuFuncGetName, or cuKernelGetName for a
 * CUkernel), into out. */
static void function_name(const aoe_cu_func *r, const void *fn, char *out, size_t len)
{
    name_fn fname = REAL(FUNC_NAME, name_fn), kname = REAL(KERNEL_NAME, name_fn);
    name_fn first = r->is_kernel ? kname : fname, second = r->is_kernel ? fname : kname;
    const char *name = NULL;
    if (!(first && first(&name, (void *)fn) == CUDA_SUCCESS && name))
        if (!(second && second(&name, (void *)fn) == CUDA_SUCCESS && name)) name = NULL;
    if (!name)
        aoe_shim_log_once(&g_said_unnamed, AOE_LOG_INFO,
                          "the CUDA driver did not name a launched function (cuFuncGetName, "
                          "CUDA 12.3 and up): such kernels are listed by handle");
    if (name)
        snprintf(out, len, "%s", name);
    else
        snprintf(out, len, "cuda_function_%p", fn);
}

int aoe_cu_capture_status(CUstream s, int per_thread)
{
    capturing_fn f =
        per_thread ? REAL(IS_CAPTURING_PT, capturing_fn) : REAL(IS_CAPTURING, capturing_fn);
    CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
    if (!f || f(s, &st) != CUDA_SUCCESS) return CU_STREAM_CAPTURE_STATUS_NONE;
    return (int)st;
}

void aoe_cu_first_sight(const void *fn, const aoe_cu_launch *l)
{
    if (!aoe_shim_init()) return;
    aoe_cu_func *r = aoe_cu_find_or_add(fn);
    if (!r) return;
    int expect = AOE_CU_FN_NEW;
    if (!atomic_compare_exchange_strong(&r->state, &expect, AOE_CU_FN_SIGHTING)) {
        aoe_untuned_count(&r->untuned); /* another thread is sighting it */
        return;
    }
    char name[256], site[256];
    function_name(r, fn, name, sizeof name);
    aoe_cu_callsite(site, sizeof site);
    int capture = aoe_cu_capture_status(l->stream, l->per_thread);
    const char *fp = aoe_cu_current_fingerprint();
    char detail[200];
    int why = aoe_cu_tune_decide(r, fn, name, l, detail, sizeof detail);
    if (capture != CU_STREAM_CAPTURE_STATUS_NONE &&
        (why == AOE_NT_NO_TUNABLES || why == AOE_NT_PRECOMPILED))
        why = AOE_NT_GRAPH_CAPTURE;
    AOE_DEBUG("CUDA kernel %s: first launch through %s from %s, grid %ux%ux%u, block %ux%ux%u, "
              "%u shared bytes, stream %p %s, module %016llx%s%s, device %s",
              name, l->variant, site, l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1],
              l->block[2], l->shared, (void *)l->stream,
              capture == CU_STREAM_CAPTURE_STATUS_ACTIVE ? "capturing into a graph"
              : capture                                  ? "capture invalidated"
                                                         : "not capturing",
              r->mod ? (unsigned long long)r->mod->hash : 0ull,
              r->mod && r->mod->origin ? " from NVRTC program " : "",
              r->mod && r->mod->origin ? r->mod->origin : "", fp ? fp : "unknown");
    if (why) {
        if (detail[0]) AOE_DEBUG("CUDA kernel %s not tuned: %s", name, detail);
        aoe_not_tuned *nt = aoe_not_tuned_note(name, why, site);
        if (nt) atomic_store_explicit(&r->untuned.dest, &nt->launches, memory_order_release);
        aoe_untuned_count(&r->untuned);
    }
    atomic_store_explicit(&r->state, AOE_CU_FN_READY, memory_order_release);
}

/* A tuned function launched a way the shim does not tune (cooperative,
 * launch attributes, parameters packed in `extra`): passed through and
 * counted in a not-tuned entry of its own, noted at the first such launch. */
static __attribute__((noinline, cold)) void other_launch(aoe_cu_func *r, aoe_cu_tunable *t,
                                                         int kind)
{
    aoe_cu_tuned *L = t->launch;
    if (!atomic_exchange(&L->said_other, 1)) {
        int why = kind == AOE_CU_LAUNCH_COOP     ? AOE_NT_COOPERATIVE
                  : kind == AOE_CU_LAUNCH_PACKED ? AOE_NT_PACKED_ARGS
                                                 : AOE_NT_LAUNCH_ATTRS;
        aoe_not_tuned *nt = aoe_not_tuned_note(t->name, why, "");
        if (nt) atomic_store_explicit(&r->untuned.dest, &nt->launches, memory_order_release);
    }
    aoe_untuned_count(&r->untuned);
}

/* The record of fn once past its first sight, else NULL. */
static inline aoe_cu_func *ready(const void *fn)
{
    aoe_cu_func *r = aoe_cu_find(fn);
    if (__builtin_expect(
            !r || atomic_load_explicit(&r->state, memory_order_acquire) != AOE_CU_FN_READY, 0))
        return NULL;
    return r;
}

static __attribute__((noinline, cold)) void sight(const void *fn, unsigned gx, unsigned gy,
                                                  unsigned gz, unsigned bx, unsigned by,
                                                  unsigned bz, unsigned shared, CUstream s,
                                                  int per_thread, const char *variant, int kind)
{
    aoe_cu_launch l = {{gx, gy, gz}, {bx, by, bz}, shared, s, per_thread, variant, kind};
    aoe_cu_first_sight(fn, &l);
}

#define LAUNCH_PARAMS                                                                              \
    (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,   \
     unsigned shared, CUstream s, void **params, void **extra)
#define COOP_PARAMS                                                                                \
    (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,   \
     unsigned shared, CUstream s, void **params)

/* A launch of a tuned function through cuLaunchKernel(_ptsz). */
static __attribute__((noinline)) CUresult tuned(launch_fn real, int pt, aoe_cu_func *r,
                                                aoe_cu_tunable *t, CUfunction f, unsigned gx,
                                                unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                                unsigned bz, unsigned shared, CUstream s,
                                                void **params, void **extra)
{
    if (__builtin_expect(extra != NULL, 0)) {
        other_launch(r, t, AOE_CU_LAUNCH_PACKED);
        return real(f, gx, gy, gz, bx, by, bz, shared, s, params, extra);
    }
    const aoe_cu_how how = {(void *)real, NULL, pt};
    const unsigned g[3] = {gx, gy, gz}, b[3] = {bx, by, bz};
    return aoe_cu_launch_tuned(&how, t, f, g, b, shared, s, params, NULL);
}

/* A tuned function's launch whose shape has a policy: the tuned launch
 * remembered for this shape and policy (inside a read section: the policy
 * and the remembered launch may be retired), else the general hit. Out of
 * line, so the wrapper's common path stays short. (The wrapper does build
 * a frame: with ten arguments and the shape compare inlined the compiler
 * saves registers on entry; measured +1.5 to +4 ns per untuned launch,
 * docs/benchmarks.md.) */
static __attribute__((noinline)) CUresult hit(launch_fn real, int pt, aoe_cu_tunable *t,
                                              const aoe_cu_shape *e, CUfunction f, unsigned shared,
                                              CUstream s, void **params)
{
    aoe_cu_tuned *L = t->launch;
    aoe_rd_node *rd = aoe_rd_begin();
    if (__builtin_expect(!rd, 0))
        return aoe_cu_hit_plain((void *)real, pt, t, e, f, shared, s, params);
    const aoe_policy_entry *pol = atomic_load_explicit(&e->op->policy, memory_order_acquire);
    const aoe_cu_hit *h = atomic_load_explicit(&e->hit, memory_order_acquire);
    if (__builtin_expect(!pol || !h || h->serial != pol->serial ||
                             atomic_load_explicit(&L->broken_serial, memory_order_relaxed) ==
                                 pol->serial,
                         0)) {
        aoe_rd_end(rd);
        return aoe_cu_hit_plain((void *)real, pt, t, e, f, shared, s, params);
    }
    const aoe_cu_hit v = *h;
    aoe_rd_end(rd);
    CUresult rc = real(v.fn, v.grid[0], v.grid[1], v.grid[2], v.block[0], v.block[1], v.block[2],
                       shared, s, params, NULL);
    if (__builtin_expect(rc != CUDA_SUCCESS, 0))
        return aoe_cu_hit_refused((void *)real, pt, t, e, v.serial, rc, f, shared, s, params);
    aoe_counts_launch(aoe_cu_shape_counts(e), rd, 1);
    return rc;
}

/* The slow path (the entry point not resolved yet, or the function's first
 * sight), then the real call: out of line and cold, so it costs the steady
 * state nothing but a never-taken branch. */
static __attribute__((noinline, cold)) CUresult
first_launch(int id, int pt, const char *name, CUfunction f, unsigned gx, unsigned gy, unsigned gz,
             unsigned bx, unsigned by, unsigned bz, unsigned shared, CUstream s, void **params,
             void **extra)
{
    launch_fn real = (launch_fn)aoe_cu_real(id);
    if (!real) return CUDA_ERROR_NOT_INITIALIZED;
    aoe_cu_func *r = ready(f);
    int sighted = !r; /* first sight counts the launch of a function it does not tune */
    if (sighted) {
        sight(f, gx, gy, gz, bx, by, bz, shared, s, pt, name,
              extra ? AOE_CU_LAUNCH_PACKED : AOE_CU_LAUNCH_PLAIN);
        if (!(r = ready(f))) return real(f, gx, gy, gz, bx, by, bz, shared, s, params, extra);
    }
    aoe_cu_tunable *t = atomic_load_explicit(&r->tunable, memory_order_acquire);
    if (t) return tuned(real, pt, r, t, f, gx, gy, gz, bx, by, bz, shared, s, params, extra);
    if (!sighted) aoe_untuned_count(&r->untuned);
    return real(f, gx, gy, gz, bx, by, bz, shared, s, params, extra);
}

static __attribute__((noinline, cold)) CUresult
first_coop(int id, int pt, const char *name, CUfunction f, unsigned gx, unsigned gy, unsigned gz,
           unsigned bx, unsigned by, unsigned bz, unsigned shared, CUstream s, void **params)
{
    coop_fn real = (coop_fn)aoe_cu_real(id);
    if (!real) return CUDA_ERROR_NOT_INITIALIZED;
    aoe_cu_func *r = ready(f);
    if (!r) {
        sight(f, gx, gy, gz, bx, by, bz, shared, s, pt, name, AOE_CU_LAUNCH_COOP);
    } else {
        aoe_cu_tunable *t = atomic_load_explicit(&r->tunable, memory_order_acquire);
        if (t)
            other_launch(r, t, AOE_CU_LAUNCH_COOP);
        else
            aoe_untuned_count(&r->untuned);
    }
    return real(f, gx, gy, gz, bx, by, bz, shared, s, params);
}

static __attribute__((noinline)) CUresult launch_ex(launch_ex_fn real, int pt, const char *name,
                                                    const CUlaunchConfig *c, CUfunction f,
                                                    void **params, void **extra)
{
    if (!c) return real(c, f, params, extra);
    int kind = c->numAttrs ? AOE_CU_LAUNCH_ATTRS
               : extra     ? AOE_CU_LAUNCH_PACKED
                           : AOE_CU_LAUNCH_PLAIN;
    aoe_cu_func *r = ready(f);
    if (!r) {
        sight(f, c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX, c->blockDimY, c->blockDimZ,
              c->sharedMemBytes, c->hStream, pt, name, kind);
        if (!(r = ready(f))) return real(c, f, params, extra);
    } else if (!atomic_load_explicit(&r->tunable, memory_order_relaxed)) {
        aoe_untuned_count(&r->untuned);
        return real(c, f, params, extra);
    }
    aoe_cu_tunable *t = atomic_load_explicit(&r->tunable, memory_order_acquire);
    if (!t) return real(c, f, params, extra);
    if (kind != AOE_CU_LAUNCH_PLAIN) {
        other_launch(r, t, kind);
        return real(c, f, params, extra);
    }
    const aoe_cu_how how = {(void *)real, c, pt};
    const unsigned g[3] = {c->gridDimX, c->gridDimY, c->gridDimZ};
    const unsigned b[3] = {c->blockDimX, c->blockDimY, c->blockDimZ};
    return aoe_cu_launch_tuned(&how, t, f, g, b, c->sharedMemBytes, c->hStream, params, NULL);
}

/* The real entry point as resolved, or NULL (then the slow path resolves it). */
#define RESOLVED(id, type)                                                                         \
    ((type)atomic_load_explicit(&aoe_cu_real_ptr[AOE_CUF_##id], memory_order_relaxed))
/* Past its first sight: an untuned function counts with two plain moves and
 * tail-calls the driver; a tuned one takes its launch path. */
#define LAUNCH_BODY(id, name, pt)                                                                  \
    {                                                                                              \
        launch_fn real = RESOLVED(id, launch_fn);                                                  \
        aoe_cu_func *r = ready(f);                                                                 \
        if (__builtin_expect(!real || !r, 0))                                                      \
            return first_launch(AOE_CUF_##id, pt, name, f, gx, gy, gz, bx, by, bz, shared, s,      \
                                params, extra);                                                    \
        aoe_cu_tunable *t = atomic_load_explicit(&r->tunable, memory_order_acquire);               \
        if (t) {                                                                                   \
            aoe_cu_tuned *L = t->launch;                                                           \
            const aoe_cu_shape *e = atomic_load_explicit(&L->last, memory_order_acquire);          \
            if (__builtin_expect(                                                                  \
                    e && !extra && params && e->op && !e->no_subst &&                              \
                        aoe_cu_shape_is(L, e, gx, gy, gz, bx, by, bz, shared, params),             \
                    1)) {                                                                          \
                if (atomic_load_explicit(&e->op->policy, memory_order_relaxed))                    \
                    return hit(real, pt, t, e, f, shared, s, params);                              \
                aoe_counts_launch(aoe_cu_shape_counts(e), aoe_rd_self, 0);                         \
                return real(f, gx, gy, gz, bx, by, bz, shared, s, params, extra);                  \
            }                                                                                      \
            return tuned(real, pt, r, t, f, gx, gy, gz, bx, by, bz, shared, s, params, extra);     \
        }                                                                                          \
        aoe_untuned_count(&r->untuned);                                                            \
        return real(f, gx, gy, gz, bx, by, bz, shared, s, params, extra);                          \
    }
#define COOP_BODY(id, name, pt)                                                                    \
    {                                                                                              \
        coop_fn real = RESOLVED(id, coop_fn);                                                      \
        aoe_cu_func *r = ready(f);                                                                 \
        if (__builtin_expect(                                                                      \
                !real || !r || atomic_load_explicit(&r->tunable, memory_order_relaxed), 0))        \
            return first_coop(AOE_CUF_##id, pt, name, f, gx, gy, gz, bx, by, bz, shared, s,        \
                              params);                                                             \
        aoe_untuned_count(&r->untuned);                                                            \
        return real(f, gx, gy, gz, bx, by, bz, shared, s, params);                                 \
    }
#define EX_BODY(id, name, pt)                                                                      \
    {                                                                                              \
        launch_ex_fn real = RESOLVED(id, launch_ex_fn);                                            \
        if (__builtin_expect(!real, 0) && !(real = (launch_ex_fn)aoe_cu_real(AOE_CUF_##id)))       \
            return CUDA_ERROR_NOT_INITIALIZED;                                                     \
        aoe_cu_func *r = ready(f);                                                                 \
        if (__builtin_expect(!r || atomic_load_explicit(&r->tunable, memory_order_relaxed), 0))    \
            return launch_ex(real, pt, name, c, f, params, extra);                                 \
        aoe_untuned_count(&r->untuned);                                                            \
        return real(c, f, params, extra);                                                          \
    }

WRAPPER(LAUNCH, "cuLaunchKernel", LAUNCH_PARAMS)
LAUNCH_BODY(LAUNCH, "cuLaunchKernel", 0)
WRAPPER(LAUNCH_PT, "cuLaunchKernel_ptsz", LAUNCH_PARAMS)
LAUNCH_BODY(LAUNCH_PT, "cuLaunchKernel_ptsz", 1)
WRAPPER(LAUNCH_COOP, "cuLaunchCooperativeKernel", COOP_PARAMS)
COOP_BODY(LAUNCH_COOP, "cuLaunchCooperativeKernel", 0)
WRAPPER(LAUNCH_COOP_PT, "cuLaunchCooperativeKernel_ptsz", COOP_PARAMS)
COOP_BODY(LAUNCH_COOP_PT, "cuLaunchCooperativeKernel_ptsz", 1)
WRAPPER(LAUNCH_EX, "cuLaunchKernelEx",
        (const CUlaunchConfig *c, CUfunction f, void **params, void **extra))
EX_BODY(LAUNCH_EX, "cuLaunchKernelEx", 0)
WRAPPER(LAUNCH_EX_PT, "cuLaunchKernelEx_ptsz",
        (const CUlaunchConfig *c, CUfunction f, void **params, void **extra))
EX_BODY(LAUNCH_EX_PT, "cuLaunchKernelEx_ptsz", 1)
