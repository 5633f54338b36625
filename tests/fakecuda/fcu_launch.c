/* Launches and stream capture of the fake driver. Every launch entry point
 * (legacy and per-thread-stream `_ptsz`) is its own function that names
 * itself, so a test sees which variant a caller (or a shim in between)
 * really reached. A launch on a stream being captured adds a node to the
 * capture's graph and runs nothing, as on the real driver. */
#include "fakecuda.h"
#include "fcu_graph.h"
#include "fcu_module.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define VARIANTS(X)                                                                                \
    X(cuLaunchKernel)                                                                              \
    X(cuLaunchKernel_ptsz)                                                                         \
    X(cuLaunchKernelEx)                                                                            \
    X(cuLaunchKernelEx_ptsz)                                                                       \
    X(cuLaunchCooperativeKernel)                                                                   \
    X(cuLaunchCooperativeKernel_ptsz)
#define V_ENUM(n) V_##n,
enum { VARIANTS(V_ENUM) V_COUNT };
#define V_NAME(n) #n,
static const char *const g_variant_names[] = {VARIANTS(V_NAME)};
static atomic_ulong g_variant_counts[V_COUNT];
static _Thread_local const char *t_last = "";
static atomic_ullong g_capture_ids;

FCU_EXPORT const char *fakecuda_last_launch(void)
{
    return t_last;
}

void fcu_set_last_launch(const char *variant)
{
    t_last = variant;
}

FCU_EXPORT unsigned long fakecuda_launches(const char *variant)
{
    for (int i = 0; variant && i < V_COUNT; i++)
        if (!strcmp(g_variant_names[i], variant)) return atomic_load(&g_variant_counts[i]);
    return variant ? fcu_graph_replays(variant) : 0;
}

static CUresult launch(int variant, CUfunction hf, const unsigned grid[3], const unsigned block[3],
                       unsigned shared, CUstream hs, void **params, void **extra)
{
    CUresult r = fcu_need_context();
    if (r) return r;
    struct CUfunc_st *f = fcu_function(hf);
    if (!f) return CUDA_ERROR_INVALID_HANDLE;
    for (int d = 0; d < 3; d++)
        if (!grid[d] || !block[d]) return CUDA_ERROR_INVALID_VALUE;
    if ((unsigned long long)block[0] * block[1] * block[2] > 1024) return CUDA_ERROR_INVALID_VALUE;
    t_last = g_variant_names[variant];
    atomic_fetch_add(&g_variant_counts[variant], 1);
    struct CUstream_st *s = fcu_stream(hs);
    if (s && s->capturing) return fcu_graph_capture(s->graph, f, grid, block, shared, params);
    if (!f->host) return CUDA_SUCCESS; /* no host code: nothing to run */
    fakecuda_launch l = {{grid[0], grid[1], grid[2]},
                         {block[0], block[1], block[2]},
                         shared,
                         hs,
                         params,
                         extra,
                         f->mod,
                         g_variant_names[variant],
                         fcu_define,
                         fakecuda_clock_advance_us,
                         fcu_fault};
    f->host(&l);
    return CUDA_SUCCESS;
}

#define LAUNCH_ARGS                                                                                \
    CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,    \
        unsigned shared, CUstream s, void **params
#define DIMS const unsigned g[3] = {gx, gy, gz}, b[3] = {bx, by, bz}

FCU_EXPORT CUresult cuLaunchKernel(LAUNCH_ARGS, void **extra)
{
    DIMS;
    return launch(V_cuLaunchKernel, f, g, b, shared, s, params, extra);
}

FCU_EXPORT CUresult cuLaunchKernel_ptsz(LAUNCH_ARGS, void **extra)
{
    DIMS;
    return launch(V_cuLaunchKernel_ptsz, f, g, b, shared, s, params, extra);
}

FCU_EXPORT CUresult cuLaunchCooperativeKernel(LAUNCH_ARGS)
{
    DIMS;
    return launch(V_cuLaunchCooperativeKernel, f, g, b, shared, s, params, NULL);
}

FCU_EXPORT CUresult cuLaunchCooperativeKernel_ptsz(LAUNCH_ARGS)
{
    DIMS;
    return launch(V_cuLaunchCooperativeKernel_ptsz, f, g, b, shared, s, params, NULL);
}

static CUresult launch_ex(int variant, const CUlaunchConfig *c, CUfunction f, void **params,
                          void **extra)
{
    if (!c || (c->numAttrs && !c->attrs)) return CUDA_ERROR_INVALID_VALUE;
    const unsigned g[3] = {c->gridDimX, c->gridDimY, c->gridDimZ};
    const unsigned b[3] = {c->blockDimX, c->blockDimY, c->blockDimZ};
    return launch(variant, f, g, b, c->sharedMemBytes, c->hStream, params, extra);
}

FCU_EXPORT CUresult cuLaunchKernelEx(const CUlaunchConfig *c, CUfunction f, void **params,
                                     void **extra)
{
    return launch_ex(V_cuLaunchKernelEx, c, f, params, extra);
}

FCU_EXPORT CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *c, CUfunction f, void **params,
                                          void **extra)
{
    return launch_ex(V_cuLaunchKernelEx_ptsz, c, f, params, extra);
}

/* ---- stream capture (one capture per stream; no cross-stream capture) ---- */

/* Streams capturing now (for the unsafe-call rule), under g_capture_lock. */
#define MAX_CAPTURES 64
static pthread_mutex_t g_capture_lock = PTHREAD_MUTEX_INITIALIZER;
static struct CUstream_st *g_capturing[MAX_CAPTURES];
static __thread CUstreamCaptureMode t_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
static __thread struct CUstream_st *t_capturing; /* this thread's last capture */

FCU_EXPORT CUresult cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode)
{
    CUresult r = fcu_initialised();
    if (r) return r;
    if (!mode || (unsigned)*mode > CU_STREAM_CAPTURE_MODE_RELAXED) return CUDA_ERROR_INVALID_VALUE;
    CUstreamCaptureMode old = t_mode;
    t_mode = *mode;
    *mode = old;
    return CUDA_SUCCESS;
}

CUresult fcu_capture_unsafe_call(void)
{
    if (t_mode == CU_STREAM_CAPTURE_MODE_RELAXED) return CUDA_SUCCESS;
    int broke = 0;
    pthread_mutex_lock(&g_capture_lock);
    for (int i = 0; i < MAX_CAPTURES; i++) {
        struct CUstream_st *s = g_capturing[i];
        if (s && (s->capture_mode == CU_STREAM_CAPTURE_MODE_GLOBAL ||
                  (s == t_capturing && s->capture_mode != CU_STREAM_CAPTURE_MODE_RELAXED))) {
            atomic_store(&s->invalidated, 1);
            broke = 1;
        }
    }
    pthread_mutex_unlock(&g_capture_lock);
    return broke ? CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED : CUDA_SUCCESS;
}

static void listed(struct CUstream_st *s, int on)
{
    pthread_mutex_lock(&g_capture_lock);
    for (int i = 0; i < MAX_CAPTURES; i++)
        if (on ? !g_capturing[i] : g_capturing[i] == s) {
            g_capturing[i] = on ? s : NULL;
            break;
        }
    pthread_mutex_unlock(&g_capture_lock);
}

static CUresult begin_capture(CUstream hs, CUstreamCaptureMode mode)
{
    CUresult r = fcu_need_context();
    if (r) return r;
    struct CUstream_st *s = fcu_stream(hs);
    if (!s) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED; /* the legacy default stream */
    if ((unsigned)mode > CU_STREAM_CAPTURE_MODE_RELAXED) return CUDA_ERROR_INVALID_VALUE;
    if (s->capturing) return CUDA_ERROR_ILLEGAL_STATE;
    if (!(s->graph = calloc(1, sizeof *s->graph))) return CUDA_ERROR_OUT_OF_MEMORY;
    s->capturing = 1;
    s->capture_mode = (int)mode;
    atomic_store(&s->invalidated, 0);
    s->capture_id = atomic_fetch_add(&g_capture_ids, 1) + 1;
    t_capturing = s;
    listed(s, 1);
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuStreamBeginCapture_v2(CUstream s, CUstreamCaptureMode mode)
{
    return begin_capture(s, mode);
}

FCU_EXPORT CUresult cuStreamBeginCapture_v2_ptsz(CUstream s, CUstreamCaptureMode mode)
{
    return begin_capture(s, mode);
}

static CUresult end_capture(CUstream hs, CUgraph *graph)
{
    CUresult r = fcu_need_context();
    if (r) return r;
    struct CUstream_st *s = fcu_stream(hs);
    if (!graph) return CUDA_ERROR_INVALID_VALUE;
    if (!s || !s->capturing) return CUDA_ERROR_ILLEGAL_STATE;
    listed(s, 0);
    s->capturing = 0;
    if (t_capturing == s) t_capturing = NULL;
    if (atomic_load(&s->invalidated)) { /* the real driver's answer: no graph */
        cuGraphDestroy(s->graph);
        s->graph = NULL;
        *graph = NULL;
        return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    }
    *graph = s->graph;
    s->graph = NULL;
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuStreamEndCapture(CUstream s, CUgraph *graph)
{
    return end_capture(s, graph);
}

FCU_EXPORT CUresult cuStreamEndCapture_ptsz(CUstream s, CUgraph *graph)
{
    return end_capture(s, graph);
}

static CUresult is_capturing(CUstream hs, CUstreamCaptureStatus *st)
{
    CUresult r = fcu_need_context();
    if (r) return r;
    if (!st) return CUDA_ERROR_INVALID_VALUE;
    struct CUstream_st *s = fcu_stream(hs);
    *st = s && s->capturing ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuStreamIsCapturing(CUstream s, CUstreamCaptureStatus *st)
{
    return is_capturing(s, st);
}

FCU_EXPORT CUresult cuStreamIsCapturing_ptsz(CUstream s, CUstreamCaptureStatus *st)
{
    return is_capturing(s, st);
}

static CUresult capture_info(CUstream hs, CUstreamCaptureStatus *st, cuuint64_t *id, CUgraph *g,
                             const CUgraphNode **deps, const CUgraphEdgeData **edges, size_t *n)
{
    CUresult r = is_capturing(hs, st);
    if (r) return r;
    struct CUstream_st *s = fcu_stream(hs);
    int on = s && s->capturing;
    if (id && on) *id = s->capture_id;
    if (g) *g = on ? s->graph : NULL;
    if (deps) *deps = NULL;
    if (edges) *edges = NULL;
    if (n) *n = 0;
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuStreamGetCaptureInfo_v3(CUstream s, CUstreamCaptureStatus *st, cuuint64_t *id,
                                              CUgraph *g, const CUgraphNode **deps,
                                              const CUgraphEdgeData **edges, size_t *n)
{
    return capture_info(s, st, id, g, deps, edges, n);
}

FCU_EXPORT CUresult cuStreamGetCaptureInfo_v3_ptsz(CUstream s, CUstreamCaptureStatus *st,
                                                   cuuint64_t *id, CUgraph *g,
                                                   const CUgraphNode **deps,
                                                   const CUgraphEdgeData **edges, size_t *n)
{
    return capture_info(s, st, id, g, deps, edges, n);
}
