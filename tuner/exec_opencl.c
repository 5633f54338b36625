/* The OpenCL executor: the primitives of exec.h for jobs whose runtime is
 * "opencl" (the run protocol that drives them is tuner/run_protocol.c). Every
 * buffer lives inside a larger allocation with guard zones before and after
 * it (the kernel sees a sub-buffer), and a device-side copy of its initial
 * contents restores it before each run. The cache flush writes a scratch
 * buffer larger than the device's global-memory cache. The OpenCL library is
 * loaded when a job is opened (exec_opencl_api.h), so only a worker that
 * replays a job needs one installed. */
#include "store/fingerprint.h"
#include "tuner/exec.h"
#include "tuner/exec_opencl_api.h"
#include "tuner/exec_opencl_errors.h"
#include "tuner/exec_opencl_image.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int is_buf;
    uint64_t size;  /* bytes the kernel sees */
    uint64_t front; /* guard bytes before the data (aligned to the device's base alignment) */
    uint64_t back;  /* guard bytes after it */
    cl_mem whole, view, pristine;
    aoe_cl_image image; /* an image argument's (then whole/view/pristine are NULL, front 0) */
    cl_sampler sampler; /* a sampler argument's, made at open */
} arg_buf;

struct aoe_exec {
    const aoe_job *job;
    cl_device_id dev;
    cl_context ctx;
    cl_command_queue q;
    uint64_t align;
    arg_buf *bufs;
    cl_mem flush;
    size_t flush_size;
    uint8_t guard;   /* the guard byte reset wrote last (what an image's guards read as) */
    uint8_t *poison; /* the poison bytes written into images (the largest image's size) */
    uint64_t poison_size;
    int poison_byte; /* what poison holds, -1: not yet filled */
};

struct aoe_exec_program {
    cl_program prog;
    cl_kernel k; /* created, with the job's arguments set, at the first run */
};

/* "what: CL_NAME (code)" into detail; the status of that failure. */
static aoe_exec_status cl_fail(cl_int rc, int launch, const char *what, char *detail, size_t len)
{
    if (what)
        snprintf(detail, len, "%s: %s (%d)", what, aoe_cl_err_name(rc), rc);
    else
        snprintf(detail, len, "%s (%d)", aoe_cl_err_name(rc), rc);
    return aoe_cl_status(rc, launch);
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

static void cl_close(aoe_exec *ex)
{
    if (!ex) return;
    if (ex->q) CL(clFinish)(ex->q);
    for (uint32_t i = 0; ex->bufs && i < ex->job->nargs; i++) {
        arg_buf *b = &ex->bufs[i];
        if (b->view) CL(clReleaseMemObject)(b->view);
        if (b->whole) CL(clReleaseMemObject)(b->whole);
        if (b->pristine) CL(clReleaseMemObject)(b->pristine);
        aoe_cl_image_release(&b->image);
        if (b->sampler) CL(clReleaseSampler)(b->sampler);
    }
    free(ex->poison);
    if (ex->flush) CL(clReleaseMemObject)(ex->flush);
    if (ex->q) CL(clReleaseCommandQueue)(ex->q);
    if (ex->ctx) CL(clReleaseContext)(ex->ctx);
    free(ex->bufs);
    free(ex);
}

/* What job format 2 can say and OpenCL cannot run: refused before anything
 * is loaded, so it is never tuned against a launch that did not happen. */
static const char *cl_unsupported(const aoe_job *job)
{
    if (job->op != AOE_OP_KERNEL) return "a library call";
    if (job->launch_kind != AOE_LAUNCH_GLOBAL_LOCAL) return "a grid/block launch";
    if (job->dynamic_shared_bytes) return "dynamic shared memory";
    aoe_job_prog_kind k = aoe_job_program_kind(job);
    if (k != AOE_JOB_PROG_SOURCE && k != AOE_JOB_PROG_BINARY) return "a PTX or cubin program";
    return NULL;
}

/* What image and sampler arguments need at open: a device with image
 * support, the samplers made once, the poison scratch sized. */
static aoe_exec_status open_images(aoe_exec *ex, char *detail, size_t len)
{
    const aoe_job *job = ex->job;
    int images = 0;
    ex->poison_byte = -1;
    for (uint32_t i = 0; i < job->nargs; i++) {
        const aoe_job_arg *a = &job->args[i];
        if (a->kind == AOE_JOB_ARG_IMAGE && a->size > ex->poison_size) ex->poison_size = a->size;
        images |= a->kind == AOE_JOB_ARG_IMAGE || a->kind == AOE_JOB_ARG_SAMPLER;
    }
    if (!images) return AOE_EXEC_OK;
    cl_bool support = CL_FALSE;
    CL(clGetDeviceInfo)(ex->dev, CL_DEVICE_IMAGE_SUPPORT, sizeof support, &support, NULL);
    if (!support) {
        snprintf(detail, len,
                 "the device has no image support (CL_DEVICE_IMAGE_SUPPORT false): "
                 "cannot replay image or sampler arguments");
        return AOE_EXEC_UNSUPPORTED;
    }
    for (uint32_t i = 0; i < job->nargs; i++) {
        if (job->args[i].kind != AOE_JOB_ARG_SAMPLER) continue;
        cl_int rc;
        ex->bufs[i].sampler = aoe_cl_sampler_create(ex->ctx, &job->args[i].sampler, &rc);
        if (!ex->bufs[i].sampler) {
            snprintf(detail, len,
                     "args[%u]: creating the sampler (normalized %u, addressing 0x%x, "
                     "filter 0x%x): %s (%d)",
                     i, job->args[i].sampler.normalized, job->args[i].sampler.addressing,
                     job->args[i].sampler.filter, aoe_cl_err_name(rc), rc);
            return rc == CL_INVALID_VALUE ? AOE_EXEC_BAD_JOB : aoe_cl_status(rc, 0);
        }
    }
    return AOE_EXEC_OK;
}

static aoe_exec_status cl_open(const aoe_job *job, aoe_exec **out, char *detail, size_t len)
{
    cl_int rc = CL_SUCCESS;
    aoe_exec_status st;
    *out = NULL;
    const char *what = cl_unsupported(job);
    if (what) {
        snprintf(detail, len, "the OpenCL executor cannot replay %s", what);
        return AOE_EXEC_UNSUPPORTED;
    }
    if ((st = aoe_cl_image_check(job, detail, len))) return st;
    aoe_exec *ex = calloc(1, sizeof *ex);
    if (!ex) {
        snprintf(detail, len, "out of memory");
        return AOE_EXEC_OUT_OF_MEMORY;
    }
    ex->job = job;
    if (aoe_cl_api_load(detail, len)) {
        st = AOE_EXEC_NO_RUNTIME;
        goto fail;
    }
    ex->dev = find_device(job->fingerprint ? job->fingerprint : "", detail, len);
    if (!ex->dev) {
        st = AOE_EXEC_NO_DEVICE;
        goto fail;
    }
    ex->ctx = CL(clCreateContext)(NULL, 1, &ex->dev, NULL, NULL, &rc);
    if (rc != CL_SUCCESS) {
        st = cl_fail(rc, 0, "clCreateContext", detail, len);
        goto fail;
    }
    cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    ex->q = CL(clCreateCommandQueueWithProperties)(ex->ctx, ex->dev, props, &rc);
    if (rc != CL_SUCCESS) {
        st = cl_fail(rc, 0, "creating a profiling queue", detail, len);
        goto fail;
    }
    cl_uint align_bits = 1024;
    CL(clGetDeviceInfo)
    (ex->dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL);
    ex->align = align_bits / 8 ? align_bits / 8 : 128;
    ex->bufs = calloc(job->nargs ? job->nargs : 1, sizeof *ex->bufs);
    if (!ex->bufs) {
        snprintf(detail, len, "out of memory");
        st = AOE_EXEC_OUT_OF_MEMORY;
        goto fail;
    }
    /* Cache flush: write more than the global-memory cache holds. */
    cl_ulong cache = 0;
    CL(clGetDeviceInfo)(ex->dev, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof cache, &cache, NULL);
    ex->flush_size = (size_t)(cache + cache / 2);
    if (ex->flush_size < (1u << 20)) ex->flush_size = 1u << 20;
    if (ex->flush_size > (64u << 20)) ex->flush_size = 64u << 20;
    ex->flush_size &= ~(size_t)127;
    ex->flush = CL(clCreateBuffer)(ex->ctx, CL_MEM_READ_WRITE, ex->flush_size, NULL, &rc);
    if (rc != CL_SUCCESS) ex->flush = NULL; /* measure without flushing rather than fail */
    if ((st = open_images(ex, detail, len))) goto fail;
    *out = ex;
    return AOE_EXEC_OK;
fail:
    cl_close(ex);
    return st;
}

static aoe_exec_status cl_buffer(aoe_exec *ex, uint32_t arg, uint64_t size, uint64_t guard,
                                 const uint8_t *init, uint64_t *front, char *detail, size_t len)
{
    arg_buf *b = &ex->bufs[arg];
    cl_int rc;
    b->is_buf = 1;
    b->size = size;
    if (ex->job->args[arg].kind == AOE_JOB_ARG_IMAGE) { /* no guard zone: see exec_opencl_image.c */
        b->front = *front = 0;
        b->back = guard;
        return aoe_cl_image_create(ex->ctx, &ex->job->args[arg], init, &b->image, detail, len);
    }
    b->front = (guard + ex->align - 1) / ex->align * ex->align;
    b->back = guard;
    *front = b->front;
    b->whole = CL(clCreateBuffer)(ex->ctx, CL_MEM_READ_WRITE, b->front + size + guard, NULL, &rc);
    if (rc != CL_SUCCESS) return cl_fail(rc, 0, NULL, detail, len);
    cl_buffer_region reg = {b->front, size};
    b->view =
        CL(clCreateSubBuffer)(b->whole, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &reg, &rc);
    if (rc != CL_SUCCESS) return cl_fail(rc, 0, NULL, detail, len);
    /* CL_MEM_COPY_HOST_PTR copies at once: init is never written */
    b->pristine = CL(clCreateBuffer)(ex->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, size,
                                     (void *)init, &rc);
    if (rc != CL_SUCCESS) return cl_fail(rc, 0, NULL, detail, len);
    return AOE_EXEC_OK;
}

static char *build_log(cl_program p, cl_device_id d)
{
    size_t n = 0;
    CL(clGetProgramBuildInfo)(p, d, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
    char *log = calloc(1, n + 1);
    if (log && n) CL(clGetProgramBuildInfo)(p, d, CL_PROGRAM_BUILD_LOG, n, log, NULL);
    return log;
}

/* Builds the job's program with options (thread-safe: nothing shared is written). */
static aoe_exec_status cl_build(aoe_exec *ex, const char *options, aoe_exec_program **out,
                                char *detail, size_t len)
{
    const aoe_job *job = ex->job;
    cl_int rc;
    cl_program p;
    *out = NULL;
    if (job->source) {
        const char *src = job->source;
        p = CL(clCreateProgramWithSource)(ex->ctx, 1, &src, NULL, &rc);
    } else {
        const unsigned char *bin = job->binary;
        size_t blen = job->binary_size;
        cl_int st = CL_SUCCESS;
        p = CL(clCreateProgramWithBinary)(ex->ctx, 1, &ex->dev, &blen, &bin, &st, &rc);
        if (rc == CL_SUCCESS) rc = st;
    }
    if (rc != CL_SUCCESS) {
        if (p) CL(clReleaseProgram)(p);
        cl_fail(rc, 0, "creating the program", detail, len);
        return aoe_cl_build_status(rc);
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
        snprintf(detail, len, "%s: %.700s", aoe_cl_err_name(rc),
                 log && *log ? log : "no build log");
        free(log);
        CL(clReleaseProgram)(p);
        return aoe_cl_build_status(rc);
    }
    aoe_exec_program *prog = calloc(1, sizeof *prog);
    if (!prog) {
        CL(clReleaseProgram)(p);
        snprintf(detail, len, "out of memory");
        return AOE_EXEC_OUT_OF_MEMORY;
    }
    prog->prog = p;
    *out = prog;
    return AOE_EXEC_OK;
}

static void query_limits(aoe_exec *ex, cl_kernel k, aoe_device_limits *lim)
{
    size_t dev_wg = 0, items[3] = {0, 0, 0}, kwg = 0, pref = 0, reqd[3] = {0, 0, 0};
    CL(clGetDeviceInfo)(ex->dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof dev_wg, &dev_wg, NULL);
    CL(clGetDeviceInfo)(ex->dev, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof items, items, NULL);
    CL(clGetKernelWorkGroupInfo)(k, ex->dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof kwg, &kwg, NULL);
    CL(clGetKernelWorkGroupInfo)
    (k, ex->dev, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, sizeof pref, &pref, NULL);
    CL(clGetKernelWorkGroupInfo)
    (k, ex->dev, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof reqd, reqd, NULL);
    memset(lim, 0, sizeof *lim);
    lim->max_work_group_size = kwg && kwg < dev_wg ? kwg : dev_wg;
    for (int i = 0; i < 3; i++) {
        lim->max_work_item_sizes[i] = items[i];
        lim->reqd_work_group_size[i] = reqd[i];
    }
    lim->preferred_multiple = pref;
}

static int cl_job_read_only(const aoe_job *job, uint32_t arg)
{
    return arg < job->nargs && (job->args[arg].flags & CL_MEM_READ_ONLY) != 0;
}

/* Buffers the program declared read-only: created CL_MEM_READ_ONLY, or
 * passed to a const or __constant parameter (argument info is best effort:
 * programs from binaries may not have it). */
static void mark_read_only(aoe_exec *ex, cl_kernel k, uint8_t *read_only)
{
    for (uint32_t i = 0; i < ex->job->nargs; i++) {
        if (ex->job->args[i].kind == AOE_JOB_ARG_IMAGE) { /* created or declared read-only */
            cl_kernel_arg_access_qualifier acc = 0;
            read_only[i] =
                (uint8_t)(cl_job_read_only(ex->job, i) ||
                          (CL(clGetKernelArgInfo)(k, i, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof acc,
                                                  &acc, NULL) == CL_SUCCESS &&
                           acc == CL_KERNEL_ARG_ACCESS_READ_ONLY));
            continue;
        }
        if (ex->job->args[i].kind != AOE_JOB_ARG_BUFFER) continue;
        cl_kernel_arg_address_qualifier aq = 0;
        cl_kernel_arg_type_qualifier tq = 0;
        int ro = cl_job_read_only(ex->job, i);
        if (CL(clGetKernelArgInfo)(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof aq, &aq, NULL) ==
                CL_SUCCESS &&
            aq == CL_KERNEL_ARG_ADDRESS_CONSTANT)
            ro = 1;
        if (CL(clGetKernelArgInfo)(k, i, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof tq, &tq, NULL) ==
                CL_SUCCESS &&
            (tq & CL_KERNEL_ARG_TYPE_CONST))
            ro = 1;
        read_only[i] = (uint8_t)ro;
    }
}

static void cl_release(aoe_exec *ex, aoe_exec_program *p);

/* Element types of the buffer arguments from kernel k's declared type names:
 * 0, or -1 when the runtime kept no argument info. */
static int read_types(const aoe_job *job, cl_kernel k, uint8_t *elem)
{
    for (uint32_t i = 0; i < job->nargs; i++) {
        if (job->args[i].kind != AOE_JOB_ARG_BUFFER) continue;
        char type[64] = "";
        cl_int rc =
            CL(clGetKernelArgInfo)(k, i, CL_KERNEL_ARG_TYPE_NAME, sizeof type - 1, type, NULL);
        if (rc == CL_KERNEL_ARG_INFO_NOT_AVAILABLE) return -1;
        if (rc == CL_SUCCESS) elem[i] = (uint8_t)aoe_elem_of_type_name(type, job->args[i].size);
    }
    return 0;
}

/* Element types for the buffers the job leaves untyped. A program built
 * without -cl-kernel-arg-info may not keep them (PoCL): then, for a program
 * from source, one more build with that option (metadata only) answers. */
static void declared_types(aoe_exec *ex, cl_kernel k, uint8_t *elem)
{
    const aoe_job *job = ex->job;
    int need = 0;
    for (uint32_t i = 0; i < job->nargs; i++)
        need |= job->args[i].kind == AOE_JOB_ARG_BUFFER && job->args[i].elem == AOE_ELEM_BYTES;
    if (!need || read_types(job, k, elem) == 0 || !job->source) return;
    size_t olen = strlen(job->options ? job->options : "") + 24;
    char *opts = malloc(olen), why[256];
    aoe_exec_program *extra = NULL;
    if (opts) snprintf(opts, olen, "%s -cl-kernel-arg-info", job->options ? job->options : "");
    if (opts && cl_build(ex, opts, &extra, why, sizeof why) == AOE_EXEC_OK) {
        cl_int rc;
        cl_kernel ek = CL(clCreateKernel)(extra->prog, job->kernel_name, &rc);
        if (rc == CL_SUCCESS) {
            read_types(job, ek, elem);
            CL(clReleaseKernel)(ek);
        }
        cl_release(ex, extra);
    }
    free(opts);
}

static aoe_exec_status cl_inspect(aoe_exec *ex, aoe_exec_program *p, aoe_exec_info *info,
                                  char *detail, size_t len)
{
    const char *name = ex->job->kernel_name ? ex->job->kernel_name : "";
    cl_int rc;
    cl_kernel k = CL(clCreateKernel)(p->prog, name, &rc);
    if (rc != CL_SUCCESS) {
        snprintf(detail, len, "kernel '%s': %s (%d)", name, aoe_cl_err_name(rc), rc);
        return aoe_cl_status(rc, 0);
    }
    query_limits(ex, k, &info->limits);
    cl_device_type type = 0;
    if (CL(clGetDeviceInfo)(ex->dev, CL_DEVICE_TYPE, sizeof type, &type, NULL) == CL_SUCCESS)
        info->host_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
    if (info->read_only) mark_read_only(ex, k, info->read_only);
    if (info->elem) declared_types(ex, k, info->elem);
    CL(clReleaseKernel)(k);
    return AOE_EXEC_OK;
}

/* The poison bytes an image is overwritten with (clEnqueueFillImage takes a
 * colour, not bytes). */
static const uint8_t *image_poison(aoe_exec *ex, uint8_t poison)
{
    if (!ex->poison && !(ex->poison = malloc(ex->poison_size ? ex->poison_size : 1))) return NULL;
    if (ex->poison_byte != poison) memset(ex->poison, poison, ex->poison_size);
    ex->poison_byte = poison;
    return ex->poison;
}

static aoe_exec_status cl_reset(aoe_exec *ex, const uint8_t *poisoned, uint8_t poison, int guard,
                                char *detail, size_t len)
{
    cl_int rc = CL_SUCCESS;
    if (guard >= 0) ex->guard = (uint8_t)guard;
    for (uint32_t i = 0; i < ex->job->nargs && rc == CL_SUCCESS; i++) {
        arg_buf *b = &ex->bufs[i];
        if (!b->is_buf) continue;
        if (b->image.img) {
            const uint8_t *bytes = poisoned && poisoned[i] ? image_poison(ex, poison) : NULL;
            if (poisoned && poisoned[i] && !bytes) {
                snprintf(detail, len, "out of host memory for the image poison");
                return AOE_EXEC_OUT_OF_MEMORY;
            }
            rc = aoe_cl_image_reset(ex->q, &b->image, bytes);
            continue;
        }
        if (poisoned && poisoned[i])
            rc = fill(ex->q, b->view, poison, 0, b->size);
        else
            rc = CL(clEnqueueCopyBuffer)(ex->q, b->pristine, b->view, 0, 0, b->size, 0, NULL, NULL);
        if (guard >= 0 && rc == CL_SUCCESS) rc = fill(ex->q, b->whole, (uint8_t)guard, 0, b->front);
        if (guard >= 0 && rc == CL_SUCCESS)
            rc = fill(ex->q, b->whole, (uint8_t)guard, b->front + b->size, b->back);
    }
    return rc == CL_SUCCESS ? AOE_EXEC_OK : cl_fail(rc, 0, NULL, detail, len);
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
        case AOE_JOB_ARG_IMAGE:
            rc = CL(clSetKernelArg)(k, i, sizeof(cl_mem), &ex->bufs[i].image.img);
            break;
        case AOE_JOB_ARG_SAMPLER:
            rc = CL(clSetKernelArg)(k, i, sizeof(cl_sampler), &ex->bufs[i].sampler);
            break;
        default:
            rc = CL(clSetKernelArg)(k, i, sizeof(cl_mem), NULL);
            break;
        }
        if (rc != CL_SUCCESS) return rc;
    }
    return CL_SUCCESS;
}

static aoe_exec_status cl_run(aoe_exec *ex, aoe_exec_program *p, const aoe_exec_launch *l,
                              double *device_us, char *detail, size_t len)
{
    cl_int rc;
    if (!p->k) {
        p->k = CL(clCreateKernel)(p->prog, ex->job->kernel_name, &rc);
        if (rc != CL_SUCCESS) {
            p->k = NULL;
            return cl_fail(rc, 0, "clCreateKernel", detail, len);
        }
        if ((rc = set_args(ex, p->k)) != CL_SUCCESS) {
            CL(clReleaseKernel)(p->k);
            p->k = NULL;
            return cl_fail(rc, 0, "clSetKernelArg", detail, len);
        }
    }
    size_t global[3] = {1, 1, 1}, local[3] = {0, 0, 0};
    for (uint32_t d = 0; d < l->work_dim && d < 3; d++) {
        global[d] = (size_t)l->global[d];
        local[d] = (size_t)l->local[d];
    }
    cl_event ev = NULL;
    rc = CL(clEnqueueNDRangeKernel)(ex->q, p->k, l->work_dim, NULL, global,
                                    l->has_local ? local : NULL, 0, NULL, device_us ? &ev : NULL);
    int launch = rc != CL_SUCCESS; /* the launch itself was rejected */
    if (rc == CL_SUCCESS) rc = device_us ? CL(clWaitForEvents)(1, &ev) : CL(clFinish)(ex->q);
    if (rc == CL_SUCCESS && device_us) {
        cl_ulong start = 0, end = 0;
        rc =
            CL(clGetEventProfilingInfo)(ev, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL);
        if (rc == CL_SUCCESS)
            rc = CL(clGetEventProfilingInfo)(ev, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
        *device_us = end > start ? (double)(end - start) / 1000.0 : 0;
    }
    if (ev) CL(clReleaseEvent)(ev);
    if (rc == CL_SUCCESS) return AOE_EXEC_OK;
    CL(clFinish)(ex->q);
    return cl_fail(rc, launch, NULL, detail, len);
}

static void cl_flush(aoe_exec *ex, unsigned round)
{
    if (ex->flush) fill(ex->q, ex->flush, (uint8_t)round, 0, ex->flush_size);
}

static aoe_exec_status cl_read(aoe_exec *ex, uint32_t arg, uint8_t *data, uint8_t *front,
                               uint8_t *back, char *detail, size_t len)
{
    arg_buf *b = &ex->bufs[arg];
    if (b->image.img) { /* packed contents; its guards read as reset left them */
        memset(front, ex->guard, b->front);
        memset(back, ex->guard, b->back);
        cl_int rc = aoe_cl_image_read(ex->q, &b->image, data);
        return rc == CL_SUCCESS ? AOE_EXEC_OK : cl_fail(rc, 0, "reading the image", detail, len);
    }
    cl_int rc = CL(clEnqueueReadBuffer)(ex->q, b->view, CL_TRUE, 0, b->size, data, 0, NULL, NULL);
    if (rc == CL_SUCCESS)
        rc = CL(clEnqueueReadBuffer)(ex->q, b->whole, CL_TRUE, 0, b->front, front, 0, NULL, NULL);
    if (rc == CL_SUCCESS)
        rc = CL(clEnqueueReadBuffer)(ex->q, b->whole, CL_TRUE, b->front + b->size, b->back, back, 0,
                                     NULL, NULL);
    return rc == CL_SUCCESS ? AOE_EXEC_OK : cl_fail(rc, 0, NULL, detail, len);
}

static void cl_release(aoe_exec *ex, aoe_exec_program *p)
{
    (void)ex;
    if (!p) return;
    if (p->k) CL(clReleaseKernel)(p->k);
    if (p->prog) CL(clReleaseProgram)(p->prog);
    free(p);
}

const aoe_exec_ops aoe_exec_opencl = {.version = AOE_EXEC_OPS_VERSION,
                                      .runtime = "opencl",
                                      .open = cl_open,
                                      .buffer = cl_buffer,
                                      .build = cl_build,
                                      .inspect = cl_inspect,
                                      .reset = cl_reset,
                                      .run = cl_run,
                                      .flush = cl_flush,
                                      .read = cl_read,
                                      .release = cl_release,
                                      .close = cl_close,
                                      .job_read_only = cl_job_read_only,
                                      .image_elem = aoe_cl_image_elem};
