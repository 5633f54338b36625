/* Shared between the hooks/cublas_*.c files: the cuBLAS / cuBLASLt entry
 * points the shim wraps or calls, the per-handle state it tracks, the gates
 * (GEMM tuning on, library versions, TunableOp, determinism) and the
 * per-operator algorithm cache. Internal to libaoe_hook.so; compiled only
 * when the build has the CUDA headers (AOE_HAVE_CUDA). docs/design.md, "GEMMs". */
#ifndef AOE_CUBLAS_INTERNAL_H
#define AOE_CUBLAS_INTERNAL_H

#include "jobs/gemm.h"
#include "launch/libcall.h"
#include "launch/op_table.h"
#include "launch/ptr_table.h"
#include "preload/runtime.h"
#include "preload/shim.h"
#include "store/gemm_algo.h"

#include <cublasLt.h>
#include <cublas_v2.h>
#include <stdatomic.h>
#include <stdint.h>

/* ---- entry points: the wrapped ones (exported by the shim) ---- */
#define AOE_CB_WRAPPED(X)                                                                          \
    X(cublasLtMatmulAlgoGetHeuristic)                                                              \
    X(cublasLtMatmul)                                                                              \
    X(cublasLtDestroy)                                                                             \
    X(cublasCreate_v2)                                                                             \
    X(cublasDestroy_v2)                                                                            \
    X(cublasSetStream_v2)                                                                          \
    X(cublasSetMathMode)                                                                           \
    X(cublasSetPointerMode_v2)                                                                     \
    X(cublasSetWorkspace_v2)                                                                       \
    X(cublasSetSmCountTarget)                                                                      \
    X(cublasGemmEx)                                                                                \
    X(cublasGemmEx_64)                                                                             \
    X(cublasGemmStridedBatchedEx)                                                                  \
    X(cublasGemmStridedBatchedEx_64)                                                               \
    X(cublasSgemm_v2)                                                                              \
    X(cublasSgemm_v2_64)                                                                           \
    X(cublasSgemmStridedBatched)                                                                   \
    X(cublasSgemmStridedBatched_64)
/* ... and the ones only called. */
#define AOE_CB_CALLED(X)                                                                           \
    X(cublasLtGetVersion)                                                                          \
    X(cublasLtCreate)                                                                              \
    X(cublasLtMatmulDescCreate)                                                                    \
    X(cublasLtMatmulDescDestroy)                                                                   \
    X(cublasLtMatmulDescSetAttribute)                                                              \
    X(cublasLtMatmulDescGetAttribute)                                                              \
    X(cublasLtMatrixLayoutCreate)                                                                  \
    X(cublasLtMatrixLayoutDestroy)                                                                 \
    X(cublasLtMatrixLayoutSetAttribute)                                                            \
    X(cublasLtMatrixLayoutGetAttribute)                                                            \
    X(cublasLtMatmulPreferenceGetAttribute)                                                        \
    X(cublasLtMatmulAlgoInit)                                                                      \
    X(cublasLtMatmulAlgoConfigSetAttribute)                                                        \
    X(cublasLtMatmulAlgoCapGetAttribute)                                                           \
    X(cublasLtMatmulAlgoCheck)                                                                     \
    X(cublasGetVersion_v2)                                                                         \
    X(cublasGetProperty)                                                                           \
    X(cublasGetStream_v2)                                                                          \
    X(cublasGetMathMode)                                                                           \
    X(cublasGetPointerMode_v2)                                                                     \
    X(cublasGetSmCountTarget)

#define AOE_CB_ENUM(fn) AOE_CBF_##fn,
enum { AOE_CB_WRAPPED(AOE_CB_ENUM) AOE_CB_CALLED(AOE_CB_ENUM) AOE_CBF_COUNT };
#undef AOE_CB_ENUM

extern const aoe_runtime aoe_runtime_cublas;
extern _Atomic(void *) aoe_cb_real_ptr[AOE_CBF_COUNT];
void *aoe_cb_resolve(int idx);
static inline void *aoe_cb_real(int idx)
{
    void *p = atomic_load_explicit(&aoe_cb_real_ptr[idx], memory_order_relaxed);
    return p ? p : aoe_cb_resolve(idx);
}
/* The real function fn (same prototype as the header's), or NULL. */
#define CB_REAL(fn) ((__typeof__(&fn))aoe_cb_real(AOE_CBF_##fn))

/* ---- entry points: one per cuBLAS major, each for the callers of its own library ----
 * The libraries' symbols are versioned (cublasSgemm_v2@@libcublas.so.13), so
 * a program's references name their major, and two majors can be loaded at
 * once (a CuPy for CUDA 12 beside a PyTorch for CUDA 13). The shim exports
 * each wrapped fn under both versions (12, and 13 as the default for an
 * unversioned reference): the dynamic linker binds every caller to the entry
 * of its own major, once. An entry (two loads and a compare per call) calls
 * the shim's wrapper, aoe_cbw_<fn>, when its major's library is the one the
 * shim works with (CB_REAL), else that library's own fn: another major's
 * handle never reaches a library that did not make it. */
#define AOE_CBW_DECL(fn) __typeof__(fn) aoe_cbw_##fn;
AOE_CB_WRAPPED(AOE_CBW_DECL)
#undef AOE_CBW_DECL
/* Each major's own fn (12, 13): NULL not looked up yet, AOE_CB_NOT_LOADED
 * when no library of that major is loaded by its soname. */
#define AOE_CB_NOT_LOADED ((void *)1)
extern _Atomic(void *) aoe_cb_route_ptr[2][AOE_CBF_COUNT];
/* Looks major's fn up (once): aoe_cb_route_ptr's entry. */
void *aoe_cb_route_resolve(int major, int idx);
/* For the entry of idx for major, once both pointers are known: NULL, call
 * the wrapper; else major's own fn. */
static inline void *aoe_cb_route_of(void *own, void *real)
{
    return own == AOE_CB_NOT_LOADED || own == real ? NULL : own;
}
/* An entry: every path ends in a jump with the caller's arguments where they
 * are (the lookups, once, in a function of its own). */
#define AOE_CB_ENTRY(M, AT, lib, fn, params, args)                                                 \
    static __attribute__((noinline, cold)) cublasStatus_t aoe_cb##M##_##fn##_first params          \
    {                                                                                              \
        void *own_ = aoe_cb_route_resolve(M, AOE_CBF_##fn), *real_ = aoe_cb_real(AOE_CBF_##fn);    \
        __typeof__(&fn) to_ = (__typeof__(&fn))aoe_cb_route_of(own_, real_);                       \
        return to_ ? to_ args : aoe_cbw_##fn args;                                                 \
    }                                                                                              \
    __attribute__((visibility("default"))) cublasStatus_t aoe_cb##M##_##fn params;                 \
    cublasStatus_t aoe_cb##M##_##fn params                                                         \
    {                                                                                              \
        void *own_ =                                                                               \
            atomic_load_explicit(&aoe_cb_route_ptr[M - 12][AOE_CBF_##fn], memory_order_relaxed);   \
        void *real_ = atomic_load_explicit(&aoe_cb_real_ptr[AOE_CBF_##fn], memory_order_relaxed);  \
        if (__builtin_expect(!own_ || !real_, 0)) return aoe_cb##M##_##fn##_first args;            \
        __typeof__(&fn) to_ = (__typeof__(&fn))aoe_cb_route_of(own_, real_);                       \
        return to_ ? to_ args : aoe_cbw_##fn args;                                                 \
    }                                                                                              \
    __asm__(".symver aoe_cb" #M "_" #fn "," #fn AT lib ".so." #M);
/* fn's two entries; lib: "libcublas" or "libcublasLt", the library it is in. */
#define AOE_CB_ENTRIES(lib, fn, params, args)                                                      \
    AOE_CB_ENTRY(12, "@", lib, fn, params, args)                                                   \
    AOE_CB_ENTRY(13, "@@", lib, fn, params, args)

void *aoe_cb_wrapper_for(const char *name);
void *aoe_cb_real_for(const char *name);
void aoe_cb_flush_counts(void);
void aoe_cb_atfork_child(void);
/* Forked child: locks re-armed (a thread that held one is gone). */
void aoe_cb_gate_atfork_child(void);
void aoe_cb_device_atfork_child(void);
void aoe_cb_handles_atfork_child(void);

/* ---- gates (cublas_gate.c): decided once per path, at its first call ---- */
enum { AOE_CB_PATH_LT = 1, AOE_CB_PATH_BLAS = 2 };
/* AOE_CB_PATH_* bits of the paths AOE acts on, plus bits saying which were
 * decided (0 at start). */
extern atomic_int aoe_cb_paths_bits;
/* Decides path once (logs each refusal once); returns its bit or 0. */
int aoe_cb_gate(int path);
/* Non-zero when AOE acts on path: one relaxed load after the first call. */
static inline int aoe_cb_on(int path)
{
    int bits = atomic_load_explicit(&aoe_cb_paths_bits, memory_order_acquire);
    if (__builtin_expect(!(bits & (path << 2)), 0)) return aoe_cb_gate(path);
    return bits & path;
}
/* Library versions (0: unknown). */
extern uint32_t aoe_cb_lt_version, aoe_cb_blas_version;
/* Slow path (first sight): another cuBLAS / cuBLASLt version appeared in the
 * process since the gate: every path is switched off (said once). 0 when
 * the libraries are still unambiguous. */
int aoe_cb_recheck_libraries(void);
/* The realpath of the directory of the loaded cuBLASLt into out (PATH_MAX
 * bytes) when the tuner may load from it: 0, else -1 (hooks/cublas_runtime.c).
 * For a GEMM job; no lock (fork). */
int aoe_cb_lib_dir(char *out);

/* ---- device fingerprints (cublas_device.c) ---- */
/* The interned fingerprint of the current device, through the already loaded
 * driver (libcuda.so.1, RTLD_NOLOAD), or NULL (said once). Slow path. */
const char *aoe_cb_current_fingerprint(void);

/* ---- cuBLAS handles (cublas_handle.c) ---- */
typedef struct {
    _Atomic(cudaStream_t) stream;
    atomic_int math;  /* cublasMath_t */
    atomic_int pmode; /* cublasPointerMode_t */
    _Atomic(void *) ws;
    atomic_size_t ws_size;
    atomic_int ws_known; /* cublasSetWorkspace_v2 seen */
    atomic_int sm_target;
    const char *fingerprint;      /* the device at creation (NULL: unknown) */
    _Atomic(cublasLtHandle_t) lt; /* for rerouted calls, created at the first hit */
} aoe_cb_handle;

/* The record of h (created from the real getters when the shim did not see
 * cublasCreate), or NULL. Call inside a read section (aoe_rd_begin). */
aoe_cb_handle *aoe_cb_handle_of(cublasHandle_t h);
/* The cuBLASLt handle of a cuBLAS handle's rerouted calls (created once), or NULL. */
cublasLtHandle_t aoe_cb_handle_lt(aoe_cb_handle *r);
/* The fingerprint of a cuBLASLt handle (the device current at its first
 * use), or NULL. */
const char *aoe_cb_lt_fingerprint(cublasLtHandle_t lt);

/* ---- the per-operator algorithm (cublas_algo.c) ---- */
/* What the hook rebuilt from an operator's policy (published in
 * op->hook_data; immutable; superseded ones retired). */
typedef struct {
    uint64_t serial;      /* of the policy entry it was built from */
    int ok;               /* 1: verified for the key's call; 0: refused */
    aoe_gemm_algo config; /* as stored */
    cublasLtMatmulAlgo_t algo;
    size_t workspace; /* AlgoCheck's */
    float waves;
    /* BLAS path: the descriptors the rerouted call runs with (never freed:
     * one set per operator). */
    cublasLtMatmulDesc_t op_desc;
    cublasLtMatrixLayout_t la, lb, lc;
} aoe_cb_built;

/* The call as the hook sees it: the description and, for a rebuild, what
 * the library needs to check the algorithm. */
typedef struct {
    aoe_gemm_desc g;
    cublasLtHandle_t lt;
    /* LT path: the caller's descriptors; BLAS path: NULL (built here) */
    cublasLtMatmulDesc_t op_desc;
    cublasLtMatrixLayout_t la, lb, lc, ld;
    uint32_t math; /* BLAS path: the handle's math mode */
} aoe_cb_call;

extern aoe_libcall_sight aoe_cb_sight;

/* aoe_gemm_key(fingerprint, g), from a per-thread cache of the last few. */
aoe_key aoe_cb_key(const char *fingerprint, const aoe_gemm_desc *g);
/* The operator of key (first sight on a miss: capture). NULL: pass through. */
aoe_op *aoe_cb_operator(const aoe_cb_call *c, const char *fingerprint, const aoe_key *key);
/* The verified algorithm for op's current policy p (rebuilt when p changed),
 * or NULL (no policy, refused, rebuild failed). Inside a read section. */
const aoe_cb_built *aoe_cb_built_for(aoe_op *op, const aoe_policy_entry *p, const aoe_cb_call *c);

/* An operator's name ("gemm lt bf16 TN 24x3x40"). */
void aoe_cb_op_name(const aoe_gemm_desc *g, char *out, size_t len);

/* Set while this thread is inside a real cuBLAS GEMM the shim wrapped:
 * libcublas calls cublasLtMatmul itself (through the public symbol, so the
 * shim sees it); those calls are not the program's. */
extern __thread int aoe_cb_in_blas __attribute__((tls_model("initial-exec")));

/* Counters for the exit line (relaxed adds; debug). */
extern atomic_ullong aoe_cb_own_algo_calls; /* cublasLtMatmul with the program's own algorithm */

#endif
