/* NVRTC as the CUDA kernel executor uses it (tuner/exec_cuda.c): the library
 * loaded with dlopen (the one the job names, else the usual sonames) and one
 * compile of the job's program into a CUBIN or PTX image. */
#ifndef AOE_EXEC_CUDA_NVRTC_H
#define AOE_EXEC_CUDA_NVRTC_H

#include "tuner/exec_status.h"

#include <nvrtc.h>
#include <stddef.h>

#define AOE_NVRTC_FUNCS(X)                                                                         \
    X(nvrtcCreateProgram)                                                                          \
    X(nvrtcDestroyProgram)                                                                         \
    X(nvrtcCompileProgram)                                                                         \
    X(nvrtcGetProgramLogSize)                                                                      \
    X(nvrtcGetProgramLog)                                                                          \
    X(nvrtcGetCUBINSize)                                                                           \
    X(nvrtcGetCUBIN)                                                                               \
    X(nvrtcGetPTXSize)                                                                             \
    X(nvrtcGetPTX)                                                                                 \
    X(nvrtcGetErrorString)

typedef struct {
    void *handle;
    char path[512]; /* what was loaded (a path, or the soname found) */
#define AOE_NVRTC_FIELD(f) __typeof__(&f) f;
    AOE_NVRTC_FUNCS(AOE_NVRTC_FIELD)
#undef AOE_NVRTC_FIELD
} aoe_nvrtc_api;

/* Loads NVRTC: `library` (the job's runtime_extra.nvrtc_library; NULL or ""
 * for none) when it is an absolute path to a regular file that only its
 * owner (the user or root) can write, else libnvrtc.so.13, libnvrtc.so.12,
 * libnvrtc.so by the system's search path. 0, or -1 with every attempt and
 * why it failed in err. */
int aoe_nvrtc_load(aoe_nvrtc_api *api, const char *library, char *err, size_t errlen);
void aoe_nvrtc_unload(aoe_nvrtc_api *api);

/* A program's headers (include name and text), as nvrtcCreateProgram takes them. */
typedef struct {
    int n;
    const char *const *sources;
    const char *const *names;
} aoe_nvrtc_headers;

/* Compiles source with opts (nopts entries) into a malloc'd image (*image,
 * *size bytes): the CUBIN, or the PTX (NUL included) when want_ptx or when
 * the CUBIN is empty (a virtual architecture); *is_ptx says which. BUILD_FAILED with the log's
 * first useful line in detail when the compiler rejects it; another status
 * when NVRTC itself fails. Thread-safe (each call has its own program). */
aoe_exec_status aoe_nvrtc_compile(const aoe_nvrtc_api *api, const char *source, const char *name,
                                  const aoe_nvrtc_headers *h, const char *const *opts, int nopts,
                                  int want_ptx, char **image, size_t *size, int *is_ptx,
                                  char *detail, size_t len);

#endif
