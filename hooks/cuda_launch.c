/* The launch entry points (cuLaunchKernel, cuLaunchKernelEx,
 * cuLaunchCooperativeKernel, each legacy and _ptsz): observed, never
 * changed. A launch of a function past its first sight costs a lock-free
 * table lookup and a counter move (no syscall, lock or allocation), then a
 * tail call of the real entry point with the caller's arguments. The first
 * launch of a function (aoe_cu_first_sight, out of line) asks the driver
 * for its name, walks the call site, asks whether the stream is being
 * captured into a graph, and lists the kernel with the reason it is not
 * tuned (nothing is tuned yet: graph capture, NVRTC program without a
 * tunables declaration, or precompiled). */
#include "hooks/cuda_internal.h"

#include "core/log.h"
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

/* CU_STREAM_CAPTURE_STATUS_* of the launch's stream (NONE when the driver cannot say). */
static int capture_status(const aoe_cu_launch *l)
{
    capturing_fn f =
        l->per_thread ? REAL(IS_CAPTURING_PT, capturing_fn) : REAL(IS_CAPTURING, capturing_fn);
    CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
    if (!f || f(l->stream, &st) != CUDA_SUCCESS) return CU_STREAM_CAPTURE_STATUS_NONE;
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
    int capture = capture_status(l);
    const char *fp = aoe_cu_current_fingerprint();
    int why = capture != CU_STREAM_CAPTURE_STATUS_NONE ? AOE_NT_GRAPH_CAPTURE
              : r->mod && r->mod->origin               ? AOE_NT_NO_TUNABLES
                                                       : AOE_NT_PRECOMPILED;
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
    aoe_not_tuned *nt = aoe_not_tuned_note(name, why, site);
    if (nt) atomic_store_explicit(&r->untuned.dest, &nt->launches, memory_order_release);
    aoe_untuned_count(&r->untuned);
    atomic_store_explicit(&r->state, AOE_CU_FN_READY, memory_order_release);
}

/* Counts a launch of fn past its first sight (1), or says it needs one (0). */
static inline int counted(const void *fn)
{
    aoe_cu_func *r = aoe_cu_find(fn);
    if (__builtin_expect(
            !r || atomic_load_explicit(&r->state, memory_order_relaxed) != AOE_CU_FN_READY, 0))
        return 0;
    aoe_untuned_count(&r->untuned);
    return 1;
}

static __attribute__((noinline, cold)) void sight(const void *fn, unsigned gx, unsigned gy,
                                                  unsigned gz, unsigned bx, unsigned by,
                                                  unsigned bz, unsigned shared, CUstream s,
                                                  int per_thread, const char *variant)
{
    aoe_cu_launch l = {{gx, gy, gz}, {bx, by, bz}, shared, s, per_thread, variant};
    aoe_cu_first_sight(fn, &l);
}

#define LAUNCH_PARAMS                                                                              \
    (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,   \
     unsigned shared, CUstream s, void **params, void **extra)
#define COOP_PARAMS                                                                                \
    (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,   \
     unsigned shared, CUstream s, void **params)

/* The slow path (the entry point not resolved yet, or the function's first
 * sight), then the real call: out of line and entered by a tail call, so
 * the launch path itself keeps no value across a call (no saved registers,
 * no stack frame). */
static __attribute__((noinline, cold)) CUresult
first_launch(int id, int pt, const char *name, CUfunction f, unsigned gx, unsigned gy, unsigned gz,
             unsigned bx, unsigned by, unsigned bz, unsigned shared, CUstream s, void **params,
             void **extra)
{
    launch_fn real = (launch_fn)aoe_cu_real(id);
    if (!real) return CUDA_ERROR_NOT_INITIALIZED;
    if (!counted(f)) sight(f, gx, gy, gz, bx, by, bz, shared, s, pt, name);
    return real(f, gx, gy, gz, bx, by, bz, shared, s, params, extra);
}

static __attribute__((noinline, cold)) CUresult
first_coop(int id, int pt, const char *name, CUfunction f, unsigned gx, unsigned gy, unsigned gz,
           unsigned bx, unsigned by, unsigned bz, unsigned shared, CUstream s, void **params)
{
    coop_fn real = (coop_fn)aoe_cu_real(id);
    if (!real) return CUDA_ERROR_NOT_INITIALIZED;
    if (!counted(f)) sight(f, gx, gy, gz, bx, by, bz, shared, s, pt, name);
    return real(f, gx, gy, gz, bx, by, bz, shared, s, params);
}

static __attribute__((noinline, cold)) CUresult first_ex(int id, int pt, const char *name,
                                                         const CUlaunchConfig *c, CUfunction f,
                                                         void **params, void **extra)
{
    launch_ex_fn real = (launch_ex_fn)aoe_cu_real(id);
    if (!real) return CUDA_ERROR_NOT_INITIALIZED;
    if (c && !counted(f))
        sight(f, c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX, c->blockDimY, c->blockDimZ,
              c->sharedMemBytes, c->hStream, pt, name);
    return real(c, f, params, extra);
}

/* The real entry point as resolved, or NULL (then the slow path resolves it). */
#define RESOLVED(id, type)                                                                         \
    ((type)atomic_load_explicit(&aoe_cu_real_ptr[AOE_CUF_##id], memory_order_relaxed))
#define LAUNCH_BODY(id, name, pt)                                                                  \
    {                                                                                              \
        launch_fn real = RESOLVED(id, launch_fn);                                                  \
        if (__builtin_expect(!real || !counted(f), 0))                                             \
            return first_launch(AOE_CUF_##id, pt, name, f, gx, gy, gz, bx, by, bz, shared, s,      \
                                params, extra);                                                    \
        return real(f, gx, gy, gz, bx, by, bz, shared, s, params, extra);                          \
    }
#define COOP_BODY(id, name, pt)                                                                    \
    {                                                                                              \
        coop_fn real = RESOLVED(id, coop_fn);                                                      \
        if (__builtin_expect(!real || !counted(f), 0))                                             \
            return first_coop(AOE_CUF_##id, pt, name, f, gx, gy, gz, bx, by, bz, shared, s,        \
                              params);                                                             \
        return real(f, gx, gy, gz, bx, by, bz, shared, s, params);                                 \
    }
#define EX_BODY(id, name, pt)                                                                      \
    {                                                                                              \
        launch_ex_fn real = RESOLVED(id, launch_ex_fn);                                            \
        if (__builtin_expect(!real || !counted(f), 0))                                             \
            return first_ex(AOE_CUF_##id, pt, name, c, f, params, extra);                          \
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
