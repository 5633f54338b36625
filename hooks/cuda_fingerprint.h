/* The CUDA fingerprint (store/fingerprint.h, aoe_fingerprint_cuda: GPU name,
 * compute capability, multiprocessor count, driver version) of the current
 * device, shared by the driver hooks (hooks/cuda*) and the cuBLAS hooks
 * (hooks/cublas*), each of which finds the driver's real entry points its own
 * way. Each device's fingerprint is computed once and interned. First sights
 * only. */
#ifndef AOE_CUDA_FINGERPRINT_H
#define AOE_CUDA_FINGERPRINT_H

#include <cuda.h>

/* The driver's real device queries. */
typedef struct {
    CUresult (*ctx_get_device)(CUdevice *);
    CUresult (*device_get)(CUdevice *, int);
    CUresult (*device_name)(char *, int, CUdevice);
    CUresult (*device_attr)(int *, CUdevice_attribute, CUdevice);
    CUresult (*driver_version)(int *);
    CUresult (*device_uuid)(CUuuid *, CUdevice); /* cuDeviceGetUuid_v2; may be NULL */
} aoe_cuda_queries;

/* The interned fingerprint of the current context's device (without one,
 * device 0, as the runtime API would pick it), or NULL with *why set. */
const char *aoe_cuda_fingerprint(const aoe_cuda_queries *q, const char **why);

/* The UUID (32 lowercase hex digits) of the device whose interned
 * fingerprint is fp: 0, or -1 when the driver did not say. */
int aoe_cuda_fingerprint_uuid(const char *fp, char hex[33]);

void aoe_cuda_fingerprint_atfork_child(void);

#endif
