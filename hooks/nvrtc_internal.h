/* Shared between the hooks/nvrtc_*.c files: the NVRTC entry points the shim
 * wraps or calls, and the program tracker the wrappers feed (its lookup for
 * the module-loading hooks is hooks/nvrtc_programs.h). Internal to
 * libaoe_hook.so; compiled only when the build has the CUDA headers
 * (AOE_HAVE_CUDA). docs/design.md, "NVRTC programs". */
#ifndef AOE_NVRTC_INTERNAL_H
#define AOE_NVRTC_INTERNAL_H

#include "hooks/nvrtc_programs.h"
#include "hooks/nvrtc_remembered.h"
#include "preload/runtime.h"

#include <nvrtc.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* ---- entry points: the wrapped ones (exported by the shim) ---- */
#define AOE_NV_WRAPPED(X)                                                                          \
    X(nvrtcCreateProgram)                                                                          \
    X(nvrtcDestroyProgram)                                                                         \
    X(nvrtcAddNameExpression)                                                                      \
    X(nvrtcCompileProgram)                                                                         \
    X(nvrtcGetCUBIN)                                                                               \
    X(nvrtcGetPTX)
/* ... and the ones only called. */
#define AOE_NV_CALLED(X)                                                                           \
    X(nvrtcGetCUBINSize)                                                                           \
    X(nvrtcGetPTXSize)                                                                             \
    X(nvrtcGetLoweredName)                                                                         \
    X(nvrtcGetErrorString)                                                                         \
    X(nvrtcGetProgramLogSize)                                                                      \
    X(nvrtcGetProgramLog)

#define AOE_NV_ENUM(fn) AOE_NVF_##fn,
enum { AOE_NV_WRAPPED(AOE_NV_ENUM) AOE_NV_CALLED(AOE_NV_ENUM) AOE_NVF_COUNT };
#undef AOE_NV_ENUM

extern const aoe_runtime aoe_runtime_nvrtc;
extern _Atomic(void *) aoe_nv_real_ptr[AOE_NVF_COUNT];
void *aoe_nv_resolve(int idx);
static inline void *aoe_nv_real(int idx)
{
    void *p = atomic_load_explicit(&aoe_nv_real_ptr[idx], memory_order_relaxed);
    return p ? p : aoe_nv_resolve(idx);
}
/* The real function fn (same prototype as nvrtc.h's), or NULL. */
#define NV_REAL(fn) ((__typeof__(&fn))aoe_nv_real(AOE_NVF_##fn))

/* One more libnvrtc of the process (hooks/nvrtc_caller.c): its entry points
 * (a missing one NULL) and its real path. */
typedef struct {
    void *fn[AOE_NVF_COUNT];
    char path[4096];
} aoe_nv_lib;
/* The libnvrtc the object whose code is at ret (a wrapper's return address)
 * is linked against, or NULL for the process's first one (aoe_nv_real). */
const aoe_nv_lib *aoe_nv_lib_of(const void *ret);
/* The library of aoe_nv_lib_of with this real path, or NULL. */
const aoe_nv_lib *aoe_nv_lib_by_path(const char *path);
void aoe_nv_caller_atfork_child(void);
static inline void *aoe_nv_fn(const aoe_nv_lib *lib, int idx)
{
    return lib ? lib->fn[idx] : aoe_nv_real(idx);
}
/* fn of lib (NULL: the process's first libnvrtc), or NULL. */
#define NV_LIB_FN(lib, fn) ((__typeof__(&fn))aoe_nv_fn(lib, AOE_NVF_##fn))

/* The real entry points (fns[AOE_NVF_*], a missing one NULL) for building
 * a variant of a program compiled with library (its nvrtc_library, NULL
 * for one compiled in this process): the process's own libnvrtc when it is
 * loaded, else library opened by its path (checked; opened once, kept).
 * 0, or -1 and why. */
int aoe_nv_real_table(const char *library, void **fns, char *why, size_t wlen);
/* Every entry point (fns[AOE_NVF_*], a missing one NULL) of the library
 * behind handle. */
void aoe_nv_table_of(void *handle, void **fns);

void *aoe_nv_wrapper_for(const char *name);
void *aoe_nv_real_for(const char *name);
void aoe_nv_atfork_child(void);

/* ---- the program tracker (nvrtc_programs.c) ----
 * Fed by the wrappers after the real call succeeded, keyed by the
 * program's handle while it lives. Cheap: one lock, copies of the
 * program's strings. */
void aoe_nv_track_create(const aoe_nv_lib *lib, nvrtcProgram prog, const char *src,
                         const char *name, int num_headers, const char *const *headers,
                         const char *const *include_names);
void aoe_nv_track_destroy(nvrtcProgram prog);
void aoe_nv_track_name_expression(nvrtcProgram prog, const char *expr);
/* Records the options of a compilation and its result; after a successful
 * one, the lowered name of each name expression (asked from NVRTC). */
void aoe_nv_track_compile(const aoe_nv_lib *lib, nvrtcProgram prog, int num_options,
                          const char *const *options, nvrtcResult result);
/* The image the program handed out (kind AOE_NVRTC_IMAGE_*), indexed by its hash. */
void aoe_nv_track_output(nvrtcProgram prog, int kind, const void *image, size_t size);
void aoe_nv_programs_atfork_child(void);
/* A program read back from a remembered file (hooks/nvrtc_remembered.h),
 * made findable by its image (hash, size) as a compiled one is; takes r's
 * strings (r is left empty). Returns it holding one reference for the
 * caller (aoe_nvrtc_program_release), or NULL (out of memory). */
const aoe_nvrtc_program *aoe_nv_track_remembered(aoe_nvrtc_remembered *r, uint64_t hash,
                                                 size_t size);

/* The tracker's bounds: programs and bytes of copied text kept. */
#define AOE_NV_MAX_PROGRAMS 16384
#define AOE_NV_MAX_BYTES ((size_t)256 << 20)

#endif
