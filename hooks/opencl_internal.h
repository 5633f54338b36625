/* Shared between the hooks/opencl_*.c files: tracked OpenCL objects and the
 * real entry points. Internal to libaoe_hook.so. */
#ifndef AOE_OPENCL_INTERNAL_H
#define AOE_OPENCL_INTERNAL_H

#include "launch/counters.h"
#include "launch/op_table.h"
#include "launch/ptr_table.h"
#include "launch/shape_cache.h"
#include "launch/sight.h"
#include "launch/variant.h"
#include "preload/not_tuned.h"
#include "preload/shim.h"
#include "store/opkey.h"

/* The shim wraps the deprecated entry points too (programs still call them). */
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_2_0_APIS
#include <CL/cl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* ---- real entry points: resolved once each, lazily (a Python program loads
 * libOpenCL long after the constructor). ---- */
#define AOE_CL_FUNCS(X)                                                                            \
    X(clCreateProgramWithSource)                                                                   \
    X(clCreateProgramWithBinary)                                                                   \
    X(clBuildProgram)                                                                              \
    X(clReleaseProgram)                                                                            \
    X(clCreateKernel)                                                                              \
    X(clCreateKernelsInProgram)                                                                    \
    X(clCloneKernel)                                                                               \
    X(clReleaseKernel)                                                                             \
    X(clSetKernelArg)                                                                              \
    X(clSetKernelArgSVMPointer)                                                                    \
    X(clSetKernelExecInfo)                                                                         \
    X(clCreateBuffer)                                                                              \
    X(clCreateBufferWithProperties)                                                                \
    X(clCreateSubBuffer)                                                                           \
    X(clCreateImage)                                                                               \
    X(clCreateImage2D)                                                                             \
    X(clCreateImage3D)                                                                             \
    X(clCreateImageWithProperties)                                                                 \
    X(clCreatePipe)                                                                                \
    X(clCreateSampler)                                                                             \
    X(clCreateSamplerWithProperties)                                                               \
    X(clReleaseSampler)                                                                            \
    X(clReleaseMemObject)                                                                          \
    X(clReleaseCommandQueue)                                                                       \
    X(clEnqueueNDRangeKernel)                                                                      \
    X(clEnqueueWriteBuffer)                                                                        \
    X(clEnqueueWriteBufferRect)                                                                    \
    X(clEnqueueFillBuffer)                                                                         \
    X(clEnqueueCopyBuffer)                                                                         \
    X(clEnqueueCopyBufferRect)                                                                     \
    X(clEnqueueCopyImageToBuffer)                                                                  \
    X(clEnqueueMapBuffer)                                                                          \
    X(clEnqueueWriteImage)                                                                         \
    X(clEnqueueFillImage)                                                                          \
    X(clEnqueueCopyImage)                                                                          \
    X(clEnqueueCopyBufferToImage)                                                                  \
    X(clEnqueueMapImage)                                                                           \
    X(clGetExtensionFunctionAddress)                                                               \
    X(clGetExtensionFunctionAddressForPlatform)

/* Not wrapped, only called. */
#define AOE_CL_CALLS(X)                                                                            \
    X(clGetKernelInfo)                                                                             \
    X(clGetKernelArgInfo)                                                                          \
    X(clGetProgramInfo)                                                                            \
    X(clGetMemObjectInfo)                                                                          \
    X(clGetImageInfo)                                                                              \
    X(clGetSamplerInfo)                                                                            \
    X(clEnqueueReadImage)                                                                          \
    X(clGetCommandQueueInfo)                                                                       \
    X(clGetDeviceInfo)                                                                             \
    X(clGetPlatformInfo)                                                                           \
    X(clEnqueueReadBuffer)                                                                         \
    X(clReleaseContext)                                                                            \
    X(clRetainContext)                                                                             \
    X(clRetainKernel)

#define AOE_CL_ENUM(fn) AOE_CLF_##fn,
enum { AOE_CL_FUNCS(AOE_CL_ENUM) AOE_CL_CALLS(AOE_CL_ENUM) AOE_CLF_COUNT };
#undef AOE_CL_ENUM

extern _Atomic(void *) aoe_cl_real_ptr[AOE_CLF_COUNT];
void *aoe_cl_resolve(int idx);

/* The OpenCL runtime's descriptor (opencl_runtime.c) and its entry points:
 * opencl_symbols.c (wrapper and real lookup by name), opencl_variant.c
 * (variant builds, poller thread), opencl.c (counter flush, fork reset). */
extern const aoe_runtime aoe_runtime_opencl;
void *aoe_cl_wrapper_for(const char *name);
void *aoe_cl_real_for(const char *name);
void aoe_cl_build_variants(void);
void aoe_cl_flush_counts(void);
void aoe_cl_atfork_child(void);

static inline void *aoe_cl_real(int idx)
{
    void *p = atomic_load_explicit(&aoe_cl_real_ptr[idx], memory_order_relaxed);
    return __builtin_expect(p != NULL, 1) ? p : aoe_cl_resolve(idx);
}

#define REAL(fn) ((__typeof__(&fn))aoe_cl_real(AOE_CLF_##fn))

/* The wrappers' visibility (the shim's symbols default to hidden). */
#define EXPORT __attribute__((visibility("default")))
/* A wrapper whose real function cannot be found (no runtime loaded). */
#define NO_REAL_PTR(fn, err)                                                                       \
    do {                                                                                           \
        if (!REAL(fn)) {                                                                           \
            if (err) *(err) = CL_INVALID_PLATFORM;                                                 \
            return NULL;                                                                           \
        }                                                                                          \
    } while (0)
#define NO_REAL_INT(fn)                                                                            \
    do {                                                                                           \
        if (!REAL(fn)) return CL_INVALID_PLATFORM;                                                 \
    } while (0)

/* ---- tracked objects ---- */
enum { AOE_PROG_SOURCE = 0, AOE_PROG_BINARY = 1, AOE_PROG_UNTUNED = 2 };

/* A variant program (launch/variant.h): the program rebuilt with a policy's
 * -D values. */
typedef struct aoe_cl_variant {
    aoe_variant base; /* first: the neutral list, queue and state */
    struct aoe_cl_program *prog;
    cl_program vprog;
} aoe_cl_variant;

/* A kernel object's kernel in one variant program, with the argument values
 * mirrored onto it. Created under the kernel's vlock, kept until the kernel
 * object is freed (another thread may still be launching it). */
typedef struct aoe_cl_kvar {
    struct aoe_cl_kvar *next;
    aoe_cl_variant *v;
    cl_kernel vk;
    atomic_uint_least64_t serial; /* policy it was last matched with */
    atomic_uint arg_version;      /* the kernel's arg_version mirrored onto vk */
    uint32_t versions[];          /* per argument (vlock) */
} aoe_cl_kvar;

typedef struct aoe_cl_program {
    atomic_int refs; /* the table's + one per kernel + one per queued variant */
    cl_program prog;
    cl_context ctx;
    int kind;     /* AOE_PROG_* */
    char *source; /* sources concatenated (SOURCE) */
    size_t source_len;
    unsigned char *binary; /* the first device's binary (BINARY) */
    size_t binary_len;
    aoe_hash128 hash;
    char *options; /* build options of the last successful build ("" if none) */
    cl_uint ndev;
    cl_device_id *devs;
    aoe_variant_list variants; /* of aoe_cl_variant */
} aoe_cl_program;

/* Argument state of a kernel object as the program set it. */
typedef struct {
    aoe_arg_shape shape; /* shape.bytes points at value (scalars) */
    size_t size;         /* arg_size as passed */
    int is_null;         /* arg_value was NULL */
    cl_mem mem;          /* memory object (BUFFER, IMAGE) */
    uint32_t version;    /* bumped by every clSetKernelArg on it */
    unsigned char inline_value[64];
    unsigned char *value; /* inline_value or heap copy (scalars, cl_mem) */
    size_t cap;           /* bytes allocated when value is on the heap */
} aoe_cl_arg;

typedef struct aoe_cl_kernel {
    /* Read by every launch: kept together at the start (two cache lines). */
    cl_kernel k;
    int untunable;          /* 0, or why not (AOE_NT_*): images, samplers, SVM, untracked program */
    uint32_t shape_version; /* bumped when an argument's shape changes */
    uint32_t arg_version;   /* bumped by every clSetKernelArg */
    aoe_shape_cache cache;  /* queue, global and local sizes of the last launch */
    aoe_counts counts;      /* launches, flushed into the operator */
    /* hit path */
    atomic_uint_least64_t broken_serial; /* its tuned launch was refused: use the default */
    _Atomic(aoe_cl_kvar *) vcur;         /* variant kernel last launched */
    atomic_int vlock;                    /* try-lock: matching and mirroring variant kernels */
    /* the rest: object state and first-sight work (slow_lock: one thread at
     * a time; another launching meanwhile takes the default) */
    atomic_int slow_lock;
    aoe_sight sight;    /* operators created, jobs captured */
    aoe_cl_kvar *kvars; /* every variant kernel made (vlock) */
    aoe_cl_program *prog;
    char name[128];
    cl_uint nargs;
    aoe_cl_arg *args;
    aoe_arg_shape *shapes;     /* contiguous copy for aoe_opkey_launch */
    unsigned char *arg_is_mem; /* per arg: 1 global/constant pointer, 2 local, 3 image, 4 sampler */
    /* not tuned: launches counted into its entry (set at its first launch) */
    aoe_untuned_counts untuned;
    char nt_detail[64]; /* e.g. the argument and its type */
    /* kernel part of the key, per device */
    cl_command_queue kq;
    uint64_t kpart;
    const char *fingerprint;
} aoe_cl_kernel;

extern aoe_ptr_table aoe_cl_programs; /* cl_program -> aoe_cl_program */
extern aoe_ptr_table aoe_cl_kernels;  /* cl_kernel -> aoe_cl_kernel */
extern aoe_ptr_table aoe_cl_mems;     /* cl_mem -> encoded size (see mem_value) */

extern aoe_ptr_table aoe_cl_samplers; /* cl_sampler -> aoe_cl_sampler_value */

/* cl_mem table values, by their low two bits: 01 a buffer (size << 2), 10
 * an image the shim replays (its aoe_opkey_image_extent << 2, below 2^62),
 * 11 a pipe or an image it cannot replay (why << 2, AOE_CL_OPAQUE_*). */
enum { AOE_CL_MEM_BUFFER = 1, AOE_CL_MEM_IMAGE = 2, AOE_CL_MEM_OPAQUE = 3 };
enum {
    AOE_CL_OPAQUE_PIPE = 1,
    AOE_CL_OPAQUE_IMAGE_FROM_BUFFER = 2, /* desc->buffer: a 1D buffer image or a 2D image */
    AOE_CL_OPAQUE_IMAGE_FROM_IMAGE = 3,  /* desc->mem_object: another image's pixels */
    AOE_CL_OPAQUE_IMAGE_UNKNOWN = 4      /* its descriptor could not be read */
};
static inline uintptr_t aoe_cl_mem_buffer_value(size_t size)
{
    return ((uintptr_t)size << 2) | AOE_CL_MEM_BUFFER;
}
static inline uintptr_t aoe_cl_mem_image_value(uint64_t extent)
{
    return ((uintptr_t)extent << 2) | AOE_CL_MEM_IMAGE;
}
static inline uintptr_t aoe_cl_mem_opaque_value(int why)
{
    return ((uintptr_t)why << 2) | AOE_CL_MEM_OPAQUE;
}
/* Buffers and replayable images: their contents are captured. */
static inline int aoe_cl_mem_has_contents(uintptr_t v)
{
    return (v & 3) == AOE_CL_MEM_BUFFER || (v & 3) == AOE_CL_MEM_IMAGE;
}
/* Sampler table values: the sampler's aoe_opkey_sampler_extent with a bit
 * above it, so a value is never 0. */
#define AOE_CL_SAMPLER_TAG (1ull << 62)
static inline uintptr_t aoe_cl_sampler_value(uint64_t extent)
{
    return (uintptr_t)(extent | AOE_CL_SAMPLER_TAG);
}

void aoe_cl_program_unref(aoe_cl_program *p);
/* opencl.c: remembers memory object m with its table value. */
void aoe_cl_track_mem(cl_mem m, uintptr_t value);

/* opencl_device.c: the interned fingerprint of a device. */
const char *aoe_cl_fingerprint(cl_device_id dev);
/* A released queue's handle may come back for another device: drop its
 * cached fingerprint. */
void aoe_cl_queue_forget(cl_command_queue q);
/* Forked child: re-arm the writer locks of the device and queue tables. */
void aoe_cl_device_atfork_child(void);
void aoe_cl_launch_atfork_child(void);

/* opencl.c: a kernel object launched though its creation was never seen:
 * tracked from now on as not tunable (NULL when the table is full). */
aoe_cl_kernel *aoe_cl_kernel_unseen(cl_kernel k);

/* opencl_launch.c */
aoe_op *aoe_cl_launch_slow(aoe_cl_kernel *kr, cl_command_queue q, cl_uint dim, const size_t *gws,
                           const size_t *lws);
void aoe_cl_flush_kernel_counts(aoe_cl_kernel *kr);

/* opencl_variant.c */
aoe_cl_variant *aoe_cl_variant_get(aoe_cl_program *p, const aoe_policy_entry *pol);
/* The variant kernel for pol, its arguments mirrored, or NULL (not built yet,
 * another thread is switching it: the default launch goes out). */
cl_kernel aoe_cl_variant_kernel_slow(aoe_cl_kernel *kr, const aoe_policy_entry *pol);
static inline cl_kernel aoe_cl_variant_kernel(aoe_cl_kernel *kr, const aoe_policy_entry *pol)
{
    aoe_cl_kvar *kv = atomic_load_explicit(&kr->vcur, memory_order_acquire);
    if (__builtin_expect(kv != NULL, 1) &&
        atomic_load_explicit(&kv->serial, memory_order_relaxed) == pol->serial &&
        atomic_load_explicit(&kv->arg_version, memory_order_acquire) == kr->arg_version)
        return kv->vk;
    return aoe_cl_variant_kernel_slow(kr, pol);
}
/* Kernel object freed: its variant kernels are released. */
void aoe_cl_kernel_free_variants(aoe_cl_kernel *kr);

/* opencl_capture.c: what only OpenCL can answer at an operator's first
 * sight (device limits, buffer contents); rt_ctx is an aoe_cl_launch_ctx. */
typedef struct {
    aoe_cl_kernel *kr;
    cl_command_queue q;
} aoe_cl_launch_ctx;
extern const aoe_launch_runtime aoe_cl_launch_runtime;

#endif
