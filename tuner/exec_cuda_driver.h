/* The CUDA driver as the executors that run on it load it (tuner/exec_cublas*
 * for GEMM library calls, tuner/exec_cuda* for NVRTC kernels): libcuda.so.1
 * with dlopen/dlsym (aoe links no CUDA library), and the device whose
 * fingerprint is the job's, opened on its primary context. Names are looked
 * up as the driver exports them: cuda.h's macros turn cuMemAlloc into
 * cuMemAlloc_v2, and the string looked up is that expansion. */
#ifndef AOE_EXEC_CUDA_DRIVER_H
#define AOE_EXEC_CUDA_DRIVER_H

#include "jobs/job.h"
#include "tuner/exec_status.h"

#include <cuda.h>
#include <stddef.h>

#define AOE_CUDA_DRIVER_FUNCS(X)                                                                   \
    X(cuInit)                                                                                      \
    X(cuDriverGetVersion)                                                                          \
    X(cuDeviceGetCount)                                                                            \
    X(cuDeviceGet)                                                                                 \
    X(cuDeviceGetName)                                                                             \
    X(cuDeviceGetAttribute)                                                                        \
    X(cuDevicePrimaryCtxRetain)                                                                    \
    X(cuDevicePrimaryCtxRelease)                                                                   \
    X(cuCtxSetCurrent)                                                                             \
    X(cuCtxSynchronize)                                                                            \
    X(cuMemAlloc)                                                                                  \
    X(cuMemFree)                                                                                   \
    X(cuMemcpyHtoD)                                                                                \
    X(cuMemcpyDtoH)                                                                                \
    X(cuMemcpyDtoD)                                                                                \
    X(cuMemsetD8)                                                                                  \
    X(cuMemsetD32Async)                                                                            \
    X(cuEventCreate)                                                                               \
    X(cuEventDestroy)                                                                              \
    X(cuEventRecord)                                                                               \
    X(cuEventSynchronize)                                                                          \
    X(cuEventElapsedTime)                                                                          \
    X(cuModuleLoadData)                                                                            \
    X(cuModuleUnload)                                                                              \
    X(cuModuleGetFunction)                                                                         \
    X(cuFuncGetAttribute)                                                                          \
    X(cuLaunchKernel)                                                                              \
    X(cuGetErrorName)

typedef struct {
    void *handle; /* dlopen("libcuda.so.1") */
#define AOE_CUDA_DRIVER_FIELD(f) __typeof__(&f) f;
    AOE_CUDA_DRIVER_FUNCS(AOE_CUDA_DRIVER_FIELD)
#undef AOE_CUDA_DRIVER_FIELD
} aoe_cuda_driver;

/* The device an executor opened: its primary context is retained (and
 * current on the opening thread) until aoe_cuda_device_close. */
typedef struct {
    CUdevice dev;
    CUcontext ctx;
    int retained;
    int cc_major, cc_minor; /* compute capability */
} aoe_cuda_device;

/* The name a function is exported under ("cuMemAlloc_v2"). */
#define AOE_CU_NAME(f) AOE_CU_NAME_(f)
#define AOE_CU_NAME_(f) #f

/* Loads libcuda.so.1 and every function above: 0, or -1 with one line in err. */
int aoe_cuda_driver_load(aoe_cuda_driver *d, char *err, size_t errlen);
void aoe_cuda_driver_unload(aoe_cuda_driver *d);

/* "CUDA_ERROR_OUT_OF_MEMORY": the driver's name of a result. */
const char *aoe_cuda_error_name(const aoe_cuda_driver *d, CUresult r);
/* The same into out, or "CUDA error 700" where the driver has no name for it. */
void aoe_cuda_error_text(const aoe_cuda_driver *d, CUresult r, char *out, size_t len);

/* The device the job's program ran on (runtime_extra.device, written by
 * hooks/cuda_job_device.c): its UUID into uuid ("" when the job does not
 * say). A spool job with its program's settings (aoe_job_settings), queued
 * on this machine since it booted, also gives the worker its program's view
 * of the GPUs: CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER set or unset as the
 * program had them, where the tuner has the environment of whichever program
 * started it. Call in the worker, before aoe_cuda_driver_load. */
void aoe_cuda_job_device(const aoe_job *job, char uuid[33]);

/* cuInit (call it in the worker only: the tuner forks after it never), the
 * device whose fingerprint (store/fingerprint.h, as hooks/cuda_fingerprint.c
 * computes it) is `fingerprint`: the one whose UUID is `uuid` (32 hex digits;
 * "" or NULL: none) if it is visible, else the first; its primary context
 * retained and made current. AOE_EXEC_OK; NO_DEVICE ("cuda: the job is for
 * device '...', this machine has '...'") when none matches, or the status of
 * a failed call with its line in detail. */
aoe_exec_status aoe_cuda_device_open(aoe_cuda_driver *d, const char *fingerprint, const char *uuid,
                                     aoe_cuda_device *out, char *detail, size_t len);
/* Releases the primary context (nothing when it was not retained). */
void aoe_cuda_device_close(aoe_cuda_driver *d, aoe_cuda_device *dev);

#endif
