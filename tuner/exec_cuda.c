/* The CUDA kernel executor (runtime "cuda", op kernel): an NVRTC program's
 * kernel replayed on the device its fingerprint names. The driver and NVRTC
 * are loaded with dlopen when a job is opened, inside the worker (cuInit
 * happens there only). Every variant is compiled by NVRTC for the device's
 * architecture with the job's options and the variant's -D values, loaded
 * as a module; buffers live between guard zones with their initial contents
 * kept on the device; runs are timed with events after the L2 is flushed. A
 * sticky error (illegal address, launch failure, ...) makes the context
 * unusable: the variant fails, every later call fails at once, and `lost`
 * tells the worker to hand its place to a fresh one. Nothing here knows
 * whether the libraries are real or the test doubles. */
#include "core/log.h"
#include "tuner/exec.h"
#include "tuner/exec_cuda_driver.h"
#include "tuner/exec_cuda_nvrtc.h"
#include "tuner/exec_cuda_program.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ALIGN 256u               /* bytes: cuMemAlloc's alignment, kept for the data */
#define FLUSH_MAX (512ull << 20) /* the L2 flush's scratch buffer at most */

typedef struct {
    CUdeviceptr alloc, data, init; /* allocation, the kernel's data in it, reset's contents */
    uint64_t size, front, back;
} dbuf;

struct aoe_exec {
    const aoe_job *job;
    aoe_cuda_driver cu;
    aoe_nvrtc_api nv;
    aoe_cuda_extra extra;
    aoe_cuda_device dev;
    dbuf *bufs;
    CUdeviceptr flush;
    size_t flush_size;
    CUevent ev[2];
    pthread_mutex_t lost_lock; /* builds run on several threads */
    int lost;                  /* a sticky error: the context is unusable */
    char lost_why[160];
};

struct aoe_exec_program {
    CUmodule mod;
    CUfunction fn;
};

/* Errors after which the context is unusable (cuda.h: "the context cannot
 * be used, so it must be destroyed"). */
static int sticky(CUresult r)
{
    switch (r) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_CONTEXT_IS_DESTROYED:
        return 1;
    default:
        return 0;
    }
}

/* Launch configurations the driver rejects: the variant cannot run here. */
static int refused(CUresult r)
{
    return r == CUDA_ERROR_INVALID_VALUE || r == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES ||
           r == CUDA_ERROR_INVALID_IMAGE || r == CUDA_ERROR_NO_BINARY_FOR_GPU ||
           r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION || r == CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
}

/* "illegal address" from CUDA_ERROR_ILLEGAL_ADDRESS. */
static void plain_name(const char *name, char *out, size_t len)
{
    if (strncmp(name, "CUDA_ERROR_", 11)) {
        snprintf(out, len, "a sticky error");
        return;
    }
    const char *p = name + 11;
    size_t i = 0;
    for (; p[i] && i + 1 < len; i++) out[i] = p[i] == '_' ? ' ' : (char)(p[i] | 0x20);
    out[i] = '\0';
}

/* One failed driver call: its line in detail, the status; a sticky error
 * marks the context lost. `launch`: the failure was the launch's own answer
 * (a configuration the driver refuses). */
static aoe_exec_status cu_fail(aoe_exec *ex, const char *what, CUresult r, int launch, char *detail,
                               size_t len)
{
    char name[64];
    aoe_cuda_error_text(&ex->cu, r, name, sizeof name);
    if (sticky(r)) {
        char plain[64];
        plain_name(name, plain, sizeof plain);
        pthread_mutex_lock(&ex->lost_lock);
        if (!ex->lost)
            snprintf(ex->lost_why, sizeof ex->lost_why, "%s (%s at %s)", plain, name, what);
        ex->lost = 1;
        pthread_mutex_unlock(&ex->lost_lock);
        snprintf(detail, len, "%s (%s at %s); the context is lost, the worker is replaced", plain,
                 name, what);
        return AOE_EXEC_RUNTIME_ERROR;
    }
    snprintf(detail, len, "%s: %s", what, name);
    if (r == CUDA_ERROR_OUT_OF_MEMORY) return AOE_EXEC_OUT_OF_MEMORY;
    return launch && refused(r) ? AOE_EXEC_REFUSED : AOE_EXEC_RUNTIME_ERROR;
}

#define CU(ex, fn, args)                                                                           \
    do {                                                                                           \
        CUresult r_ = (ex)->cu.fn args;                                                            \
        if (r_ != CUDA_SUCCESS) return cu_fail(ex, AOE_CU_NAME(fn), r_, 0, detail, len);           \
    } while (0)

/* 1 (with why into detail) after a sticky error. */
static int is_lost(aoe_exec *ex, char *detail, size_t len)
{
    pthread_mutex_lock(&ex->lost_lock);
    int lost = ex->lost;
    if (lost) snprintf(detail, len, "the context was lost earlier: %s", ex->lost_why);
    pthread_mutex_unlock(&ex->lost_lock);
    return lost;
}

/* Every primitive after a sticky error: fails at once, saying why. */
#define NOT_LOST(ex)                                                                               \
    do {                                                                                           \
        if (is_lost(ex, detail, len)) return AOE_EXEC_RUNTIME_ERROR;                               \
    } while (0)

static void cuda_close(aoe_exec *ex)
{
    if (!ex) return;
    if (ex->dev.retained && !ex->lost) { /* a lost context frees nothing: the process ends */
        for (uint32_t i = 0; ex->bufs && i < ex->job->nargs; i++) {
            if (ex->bufs[i].alloc) ex->cu.cuMemFree(ex->bufs[i].alloc);
            if (ex->bufs[i].init) ex->cu.cuMemFree(ex->bufs[i].init);
        }
        if (ex->flush) ex->cu.cuMemFree(ex->flush);
        for (int i = 0; i < 2; i++)
            if (ex->ev[i]) ex->cu.cuEventDestroy(ex->ev[i]);
    }
    aoe_cuda_device_close(&ex->cu, &ex->dev);
    aoe_cuda_driver_unload(&ex->cu);
    aoe_nvrtc_unload(&ex->nv);
    aoe_cuda_extra_free(&ex->extra);
    free(ex->bufs);
    pthread_mutex_destroy(&ex->lost_lock);
    free(ex);
}

/* What job format 2 can say and this executor cannot replay. */
static const char *unsupported(const aoe_job *job)
{
    if (job->op != AOE_OP_KERNEL) return "a library call";
    if (job->launch_kind != AOE_LAUNCH_GRID_BLOCK) return "a global/local launch";
    if (aoe_job_program_kind(job) != AOE_JOB_PROG_SOURCE || !job->source)
        return "a program not compiled from source by NVRTC (PTX, cubin)";
    for (uint32_t i = 0; i < job->nargs; i++)
        if (job->args[i].kind == AOE_JOB_ARG_LOCAL) return "a local-memory argument";
    if (job->dynamic_shared_bytes > UINT_MAX)
        return "more dynamic shared memory than a launch takes";
    return NULL;
}

static aoe_exec_status cuda_open(const aoe_job *job, aoe_exec **out, char *detail, size_t len)
{
    char err[1024];
    aoe_exec_status st;
    *out = NULL;
    const char *what = unsupported(job);
    if (what) {
        snprintf(detail, len, "cuda: the CUDA executor cannot replay %s", what);
        return AOE_EXEC_UNSUPPORTED;
    }
    for (uint32_t i = 0; i < job->nargs; i++) /* OpenCL's objects: no CUDA launch passes one */
        if (job->args[i].kind == AOE_JOB_ARG_IMAGE || job->args[i].kind == AOE_JOB_ARG_SAMPLER) {
            snprintf(detail, len, "cuda: args[%u] is an OpenCL %s; a CUDA kernel takes none", i,
                     job->args[i].kind == AOE_JOB_ARG_IMAGE ? "image" : "sampler");
            return AOE_EXEC_BAD_JOB;
        }
    aoe_exec *ex = calloc(1, sizeof *ex);
    if (!ex || !(ex->bufs = calloc(job->nargs ? job->nargs : 1, sizeof *ex->bufs))) {
        free(ex);
        snprintf(detail, len, "cuda: out of memory");
        return AOE_EXEC_OUT_OF_MEMORY;
    }
    *out = ex;
    ex->job = job;
    pthread_mutex_init(&ex->lost_lock, NULL);
    if (aoe_cuda_extra_parse(job->runtime_extra, &ex->extra, err, sizeof err)) {
        snprintf(detail, len, "cuda: %s", err);
        return AOE_EXEC_BAD_JOB;
    }
    char uuid[33];
    aoe_cuda_job_device(job, uuid);
    if (aoe_cuda_driver_load(&ex->cu, err, sizeof err)) {
        snprintf(detail, len, "cuda: %s", err);
        return AOE_EXEC_NO_RUNTIME;
    }
    if (aoe_nvrtc_load(&ex->nv, ex->extra.nvrtc_library, err, sizeof err)) {
        snprintf(detail, len, "cuda: no NVRTC library: tried %.900s", err);
        return AOE_EXEC_NO_RUNTIME;
    }
    if ((st = aoe_cuda_device_open(&ex->cu, job->fingerprint, uuid, &ex->dev, detail, len)))
        return st;
    CU(ex, cuEventCreate, (&ex->ev[0], CU_EVENT_DEFAULT));
    CU(ex, cuEventCreate, (&ex->ev[1], CU_EVENT_DEFAULT));
    /* The flush: write twice the L2 (best effort: without it, runs are warmer). */
    int l2 = 0;
    if (ex->cu.cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, ex->dev.dev) ==
            CUDA_SUCCESS &&
        l2 > 0) {
        ex->flush_size = 2 * (size_t)l2 > FLUSH_MAX ? FLUSH_MAX : 2 * (size_t)l2;
        if (ex->cu.cuMemAlloc(&ex->flush, ex->flush_size) != CUDA_SUCCESS)
            ex->flush = 0, ex->flush_size = 0;
    }
    return AOE_EXEC_OK;
}

static aoe_exec_status cuda_buffer(aoe_exec *ex, uint32_t arg, uint64_t size, uint64_t guard,
                                   const uint8_t *init, uint64_t *front, char *detail, size_t len)
{
    NOT_LOST(ex);
    dbuf *b = &ex->bufs[arg];
    b->size = size;
    b->front = (guard + ALIGN - 1) / ALIGN * ALIGN;
    b->back = guard;
    *front = b->front;
    CU(ex, cuMemAlloc, (&b->alloc, b->front + size + guard));
    b->data = b->alloc + b->front;
    CU(ex, cuMemAlloc, (&b->init, size));
    CU(ex, cuMemcpyHtoD, (b->init, init, size));
    return AOE_EXEC_OK;
}

/* Compiles the job's program with options and loads it (thread-safe: each
 * call makes the context current on its own thread and builds its own). */
static aoe_exec_status cuda_build(aoe_exec *ex, const char *options, aoe_exec_program **out,
                                  char *detail, size_t len)
{
    const aoe_job *job = ex->job;
    char **opts = NULL, *image = NULL;
    size_t size = 0;
    int ptx = 0;
    *out = NULL;
    NOT_LOST(ex);
    CU(ex, cuCtxSetCurrent, (ex->dev.ctx));
    int n = aoe_cuda_options(job, options, ex->dev.cc_major, ex->dev.cc_minor, &opts);
    if (n < 0) {
        snprintf(detail, len, "out of memory");
        return AOE_EXEC_OUT_OF_MEMORY;
    }
    aoe_nvrtc_headers h = {ex->extra.n_headers, (const char *const *)ex->extra.header_sources,
                           (const char *const *)ex->extra.header_names};
    aoe_exec_status st =
        aoe_nvrtc_compile(&ex->nv, job->source, "aoe_variant.cu", &h, (const char *const *)opts, n,
                          ex->extra.want_ptx, &image, &size, &ptx, detail, len);
    if (!st)
        AOE_DEBUG("cuda: compiled '%s' with %d options for sm_%d%d: a %s image of %zu bytes",
                  options, n, ex->dev.cc_major, ex->dev.cc_minor, ptx ? "PTX" : "CUBIN", size);
    aoe_cuda_options_free(opts);
    if (st) return st;
    aoe_exec_program *p = calloc(1, sizeof *p);
    if (!p) {
        free(image);
        snprintf(detail, len, "out of memory");
        return AOE_EXEC_OUT_OF_MEMORY;
    }
    CUresult r = ex->cu.cuModuleLoadData(&p->mod, image);
    free(image);
    if (r == CUDA_SUCCESS) {
        r = ex->cu.cuModuleGetFunction(&p->fn, p->mod, job->kernel_name);
        if (r != CUDA_SUCCESS) {
            ex->cu.cuModuleUnload(p->mod);
            free(p);
            if (r == CUDA_ERROR_NOT_FOUND) {
                snprintf(detail, len, "the program has no kernel '%s'", job->kernel_name);
                return AOE_EXEC_BUILD_FAILED;
            }
            return cu_fail(ex, "cuModuleGetFunction", r, 0, detail, len);
        }
    } else {
        free(p);
        st = cu_fail(ex, "cuModuleLoadData", r, 1, detail, len);
        return st == AOE_EXEC_REFUSED ? AOE_EXEC_BUILD_FAILED : st;
    }
    *out = p;
    return AOE_EXEC_OK;
}

static int attr(aoe_exec *ex, CUdevice_attribute a)
{
    int v = 0;
    return ex->cu.cuDeviceGetAttribute(&v, a, ex->dev.dev) == CUDA_SUCCESS && v > 0 ? v : 0;
}

static aoe_exec_status cuda_inspect(aoe_exec *ex, aoe_exec_program *p, aoe_exec_info *info,
                                    char *detail, size_t len)
{
    const aoe_job *job = ex->job;
    int kmax = 0;
    NOT_LOST(ex);
    CU(ex, cuFuncGetAttribute, (&kmax, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, p->fn));
    int dmax = attr(ex, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    aoe_device_limits *lim = &info->limits;
    memset(lim, 0, sizeof *lim);
    lim->max_work_group_size = (uint64_t)(kmax > 0 && (!dmax || kmax < dmax) ? kmax : dmax);
    lim->max_work_item_sizes[0] = (uint64_t)attr(ex, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
    lim->max_work_item_sizes[1] = (uint64_t)attr(ex, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
    lim->max_work_item_sizes[2] = (uint64_t)attr(ex, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
    lim->preferred_multiple = (uint64_t)attr(ex, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    for (uint32_t i = 0; i < job->nargs; i++) {
        if (job->args[i].kind != AOE_JOB_ARG_BUFFER) continue;
        if (info->read_only) info->read_only[i] = (uint8_t)(job->args[i].flags & 1);
        if (info->elem) info->elem[i] = (uint8_t)job->args[i].elem;
    }
    return AOE_EXEC_OK;
}

static aoe_exec_status cuda_reset(aoe_exec *ex, const uint8_t *poisoned, uint8_t poison, int guard,
                                  char *detail, size_t len)
{
    NOT_LOST(ex);
    for (uint32_t i = 0; i < ex->job->nargs; i++) {
        dbuf *b = &ex->bufs[i];
        if (!b->alloc) continue;
        if (poisoned && poisoned[i])
            CU(ex, cuMemsetD8, (b->data, poison, b->size));
        else
            CU(ex, cuMemcpyDtoD, (b->data, b->init, b->size));
        if (guard < 0) continue;
        CU(ex, cuMemsetD8, (b->alloc, (unsigned char)guard, b->front));
        CU(ex, cuMemsetD8, (b->data + b->size, (unsigned char)guard, b->back));
    }
    return AOE_EXEC_OK;
}

/* grid = global / local per dimension (exact), block = local. */
static aoe_exec_status dims(const aoe_exec_launch *l, unsigned grid[3], unsigned block[3],
                            char *detail, size_t len)
{
    if (!l->has_local) {
        snprintf(detail, len, "a CUDA launch needs a block size");
        return AOE_EXEC_REFUSED;
    }
    for (uint32_t d = 0; d < 3; d++) {
        uint64_t g = d < l->work_dim ? l->global[d] : 1, b = d < l->work_dim ? l->local[d] : 1;
        if (!g || !b || g % b || g / b > UINT_MAX || b > UINT_MAX) {
            snprintf(detail, len,
                     "dimension %u: %llu threads are not a whole number of blocks of %llu", d,
                     (unsigned long long)g, (unsigned long long)b);
            return AOE_EXEC_REFUSED;
        }
        grid[d] = (unsigned)(g / b), block[d] = (unsigned)b;
    }
    return AOE_EXEC_OK;
}

static aoe_exec_status cuda_run(aoe_exec *ex, aoe_exec_program *p, const aoe_exec_launch *l,
                                double *device_us, char *detail, size_t len)
{
    const aoe_job *job = ex->job;
    unsigned grid[3], block[3];
    NOT_LOST(ex);
    aoe_exec_status st = dims(l, grid, block, detail, len);
    if (st) return st;
    void **params = calloc(job->nargs ? job->nargs : 1, sizeof *params);
    CUdeviceptr null_ptr = 0;
    if (!params) {
        snprintf(detail, len, "out of memory");
        return AOE_EXEC_OUT_OF_MEMORY;
    }
    for (uint32_t i = 0; i < job->nargs; i++) {
        const aoe_job_arg *a = &job->args[i];
        params[i] = a->kind == AOE_JOB_ARG_BUFFER   ? (void *)&ex->bufs[i].data
                    : a->kind == AOE_JOB_ARG_SCALAR ? (void *)a->data
                                                    : (void *)&null_ptr;
    }
    CUresult r = ex->cu.cuEventRecord(ex->ev[0], NULL);
    const char *what = AOE_CU_NAME(cuEventRecord);
    int launch = 0;
    if (r == CUDA_SUCCESS) {
        r = ex->cu.cuLaunchKernel(p->fn, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                                  (unsigned)job->dynamic_shared_bytes, NULL, params, NULL);
        what = AOE_CU_NAME(cuLaunchKernel), launch = 1;
    }
    if (r == CUDA_SUCCESS) {
        r = ex->cu.cuEventRecord(ex->ev[1], NULL);
        what = AOE_CU_NAME(cuEventRecord), launch = 0;
    }
    if (r == CUDA_SUCCESS) { /* where an asynchronous fault shows */
        r = ex->cu.cuEventSynchronize(ex->ev[1]);
        what = AOE_CU_NAME(cuEventSynchronize);
    }
    float ms = 0;
    if (r == CUDA_SUCCESS && device_us) {
        r = ex->cu.cuEventElapsedTime(&ms, ex->ev[0], ex->ev[1]);
        what = AOE_CU_NAME(cuEventElapsedTime);
    }
    free(params);
    if (r != CUDA_SUCCESS) return cu_fail(ex, what, r, launch, detail, len);
    if (device_us) *device_us = 1000.0 * (double)ms;
    return AOE_EXEC_OK;
}

static void cuda_flush(aoe_exec *ex, unsigned round)
{
    if (ex->flush && !ex->lost) ex->cu.cuMemsetD8(ex->flush, (unsigned char)round, ex->flush_size);
}

static aoe_exec_status cuda_read(aoe_exec *ex, uint32_t arg, uint8_t *data, uint8_t *front,
                                 uint8_t *back, char *detail, size_t len)
{
    dbuf *b = &ex->bufs[arg];
    NOT_LOST(ex);
    CU(ex, cuMemcpyDtoH, (data, b->data, b->size));
    CU(ex, cuMemcpyDtoH, (front, b->alloc, b->front));
    CU(ex, cuMemcpyDtoH, (back, b->data + b->size, b->back));
    return AOE_EXEC_OK;
}

static void cuda_release(aoe_exec *ex, aoe_exec_program *p)
{
    if (!p) return;
    if (p->mod && !ex->lost) ex->cu.cuModuleUnload(p->mod);
    free(p);
}

static int cuda_job_read_only(const aoe_job *job, uint32_t arg)
{
    return arg < job->nargs && job->args[arg].kind == AOE_JOB_ARG_BUFFER &&
           (job->args[arg].flags & 1);
}

static int cuda_lost(aoe_exec *ex)
{
    return ex && ex->lost;
}

const aoe_exec_ops aoe_exec_cuda = {.version = AOE_EXEC_OPS_VERSION,
                                    .runtime = "cuda",
                                    .open = cuda_open,
                                    .buffer = cuda_buffer,
                                    .build = cuda_build,
                                    .inspect = cuda_inspect,
                                    .reset = cuda_reset,
                                    .run = cuda_run,
                                    .flush = cuda_flush,
                                    .read = cuda_read,
                                    .release = cuda_release,
                                    .close = cuda_close,
                                    .job_read_only = cuda_job_read_only,
                                    .lost = cuda_lost};
