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

/* A stream: a tag with a capture state (everything runs synchronously). */
struct CUstream_st {
    unsigned flags;
    int capturing; /* between cuStreamBeginCapture and cuStreamEndCapture */
    unsigned long long capture_id;
    struct CUgraph_st *graph; /* collecting the captured launches */
};

/* A graph: the kernel launches captured into it (not replayable). */
struct CUgraph_st {
    unsigned kernel_nodes;
};

/* A stream the caller passed: NULL and the CU_STREAM_LEGACY / _PER_THREAD
 * handles are the default streams (never captured). */
static inline struct CUstream_st *fcu_stream(CUstream s)
{
    return (uintptr_t)s <= 2 ? NULL : s;
}

/* The device, read from the environment once (FAKECUDA_*). */
const fcu_device *fcu_dev(void);
/* CUDA_SUCCESS after cuInit, else CUDA_ERROR_NOT_INITIALIZED. */
CUresult fcu_initialised(void);
/* cuInit done and a context current on this thread (CUDA_ERROR_INVALID_CONTEXT). */
CUresult fcu_need_context(void);
/* The context current on this thread, or NULL. */
CUcontext fcu_current_context(void);
/* Whether [p, p+n) lies inside one live allocation. */
int fcu_valid_range(CUdeviceptr p, size_t n);
/* Simulated microseconds: the fake's own clock plus the fake cuBLAS ones. */
double fcu_clock_now_us(void);

#endif
