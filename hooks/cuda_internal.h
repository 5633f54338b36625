/* Shared between the hooks/cuda_*.c files (the CUDA driver API runtime,
 * "cuda"): the entry points the shim wraps or calls, the tracked modules and
 * functions, first sight. Internal to libaoe_hook.so; built only with the
 * CUDA headers (AOE_HAVE_CUDA). docs/design.md, "The CUDA driver". */
#ifndef AOE_CUDA_INTERNAL_H
#define AOE_CUDA_INTERNAL_H

#include "launch/counters.h"
#include "hooks/nvrtc_programs.h"
#include "launch/ptr_table.h"
#include "launch/variant.h"
#include "preload/not_tuned.h"
#include "preload/runtime.h"
#include "preload/shim.h"

#include <cuda.h>
#include <stdatomic.h>
#include <stdint.h>

#define AOE_CU_EXPORT __attribute__((visibility("default")))

/* The wrapped entry points: X(ID, exported name, base name for cuGetProcAddress).
 * Each has its own wrapper (an exported function named by its asm label), so
 * the legacy and the per-thread-stream variants stay apart. */
#define AOE_CU_WRAPPED(X)                                                                          \
    X(GPA4, "cuGetProcAddress", "cuGetProcAddress")                                                \
    X(GPA5, "cuGetProcAddress_v2", "cuGetProcAddress")                                             \
    X(MOD_LOAD, "cuModuleLoad", "cuModuleLoad")                                                    \
    X(MOD_DATA, "cuModuleLoadData", "cuModuleLoadData")                                            \
    X(MOD_DATA_EX, "cuModuleLoadDataEx", "cuModuleLoadDataEx")                                     \
    X(MOD_FATBIN, "cuModuleLoadFatBinary", "cuModuleLoadFatBinary")                                \
    X(MOD_UNLOAD, "cuModuleUnload", "cuModuleUnload")                                              \
    X(MOD_GET_FN, "cuModuleGetFunction", "cuModuleGetFunction")                                    \
    X(LIB_DATA, "cuLibraryLoadData", "cuLibraryLoadData")                                          \
    X(LIB_FILE, "cuLibraryLoadFromFile", "cuLibraryLoadFromFile")                                  \
    X(LIB_UNLOAD, "cuLibraryUnload", "cuLibraryUnload")                                            \
    X(LIB_GET_KERNEL, "cuLibraryGetKernel", "cuLibraryGetKernel")                                  \
    X(KERNEL_GET_FN, "cuKernelGetFunction", "cuKernelGetFunction")                                 \
    X(LAUNCH, "cuLaunchKernel", "cuLaunchKernel")                                                  \
    X(LAUNCH_PT, "cuLaunchKernel_ptsz", "cuLaunchKernel")                                          \
    X(LAUNCH_EX, "cuLaunchKernelEx", "cuLaunchKernelEx")                                           \
    X(LAUNCH_EX_PT, "cuLaunchKernelEx_ptsz", "cuLaunchKernelEx")                                   \
    X(LAUNCH_COOP, "cuLaunchCooperativeKernel", "cuLaunchCooperativeKernel")                       \
    X(LAUNCH_COOP_PT, "cuLaunchCooperativeKernel_ptsz", "cuLaunchCooperativeKernel")               \
    X(GRAPH_LAUNCH, "cuGraphLaunch", "cuGraphLaunch")                                              \
    X(GRAPH_LAUNCH_PT, "cuGraphLaunch_ptsz", "cuGraphLaunch")
/* ... and the ones only called (first sight, fingerprint, variant builds). */
#define AOE_CU_CALLED(X)                                                                           \
    X(FUNC_NAME, "cuFuncGetName", "")                                                              \
    X(KERNEL_NAME, "cuKernelGetName", "")                                                          \
    X(IS_CAPTURING, "cuStreamIsCapturing", "")                                                     \
    X(IS_CAPTURING_PT, "cuStreamIsCapturing_ptsz", "")                                             \
    X(CTX_DEVICE, "cuCtxGetDevice", "")                                                            \
    X(DEVICE_GET, "cuDeviceGet", "")                                                               \
    X(DEVICE_NAME, "cuDeviceGetName", "")                                                          \
    X(DEVICE_ATTR, "cuDeviceGetAttribute", "")                                                     \
    X(DRIVER_VERSION, "cuDriverGetVersion", "")                                                    \
    X(DEVICE_UUID, "cuDeviceGetUuid_v2", "")                                                       \
    X(FUNC_PARAM_INFO, "cuFuncGetParamInfo", "")                                                   \
    X(CTX_CURRENT, "cuCtxGetCurrent", "")                                                          \
    X(MEM_RANGE, "cuMemGetAddressRange_v2", "")                                                    \
    X(STREAM_SYNC, "cuStreamSynchronize", "")                                                      \
    X(MEMCPY_DTOH_ASYNC, "cuMemcpyDtoHAsync_v2", "")                                               \
    X(CAPTURE_MODE, "cuThreadExchangeStreamCaptureMode", "")                                       \
    X(CTX_PUSH, "cuCtxPushCurrent_v2", "")                                                         \
    X(CTX_POP, "cuCtxPopCurrent_v2", "")                                                           \
    X(ERROR_NAME, "cuGetErrorName", "")

#define AOE_CU_ENUM(id, name, base) AOE_CUF_##id,
enum {
    AOE_CU_WRAPPED(AOE_CU_ENUM) AOE_CUF_N_WRAPPED,
    AOE_CU_DUMMY_ = AOE_CUF_N_WRAPPED - 1,
    AOE_CU_CALLED(AOE_CU_ENUM) AOE_CUF_COUNT
};
#undef AOE_CU_ENUM

extern const aoe_runtime aoe_runtime_cuda;
extern _Atomic(void *) aoe_cu_real_ptr[AOE_CUF_COUNT];
void *aoe_cu_resolve(int idx);
/* The real function idx (resolved at its first use; a miss is retried). */
static inline void *aoe_cu_real(int idx)
{
    void *p = atomic_load_explicit(&aoe_cu_real_ptr[idx], memory_order_relaxed);
    return p ? p : aoe_cu_resolve(idx);
}
/* The shim's own driver calls (a first sight's copies, a variant's module
 * load) run in relaxed stream-capture mode: in the thread's default (global)
 * mode they would fail while any thread of the program captures a stream in
 * global mode (torch.cuda.graph's default) and break that capture. Returns
 * the mode to give back with aoe_cu_capture_mode_restore. */
static inline int aoe_cu_capture_mode_relaxed(void)
{
    CUresult (*x)(CUstreamCaptureMode *) =
        (CUresult(*)(CUstreamCaptureMode *))aoe_cu_real(AOE_CUF_CAPTURE_MODE);
    CUstreamCaptureMode m = CU_STREAM_CAPTURE_MODE_RELAXED;
    return x && x(&m) == CUDA_SUCCESS ? (int)m : -1;
}
static inline void aoe_cu_capture_mode_restore(int saved)
{
    CUresult (*x)(CUstreamCaptureMode *) =
        (CUresult(*)(CUstreamCaptureMode *))aoe_cu_real(AOE_CUF_CAPTURE_MODE);
    CUstreamCaptureMode m = (CUstreamCaptureMode)saved;
    if (saved >= 0 && x) x(&m);
}

/* The shim's wrapper of wrapped entry point idx, and its exported name. */
void *aoe_cu_wrapper(int idx);
const char *aoe_cu_name(int idx);

void *aoe_cu_wrapper_for(const char *name);
void *aoe_cu_real_for(const char *name);
void aoe_cu_flush_counts(void);
void aoe_cu_atfork_child(void);

/* ---- tracked modules and functions (cuda_track.c) ---- */
typedef struct {
    int kind;           /* AOE_CU_IMAGE_* (hooks/cuda_image.h) */
    size_t len;         /* bytes hashed (0: not hashed) */
    uint64_t hash;      /* aoe_cu_image_hash of the image */
    const char *origin; /* the name of the NVRTC program that produced it, or NULL */
    /* The NVRTC program that produced it (aoe_nvrtc_image_program; a
     * reference held for good), what it loaded of it, and for an ELF cubin
     * its kernels' parameter layouts (hooks/cuda_nvinfo.h), or NULL. */
    const aoe_nvrtc_program *program;
    int image_kind; /* AOE_NVRTC_IMAGE_CUBIN or _PTX */
    struct aoe_cu_nvinfo *nvinfo;
} aoe_cu_module;

enum { AOE_CU_FN_NEW = 0, AOE_CU_FN_SIGHTING, AOE_CU_FN_READY };

/* A kernel the shim tunes: an NVRTC-compiled kernel with a tunables
 * declaration (or, opt-in, #ifndef defaults). Made at its first sight,
 * published once complete, never freed (a launch may hold it). */
typedef struct aoe_cu_tunable {
    /* What a variant is built from (hooks/cuda_variant.c reads only these): */
    const aoe_nvrtc_program *program; /* its NVRTC program (a reference held for good) */
    int image_kind;                   /* AOE_NVRTC_IMAGE_CUBIN or _PTX: what was loaded */
    char name[256];                   /* the function's (lowered) name in its module */
    CUcontext ctx;                    /* the context its module was loaded into */
    aoe_variant_list variants;        /* variants asked for (hooks/cuda_variant.c) */
    /* The launch path's own (hooks/cuda_launch.c and the capture files). */
    void *launch;
} aoe_cu_tunable;

/* A CUfunction, or a CUkernel (which a program may launch cast to one). */
typedef struct {
    const aoe_cu_module *mod; /* NULL: loaded where the shim did not see it */
    const void *owner;        /* the CUmodule / CUlibrary handle (unload) */
    int is_kernel;            /* a CUkernel from cuLibraryGetKernel */
    atomic_int state;         /* AOE_CU_FN_* */
    aoe_untuned_counts untuned;
    _Atomic(aoe_cu_tunable *) tunable; /* set (release) when the kernel is tuned */
} aoe_cu_func;

/* Records a loaded module / library (handle) from its image (NULL: a file). */
void aoe_cu_track_module(const void *handle, const void *image, int kind);
/* Forgets handle's module and its functions (their launch counts kept). */
void aoe_cu_untrack_module(const void *handle);
/* Records fn (a CUfunction or CUkernel) of module / library owner. */
void aoe_cu_track_function(const void *fn, const void *owner, int is_kernel);
/* cuKernelGetFunction: fn stands for kernel's function. */
void aoe_cu_track_kernel_function(const void *fn, const void *kernel);
/* Function and kernel handles -> records (cuda_track.c). */
extern aoe_ptr_table aoe_cu_funcs;
/* The record of fn, or NULL (lock-free; inline: the launch path makes no call). */
static inline aoe_cu_func *aoe_cu_find(const void *fn)
{
    return aoe_ptr_find(&aoe_cu_funcs, fn);
}
/* The record of fn, created when the shim never saw fn made; NULL when full. */
aoe_cu_func *aoe_cu_find_or_add(const void *fn);
void aoe_cu_track_atfork_child(void);

/* ---- launches (cuda_launch.c) ---- */
/* How a launch passes its parameters and what it asks of the driver. */
enum {
    AOE_CU_LAUNCH_PLAIN = 0, /* kernelParams, no attributes */
    AOE_CU_LAUNCH_COOP,      /* cuLaunchCooperativeKernel */
    AOE_CU_LAUNCH_ATTRS,     /* cuLaunchKernelEx with launch attributes */
    AOE_CU_LAUNCH_PACKED,    /* parameters packed in `extra` */
};

typedef struct {
    unsigned grid[3], block[3], shared;
    CUstream stream;
    int per_thread;      /* a _ptsz entry point */
    const char *variant; /* its exported name */
    int kind;            /* AOE_CU_LAUNCH_* */
} aoe_cu_launch;

/* Slow path: the first launch of fn (the record created when the shim never
 * saw it made): name, call site, shape, capture state, its not-tuned entry. */
void aoe_cu_first_sight(const void *fn, const aoe_cu_launch *l);
/* The call site of the CUDA call being made, into out (one stack walk at a
 * time: first sights only). */
void aoe_cu_callsite(char *out, size_t len);
/* CU_STREAM_CAPTURE_STATUS_* of stream s (NONE when the driver cannot say):
 * first sights only. */
int aoe_cu_capture_status(CUstream s, int per_thread);
void aoe_cu_launch_atfork_child(void);

/* ---- graph replays (cuda_graph.c): counted, listed as not tunable ---- */
void aoe_cu_graph_flush_counts(void);
void aoe_cu_graph_atfork_child(void);

/* ---- the device (cuda_device.c) ---- */
/* The interned CUDA fingerprint of the current device, or NULL (said once). */
const char *aoe_cu_current_fingerprint(void);
void aoe_cu_device_atfork_child(void);

#endif
