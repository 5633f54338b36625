/* Shared state of the fake CUDA driver (tests/fakecuda): the devices as the
 * environment describes them, the current context, the simulated clock. */
#ifndef FCU_INTERNAL_H
#define FCU_INTERNAL_H

#include <cuda.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>

#define FCU_EXPORT __attribute__((visibility("default")))

#define FCU_MAX_DEVICES 4

typedef struct {
    char name[FCU_MAX_DEVICES][256]; /* per physical device */
    int sms, cc_major, cc_minor, driver;
    int devices; /* physical devices, 0..FCU_MAX_DEVICES */
    uint64_t mem_bytes, l2_bytes;
} fcu_device;

/* A stream: a tag with a capture state (everything runs synchronously). */
struct CUstream_st {
    unsigned flags;
    int capturing;          /* between cuStreamBeginCapture and cuStreamEndCapture */
    int capture_mode;       /* CUstreamCaptureMode of the capture */
    atomic_int invalidated; /* an unsafe call broke the capture: EndCapture fails */
    unsigned long long capture_id;
    struct CUgraph_st *graph; /* collecting the captured launches */
};

/* A graph: the kernel launches captured into it, in order (fcu_graph.c). */
struct fcu_graph_node;
struct CUgraph_st {
    unsigned kernel_nodes, cap;
    struct fcu_graph_node *nodes;
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
/* Stream capture's rule for a potentially unsafe call (a module load, a
 * synchronous copy): while any thread captures in global mode, or this one
 * captures in a mode other than relaxed, a call from a thread whose own mode
 * (cuThreadExchangeStreamCaptureMode) is not relaxed fails and invalidates
 * those captures. CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED then, else success. */
CUresult fcu_capture_unsafe_call(void);
/* The context current on this thread, or NULL. */
CUcontext fcu_current_context(void);
/* Whether [p, p+n) lies inside one live allocation. */
int fcu_valid_range(CUdeviceptr p, size_t n);
/* What fakecuda_last_launch answers on this thread from now (a graph replay). */
void fcu_set_last_launch(const char *variant);
/* The sticky error a fake kernel reported (fcu_fault.c), CUDA_SUCCESS while
 * none: fcu_need_context answers it from then on. */
CUresult fcu_sticky(void);
void fcu_fault(int cuda_error);
/* Simulated microseconds: the fake's own clock plus the fake cuBLAS ones. */
double fcu_clock_now_us(void);
/* Device work of us microseconds issued asynchronously: the clock advances
 * and the work is queued ahead of the host until it next waits (drain). */
#define FCU_MEMSET_BYTES_PER_US 4096.0 /* an asynchronous memset's simulated speed */
void fcu_clock_queue_us(double us);
void fcu_clock_drain(void);

#endif
