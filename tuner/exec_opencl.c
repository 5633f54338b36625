/* The OpenCL executor: replays a job's kernel on the device whose fingerprint
 * the job names. Every buffer lives inside a larger allocation with guard
 * zones before and after it (the kernel sees a sub-buffer), so writes slightly
 * out of bounds are detected instead of silently corrupting memory. Between
 * timed runs inputs are restored, outputs poisoned and the cache flushed by
 * writing a scratch buffer larger than the device's global-memory cache.
 * The OpenCL library is loaded when a job is opened (exec_opencl_api.h), so
 * only a worker that replays a job needs one installed. */
#include "core/log.h"
#include "store/fingerprint.h"
#include "tuner/exec.h"
#include "tuner/exec_opencl_api.h"
#include "tuner/measure.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define GUARD_BYTES 4096u
#define CANARY 0xA7u
#define MAX_TIMED 1024
#define OPTIONS_LEN 8192

typedef struct {
    char *options;
    cl_program prog; /* NULL when the build failed */
    char *error;
} prog_entry;

typedef struct {
    int is_buf;
    uint64_t size;  /* bytes the kernel sees (>= 1) */
    uint64_t front; /* guard bytes before the data (aligned to the device's base alignment) */
    cl_mem whole, view, pristine;
    uint8_t *host;  /* contents after the verified run */
    uint8_t *init;  /* contents restored before each run */
    int init_owned; /* init was allocated here (else it is the job's own bytes) */
    int read_only;  /* the program says the kernel never writes it */
} arg_buf;

struct aoe_exec {
    const aoe_job *job;
    cl_device_id dev;
    cl_context ctx;
    cl_command_queue q;
    arg_buf *bufs;
    uint8_t *poisoned;
    uint8_t poison;
    cl_mem flush;
    size_t flush_size;
    pthread_mutex_t lock; /* guards progs */
    prog_entry *progs;
    size_t nprogs, capprogs;
    aoe_device_limits lim;
    const uint8_t **out_data;
    uint64_t *out_size;
    uint8_t *guard_scratch;
    uint64_t guard_scratch_size;
};

static const char *cl_err_name(cl_int e)
{
    switch (e) {
    case CL_SUCCESS:
        return "CL_SUCCESS";
    case CL_DEVICE_NOT_FOUND:
        return "CL_DEVICE_NOT_FOUND";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
        return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case CL_OUT_OF_RESOURCES:
        return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY:
        return "CL_OUT_OF_HOST_MEMORY";
    case CL_BUILD_PROGRAM_FAILURE:
        return "CL_BUILD_PROGRAM_FAILURE";
    case CL_MISALIGNED_SUB_BUFFER_OFFSET:
        return "CL_MISALIGNED_SUB_BUFFER_OFFSET";
    case CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST:
        return "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST";
    case CL_INVALID_VALUE:
        return "CL_INVALID_VALUE";
    case CL_INVALID_DEVICE:
        return "CL_INVALID_DEVICE";
    case CL_INVALID_BINARY:
        return "CL_INVALID_BINARY";
    case CL_INVALID_BUILD_OPTIONS:
        return "CL_INVALID_BUILD_OPTIONS";
    case CL_INVALID_PROGRAM_EXECUTABLE:
        return "CL_INVALID_PROGRAM_EXECUTABLE";
    case CL_INVALID_KERNEL_NAME:
        return "CL_INVALID_KERNEL_NAME";
    case CL_INVALID_ARG_INDEX:
        return "CL_INVALID_ARG_INDEX";
    case CL_INVALID_ARG_VALUE:
        return "CL_INVALID_ARG_VALUE";
    case CL_INVALID_ARG_SIZE:
        return "CL_INVALID_ARG_SIZE";
    case CL_INVALID_KERNEL_ARGS:
        return "CL_INVALID_KERNEL_ARGS";
    case CL_INVALID_WORK_DIMENSION:
        return "CL_INVALID_WORK_DIMENSION";
    case CL_INVALID_WORK_GROUP_SIZE:
        return "CL_INVALID_WORK_GROUP_SIZE";
    case CL_INVALID_WORK_ITEM_SIZE:
        return "CL_INVALID_WORK_ITEM_SIZE";
    case CL_INVALID_GLOBAL_WORK_SIZE:
        return "CL_INVALID_GLOBAL_WORK_SIZE";
    case CL_INVALID_BUFFER_SIZE:
        return "CL_INVALID_BUFFER_SIZE";
    default:
        return "OpenCL error";
    }
}

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        snprintf(err, errlen, __VA_ARGS__);                                                        \
        goto fail;                                                                                 \
    } while (0)

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void info_str(cl_device_id d, cl_platform_id p, cl_uint what, char *out, size_t len)
{
    out[0] = '\0';
    if (p)
        CL(clGetPlatformInfo)(p, what, len - 1, out, NULL);
    else
        CL(clGetDeviceInfo)(d, what, len - 1, out, NULL);
    out[len - 1] = '\0';
}

/* Finds the device whose fingerprint equals want; lists the others in err. */
static cl_device_id find_device(const char *want, char *err, size_t errlen)
{
    cl_platform_id plats[16];
    cl_uint np = 0;
    size_t used = 0;
    if (CL(clGetPlatformIDs)(16, plats, &np) != CL_SUCCESS || np == 0) {
        snprintf(err, errlen, "no OpenCL platform found");
        return NULL;
    }
    used = (size_t)snprintf(err, errlen,
                            "no OpenCL device matches the job's fingerprint '%s'; found:", want);
    for (cl_uint i = 0; i < np && i < 16; i++) {
        cl_device_id devs[32];
        cl_uint nd = 0;
        if (CL(clGetDeviceIDs)(plats[i], CL_DEVICE_TYPE_ALL, 32, devs, &nd) != CL_SUCCESS) continue;
        for (cl_uint j = 0; j < nd && j < 32; j++) {
            char vendor[256], name[256], driver[256], fp[AOE_FINGERPRINT_LEN];
            cl_uint cu = 0;
            info_str(NULL, plats[i], CL_PLATFORM_VENDOR, vendor, sizeof vendor);
            info_str(devs[j], NULL, CL_DEVICE_NAME, name, sizeof name);
            info_str(devs[j], NULL, CL_DRIVER_VERSION, driver, sizeof driver);
            CL(clGetDeviceInfo)(devs[j], CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
            aoe_fingerprint_format(fp, sizeof fp, "opencl", vendor, name, driver, cu);
            if (!strcmp(fp, want)) return devs[j];
            if (used < errlen) used += (size_t)snprintf(err + used, errlen - used, " '%s'", fp);
        }
    }
    return NULL;
}

/* Fills [off, off+size) with byte b using the largest pattern that fits
 * (PoCL copies the pattern element by element). */
static cl_int fill(cl_command_queue q, cl_mem m, uint8_t b, uint64_t off, uint64_t size)
{
    uint8_t pat[128];
    size_t p = 128;
    if (!size) return CL_SUCCESS;
    while (p > 1 && (off % p || size % p)) p /= 2;
    memset(pat, b, p);
    return CL(clEnqueueFillBuffer)(q, m, pat, p, off, size, 0, NULL, NULL);
}

/* Deterministic synthetic contents: float32 values in [-1, 1) (xorshift). */
static void synth(uint8_t *dst, uint64_t size, uint32_t seed)
{
    uint64_t s = 0x9E3779B97F4A7C15ull ^ ((uint64_t)seed * 0x100000001B3ull);
    uint64_t i = 0;
    for (; i + 4 <= size; i += 4) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        float f = (float)((double)(s >> 40) / (double)(1ull << 24) * 2.0 - 1.0);
        memcpy(dst + i, &f, 4);
    }
    for (; i < size; i++) dst[i] = (uint8_t)(s >> (8 * (i % 8)));
}

static cl_int make_buffer(aoe_exec *ex, uint32_t idx, uint64_t align)
{
    const aoe_job_arg *a = &ex->job->args[idx];
    arg_buf *b = &ex->bufs[idx];
    cl_int rc;
    b->is_buf = 1;
    b->size = a->size ? a->size : 1;
    b->front = (GUARD_BYTES + align - 1) / align * align;
    b->whole =
        CL(clCreateBuffer)(ex->ctx, CL_MEM_READ_WRITE, b->front + b->size + GUARD_BYTES, NULL, &rc);
    if (rc != CL_SUCCESS) return rc;
    cl_buffer_region reg = {b->front, b->size};
    b->view =
        CL(clCreateSubBuffer)(b->whole, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &reg, &rc);
    if (rc != CL_SUCCESS) return rc;
    b->host = malloc(b->size);
    if (!b->host) return CL_OUT_OF_HOST_MEMORY;
    if (a->data && a->size) {
        b->init = a->data; /* never written: no second host copy of the job's bytes */
    } else {
        b->init = malloc(b->size);
        if (!b->init) return CL_OUT_OF_HOST_MEMORY;
        b->init_owned = 1;
        synth(b->init, b->size, idx);
    }
    b->pristine = CL(clCreateBuffer)(ex->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, b->size,
                                     b->init, &rc);
    return rc;
}

static char *build_log(cl_program p, cl_device_id d)
{
    size_t n = 0;
    CL(clGetProgramBuildInfo)(p, d, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
    char *log = calloc(1, n + 1);
    if (log && n) CL(clGetProgramBuildInfo)(p, d, CL_PROGRAM_BUILD_LOG, n, log, NULL);
    return log;
}

/* Compiles the job's program with options; returns the program or NULL with a
 * malloc'ed message in *error. */
static cl_program compile(aoe_exec *ex, const char *options, char **error)
{
    const aoe_job *job = ex->job;
    cl_int rc;
    cl_program p;
    char msg[1024];
    if (job->source) {
        const char *src = job->source;
        p = CL(clCreateProgramWithSource)(ex->ctx, 1, &src, NULL, &rc);
    } else {
        const unsigned char *bin = job->binary;
        size_t len = job->binary_size;
        cl_int st = CL_SUCCESS;
        p = CL(clCreateProgramWithBinary)(ex->ctx, 1, &ex->dev, &len, &bin, &st, &rc);
        if (rc == CL_SUCCESS) rc = st;
    }
    if (rc != CL_SUCCESS) {
        snprintf(msg, sizeof msg, "build failed: creating the program: %s (%d)", cl_err_name(rc),
                 rc);
        if (p) CL(clReleaseProgram)(p);
        *error = strdup(msg);
        return NULL;
    }
    rc = CL(clBuildProgram)(p, 1, &ex->dev, options, NULL, NULL);
    if (rc != CL_SUCCESS) {
        char *log = build_log(p, ex->dev);
        char *nl = log ? strchr(log, '\n') : NULL;
        /* The first lines of the log name the error; keep the reason one line. */
        if (nl && nl[1]) {
            char *nl2 = strchr(nl + 1, '\n');
            if (nl2) *nl2 = '\0';
            *nl = ' ';
        }
        snprintf(msg, sizeof msg, "build failed: %s: %.700s", cl_err_name(rc),
                 log && *log ? log : "no build log");
        free(log);
        CL(clReleaseProgram)(p);
        *error = strdup(msg);
        return NULL;
    }
    return p;
}

static prog_entry *lookup(aoe_exec *ex, const char *options)
{
    for (size_t i = 0; i < ex->nprogs; i++)
        if (!strcmp(ex->progs[i].options, options)) return &ex->progs[i];
    return NULL;
}

static prog_entry *insert(aoe_exec *ex, const char *options, cl_program p, char *error)
{
    prog_entry *e = lookup(ex, options);
    if (e) { /* another thread built it first */
        if (p) CL(clReleaseProgram)(p);
        free(error);
        return e;
    }
    if (ex->nprogs == ex->capprogs) {
        size_t cap = ex->capprogs ? 2 * ex->capprogs : 16;
        prog_entry *n = realloc(ex->progs, cap * sizeof *n);
        if (!n) return NULL;
        ex->progs = n, ex->capprogs = cap;
    }
    e = &ex->progs[ex->nprogs++];
    e->options = strdup(options);
    e->prog = p;
    e->error = error;
    return e;
}

/* The program for these options, compiled once. */
static prog_entry *get_program(aoe_exec *ex, const char *options)
{
    pthread_mutex_lock(&ex->lock);
    prog_entry *e = lookup(ex, options);
    pthread_mutex_unlock(&ex->lock);
    if (e) return e;
    char *error = NULL;
    cl_program p = compile(ex, options, &error);
    pthread_mutex_lock(&ex->lock);
    e = insert(ex, options, p, error);
    pthread_mutex_unlock(&ex->lock);
    return e;
}

static void query_limits(aoe_exec *ex, cl_kernel k)
{
    size_t dev_wg = 0, items[3] = {0, 0, 0}, kwg = 0, pref = 0, reqd[3] = {0, 0, 0};
    CL(clGetDeviceInfo)(ex->dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof dev_wg, &dev_wg, NULL);
    CL(clGetDeviceInfo)(ex->dev, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof items, items, NULL);
    CL(clGetKernelWorkGroupInfo)(k, ex->dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof kwg, &kwg, NULL);
    CL(clGetKernelWorkGroupInfo)
    (k, ex->dev, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, sizeof pref, &pref, NULL);
    CL(clGetKernelWorkGroupInfo)
    (k, ex->dev, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof reqd, reqd, NULL);
    ex->lim.max_work_group_size = kwg && kwg < dev_wg ? kwg : dev_wg;
    for (int i = 0; i < 3; i++) {
        ex->lim.max_work_item_sizes[i] = items[i];
        ex->lim.reqd_work_group_size[i] = reqd[i];
    }
    ex->lim.preferred_multiple = pref;
}

static void cl_close(aoe_exec *ex);

/* Buffers the program declared read-only: created CL_MEM_READ_ONLY, or
 * passed to a const or __constant parameter (argument info is best effort:
 * programs from binaries may not have it). */
static void mark_read_only(aoe_exec *ex, cl_kernel k)
{
    for (uint32_t i = 0; i < ex->job->nargs; i++) {
        if (!ex->bufs[i].is_buf) continue;
        cl_kernel_arg_address_qualifier aq = 0;
        cl_kernel_arg_type_qualifier tq = 0;
        int ro = (ex->job->args[i].flags & CL_MEM_READ_ONLY) != 0;
        if (CL(clGetKernelArgInfo)(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof aq, &aq, NULL) ==
                CL_SUCCESS &&
            aq == CL_KERNEL_ARG_ADDRESS_CONSTANT)
            ro = 1;
        if (CL(clGetKernelArgInfo)(k, i, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof tq, &tq, NULL) ==
                CL_SUCCESS &&
            (tq & CL_KERNEL_ARG_TYPE_CONST))
            ro = 1;
        ex->bufs[i].read_only = ro;
    }
}

static aoe_exec *cl_open(const aoe_job *job, char *err, size_t errlen)
{
    cl_int rc = CL_SUCCESS;
    aoe_exec *ex = calloc(1, sizeof *ex);
    if (!ex) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    ex->job = job;
    pthread_mutex_init(&ex->lock, NULL);
    if (!job->source && !job->binary) FAIL("the job has neither source nor binary");
    if (job->work_dim < 1 || job->work_dim > 3) FAIL("work_dim %u is not 1..3", job->work_dim);
    if (aoe_cl_api_load(err, errlen)) goto fail;
    ex->dev = find_device(job->fingerprint ? job->fingerprint : "", err, errlen);
    if (!ex->dev) goto fail;
    ex->ctx = CL(clCreateContext)(NULL, 1, &ex->dev, NULL, NULL, &rc);
    if (rc != CL_SUCCESS) FAIL("clCreateContext: %s (%d)", cl_err_name(rc), rc);
    cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    ex->q = CL(clCreateCommandQueueWithProperties)(ex->ctx, ex->dev, props, &rc);
    if (rc != CL_SUCCESS) FAIL("creating a profiling queue: %s (%d)", cl_err_name(rc), rc);

    cl_uint align_bits = 1024;
    CL(clGetDeviceInfo)
    (ex->dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL);
    uint64_t align = align_bits / 8 ? align_bits / 8 : 128;
    ex->bufs = calloc(job->nargs ? job->nargs : 1, sizeof *ex->bufs);
    ex->poisoned = calloc(job->nargs ? job->nargs : 1, 1);
    ex->out_data = calloc(job->nargs ? job->nargs : 1, sizeof *ex->out_data);
    ex->out_size = calloc(job->nargs ? job->nargs : 1, sizeof *ex->out_size);
    if (!ex->bufs || !ex->poisoned || !ex->out_data || !ex->out_size) FAIL("out of memory");
    for (uint32_t i = 0; i < job->nargs; i++) {
        if (job->args[i].kind != AOE_JOB_ARG_BUFFER) continue;
        rc = make_buffer(ex, i, align);
        if (rc != CL_SUCCESS)
            FAIL("args[%u]: allocating %llu bytes: %s (%d)", i,
                 (unsigned long long)job->args[i].size, cl_err_name(rc), rc);
        ex->out_data[i] = ex->bufs[i].host;
        ex->out_size[i] = ex->bufs[i].size;
    }
    ex->guard_scratch_size = GUARD_BYTES + align;
    ex->guard_scratch = malloc(ex->guard_scratch_size);

    /* Cache flush: write more than the global-memory cache holds. */
    cl_ulong cache = 0;
    CL(clGetDeviceInfo)(ex->dev, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof cache, &cache, NULL);
    ex->flush_size = (size_t)(cache + cache / 2);
    if (ex->flush_size < (1u << 20)) ex->flush_size = 1u << 20;
    if (ex->flush_size > (64u << 20)) ex->flush_size = 64u << 20;
    ex->flush_size &= ~(size_t)127;
    ex->flush = CL(clCreateBuffer)(ex->ctx, CL_MEM_READ_WRITE, ex->flush_size, NULL, &rc);
    if (rc != CL_SUCCESS) ex->flush = NULL; /* measure without flushing rather than fail */

    prog_entry *e = get_program(ex, job->options ? job->options : "");
    if (!e || !e->prog) FAIL("the default program: %s", e && e->error ? e->error : "out of memory");
    cl_kernel k = CL(clCreateKernel)(e->prog, job->kernel_name ? job->kernel_name : "", &rc);
    if (rc != CL_SUCCESS)
        FAIL("kernel '%s': %s (%d)", job->kernel_name ? job->kernel_name : "", cl_err_name(rc), rc);
    query_limits(ex, k);
    mark_read_only(ex, k);
    CL(clReleaseKernel)(k);
    return ex;
fail:
    cl_close(ex);
    return NULL;
}

static void cl_limits(aoe_exec *ex, aoe_device_limits *out)
{
    *out = ex->lim;
}

static void cl_set_poison(aoe_exec *ex, const uint8_t *poisoned, uint8_t poison)
{
    for (uint32_t i = 0; i < ex->job->nargs; i++) ex->poisoned[i] = poisoned ? poisoned[i] : 0;
    ex->poison = poison;
}

typedef struct {
    aoe_exec *ex;
    char (*opts)[OPTIONS_LEN];
    size_t n, next;
    pthread_mutex_t lock;
} prep_ctx;

static void *prep_thread(void *arg)
{
    prep_ctx *c = arg;
    for (;;) {
        pthread_mutex_lock(&c->lock);
        size_t i = c->next++;
        pthread_mutex_unlock(&c->lock);
        if (i >= c->n) return NULL;
        get_program(c->ex, c->opts[i]);
    }
}

static void cl_prepare(aoe_exec *ex, const aoe_policy *pols, size_t n, int parallel)
{
    char err[256];
    prep_ctx c = {.ex = ex};
    c.opts = calloc(n ? n : 1, sizeof *c.opts);
    if (!c.opts) return;
    for (size_t i = 0; i < n; i++) {
        char o[OPTIONS_LEN];
        if (aoe_exec_variant_options(ex->job->options, &pols[i], o, sizeof o, err, sizeof err))
            continue;
        int dup = lookup(ex, o) != NULL;
        for (size_t j = 0; j < c.n && !dup; j++) dup = !strcmp(c.opts[j], o);
        if (!dup) memcpy(c.opts[c.n++], o, sizeof o);
    }
    if (parallel < 1) parallel = 1;
    if (parallel > 64) parallel = 64;
    pthread_t th[64];
    int started = 0;
    pthread_mutex_init(&c.lock, NULL);
    for (int i = 0; i < parallel && (size_t)i < c.n; i++)
        if (!pthread_create(&th[started], NULL, prep_thread, &c)) started++;
    if (!started) prep_thread(&c);
    for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
    pthread_mutex_destroy(&c.lock);
    free(c.opts);
}

/* Restores inputs, poisons outputs and (when guards) re-arms the guard zones. */
static cl_int reset_args(aoe_exec *ex, int guards)
{
    cl_int rc = CL_SUCCESS;
    for (uint32_t i = 0; i < ex->job->nargs && rc == CL_SUCCESS; i++) {
        arg_buf *b = &ex->bufs[i];
        if (!b->is_buf) continue;
        if (ex->poisoned[i])
            rc = fill(ex->q, b->view, ex->poison, 0, b->size);
        else
            rc = CL(clEnqueueCopyBuffer)(ex->q, b->pristine, b->view, 0, 0, b->size, 0, NULL, NULL);
        if (guards && rc == CL_SUCCESS) rc = fill(ex->q, b->whole, CANARY, 0, b->front);
        if (guards && rc == CL_SUCCESS)
            rc = fill(ex->q, b->whole, CANARY, b->front + b->size, GUARD_BYTES);
    }
    return rc;
}

static cl_int set_args(aoe_exec *ex, cl_kernel k)
{
    const aoe_job *job = ex->job;
    for (uint32_t i = 0; i < job->nargs; i++) {
        const aoe_job_arg *a = &job->args[i];
        cl_int rc;
        switch (a->kind) {
        case AOE_JOB_ARG_SCALAR:
            rc = CL(clSetKernelArg)(k, i, a->size, a->data);
            break;
        case AOE_JOB_ARG_BUFFER:
            rc = CL(clSetKernelArg)(k, i, sizeof(cl_mem), &ex->bufs[i].view);
            break;
        case AOE_JOB_ARG_LOCAL:
            rc = CL(clSetKernelArg)(k, i, a->size, NULL);
            break;
        default:
            rc = CL(clSetKernelArg)(k, i, sizeof(cl_mem), NULL);
            break;
        }
        if (rc != CL_SUCCESS) return rc;
    }
    return CL_SUCCESS;
}

static uint64_t count_not(const uint8_t *p, size_t n, uint8_t b)
{
    uint64_t c = 0;
    for (size_t i = 0; i < n; i++) c += p[i] != b;
    return c;
}

/* Reads every buffer back and counts overwritten guard bytes. */
static cl_int read_back(aoe_exec *ex, aoe_outputs *o)
{
    cl_int rc = CL_SUCCESS;
    o->nargs = ex->job->nargs;
    o->data = ex->out_data;
    o->size = ex->out_size;
    o->oob_bytes = 0;
    o->oob_arg = -1;
    for (uint32_t i = 0; i < ex->job->nargs && rc == CL_SUCCESS; i++) {
        arg_buf *b = &ex->bufs[i];
        if (!b->is_buf) continue;
        rc = CL(clEnqueueReadBuffer)(ex->q, b->view, CL_TRUE, 0, b->size, b->host, 0, NULL, NULL);
        if (rc != CL_SUCCESS) break;
        rc = CL(clEnqueueReadBuffer)(ex->q, b->whole, CL_TRUE, 0, b->front, ex->guard_scratch, 0,
                                     NULL, NULL);
        if (rc != CL_SUCCESS) break;
        uint64_t bad = count_not(ex->guard_scratch, b->front, CANARY);
        rc = CL(clEnqueueReadBuffer)(ex->q, b->whole, CL_TRUE, b->front + b->size, GUARD_BYTES,
                                     ex->guard_scratch, 0, NULL, NULL);
        bad += count_not(ex->guard_scratch, GUARD_BYTES, CANARY);
        if (bad && o->oob_arg < 0) o->oob_arg = (int)i;
        o->oob_bytes += bad;
    }
    return rc;
}

static int cl_measure(aoe_exec *ex, const aoe_policy *pol, const aoe_measure_opts *opt,
                      aoe_outputs_check_fn check, void *check_ctx, aoe_timing *out, char *err,
                      size_t errlen)
{
    const aoe_job *job = ex->job;
    char options[OPTIONS_LEN];
    cl_kernel k = NULL;
    cl_int rc;
    size_t global[3] = {1, 1, 1}, local[3] = {0, 0, 0};
    int has_local = 0;
    uint32_t dim = job->work_dim;
    double times[MAX_TIMED];
    int nt = 0;
    memset(out, 0, sizeof *out);

    if (pol) {
        if (aoe_exec_variant_options(job->options, pol, options, sizeof options, err, errlen))
            return -1;
        int defines = 0;
        for (uint32_t i = 0; i < pol->n_params && i < AOE_MAX_PARAMS; i++)
            defines += pol->params[i].is_define;
        if (defines && !job->source) FAIL("a program built from a binary cannot take -D values");
        dim = pol->work_dim ? pol->work_dim : job->work_dim;
        for (uint32_t d = 0; d < dim && d < 3; d++) {
            global[d] = (size_t)pol->global[d];
            local[d] = (size_t)pol->local[d];
            has_local |= local[d] != 0;
        }
    } else {
        snprintf(options, sizeof options, "%s", job->options ? job->options : "");
        for (uint32_t d = 0; d < dim; d++) {
            global[d] = (size_t)job->global[d];
            local[d] = (size_t)job->local[d];
        }
        has_local = job->has_local;
    }
    if (dim < 1 || dim > 3) FAIL("work_dim %u is not 1..3", dim);
    prog_entry *e = get_program(ex, options);
    if (!e) FAIL("out of memory");
    if (!e->prog) FAIL("%s", e->error ? e->error : "build failed");
    k = CL(clCreateKernel)(e->prog, job->kernel_name, &rc);
    if (rc != CL_SUCCESS) FAIL("clCreateKernel: %s (%d)", cl_err_name(rc), rc);
    rc = set_args(ex, k);
    if (rc != CL_SUCCESS) FAIL("clSetKernelArg: %s (%d)", cl_err_name(rc), rc);

    const size_t *lp = has_local ? local : NULL;
    int warmup = opt->warmup > 0 ? opt->warmup : 1;
    for (int w = 0; w < warmup; w++) {
        rc = reset_args(ex, w == 0);
        if (rc == CL_SUCCESS)
            rc = CL(clEnqueueNDRangeKernel)(ex->q, k, dim, NULL, global, lp, 0, NULL, NULL);
        if (rc == CL_SUCCESS) rc = CL(clFinish)(ex->q);
        if (rc != CL_SUCCESS) FAIL("running the kernel: %s (%d)", cl_err_name(rc), rc);
        if (w == 0) {
            aoe_outputs o;
            rc = read_back(ex, &o);
            if (rc != CL_SUCCESS) FAIL("reading the results: %s (%d)", cl_err_name(rc), rc);
            if (check && check(check_ctx, &o)) {
                snprintf(err, errlen, "rejected by verification");
                goto fail;
            }
        }
    }
    int max_reps = opt->max_reps > 0 ? opt->max_reps : 0;
    if (max_reps > MAX_TIMED) max_reps = MAX_TIMED;
    double t0 = now_s();
    for (int r = 0; r < max_reps; r++) {
        cl_event ev = NULL;
        rc = reset_args(ex, 0);
        if (rc == CL_SUCCESS && ex->flush)
            rc = fill(ex->q, ex->flush, (uint8_t)r, 0, ex->flush_size);
        if (rc == CL_SUCCESS)
            rc = CL(clEnqueueNDRangeKernel)(ex->q, k, dim, NULL, global, lp, 0, NULL, &ev);
        if (rc == CL_SUCCESS) rc = CL(clWaitForEvents)(1, &ev);
        cl_ulong start = 0, end = 0;
        if (rc == CL_SUCCESS)
            rc = CL(clGetEventProfilingInfo)(ev, CL_PROFILING_COMMAND_START, sizeof start, &start,
                                             NULL);
        if (rc == CL_SUCCESS)
            rc = CL(clGetEventProfilingInfo)(ev, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
        if (ev) CL(clReleaseEvent)(ev);
        if (rc != CL_SUCCESS) FAIL("timing the kernel: %s (%d)", cl_err_name(rc), rc);
        times[nt++] = end > start ? (double)(end - start) / 1000.0 : 0.001;
        double med = aoe_median(times, (size_t)nt);
        if (opt->cutoff_us > 0 && nt >= 3 && med > opt->cutoff_us) {
            out->abandoned = 1;
            break;
        }
        if (nt >= opt->min_reps && now_s() - t0 >= opt->budget_s) break;
    }
    out->runs = nt;
    out->median_us = aoe_median(times, (size_t)nt);
    out->spread_us = aoe_spread(times, (size_t)nt, out->median_us);
    CL(clReleaseKernel)(k);
    return 0;
fail:
    if (k) CL(clReleaseKernel)(k);
    if (ex->q) CL(clFinish)(ex->q);
    return -1;
}

static const uint8_t *cl_input(aoe_exec *ex, uint32_t arg)
{
    return arg < ex->job->nargs && ex->bufs[arg].is_buf ? ex->bufs[arg].init : NULL;
}

static void cl_close(aoe_exec *ex)
{
    if (!ex) return;
    if (ex->q) CL(clFinish)(ex->q);
    for (uint32_t i = 0; ex->bufs && i < ex->job->nargs; i++) {
        arg_buf *b = &ex->bufs[i];
        if (b->view) CL(clReleaseMemObject)(b->view);
        if (b->whole) CL(clReleaseMemObject)(b->whole);
        if (b->pristine) CL(clReleaseMemObject)(b->pristine);
        free(b->host);
        if (b->init_owned) free(b->init);
    }
    for (size_t i = 0; i < ex->nprogs; i++) {
        if (ex->progs[i].prog) CL(clReleaseProgram)(ex->progs[i].prog);
        free(ex->progs[i].options);
        free(ex->progs[i].error);
    }
    if (ex->flush) CL(clReleaseMemObject)(ex->flush);
    if (ex->q) CL(clReleaseCommandQueue)(ex->q);
    if (ex->ctx) CL(clReleaseContext)(ex->ctx);
    pthread_mutex_destroy(&ex->lock);
    free(ex->progs);
    free(ex->bufs);
    free(ex->poisoned);
    free(ex->out_data);
    free(ex->out_size);
    free(ex->guard_scratch);
    free(ex);
}

static int cl_read_only(aoe_exec *ex, uint32_t arg)
{
    return arg < ex->job->nargs && ex->bufs[arg].is_buf && ex->bufs[arg].read_only;
}

const aoe_exec_ops aoe_exec_opencl = {.open = cl_open,
                                      .limits = cl_limits,
                                      .set_poison = cl_set_poison,
                                      .prepare = cl_prepare,
                                      .measure = cl_measure,
                                      .input = cl_input,
                                      .close = cl_close,
                                      .read_only = cl_read_only};
