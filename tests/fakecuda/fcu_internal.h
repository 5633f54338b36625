/* Shared state of the fake CUDA driver (tests/fakecuda): the one device as
 * the environment describes it, the current context, the simulated clock. */
#ifndef FCU_INTERNAL_H
#define FCU_INTERNAL_H

#include <cuda.h>
#include <stddef.h>
#include <stdint.h>

#define FCU_EXPORT __attribute__((visibility("default")))

typedef struct {
    char name[256];
    int sms, cc_major, cc_minor, driver;
    int devices; /* 0 or 1 */
    uint64_t mem_bytes, l2_bytes;
} fcu_device;

/* The device, read from the environment once (FAKECUDA_*). */
const fcu_device *fcu_dev(void);
/* CUDA_SUCCESS after cuInit, else CUDA_ERROR_NOT_INITIALIZED. */
CUresult fcu_initialised(void);
/* cuInit done and a context current on this thread (CUDA_ERROR_INVALID_CONTEXT). */
CUresult fcu_need_context(void);
/* Whether [p, p+n) lies inside one live allocation. */
int fcu_valid_range(CUdeviceptr p, size_t n);
/* Simulated microseconds: the fake's own clock plus the fake cuBLAS ones. */
double fcu_clock_now_us(void);

#endif
