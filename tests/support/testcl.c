#include "tests/support/testcl.h"

#include "store/fingerprint.h"
#include "store/opkey.h"
#include "space/space.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char tc_common_usage[] =
    "  --checksum        print checksum=<16 hex> of the output (compare runs bit for bit)\n"
    "  --repeat N        launch the kernel N times (default 1; time is the median)\n"
    "  --emit-job PATH   write this launch's tuning job to PATH\n"
    "  --options STR     the program's build options (e.g. -DTS=32)\n"
    "  --check-job PATH  after the run, read PATH back and print its search space\n";

static void die_cl(const char *what, cl_int err)
{
    fprintf(stderr, "OpenCL error %d in %s\n", (int)err, what);
    exit(1);
}

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cl_int err_ = (call);                                                                      \
        if (err_ != CL_SUCCESS) die_cl(#call, err_);                                               \
    } while (0)

long tc_parse_positive(const char *prog, const char *opt, const char *value)
{
    char *end = NULL;
    long v = value ? strtol(value, &end, 10) : 0;
    if (!value || !*value || *end || v < 1 || v > (1L << 30)) {
        fprintf(stderr, "%s: %s expects a positive integer, got \"%s\"\n", prog, opt,
                value ? value : "");
        exit(2);
    }
    return v;
}

int tc_parse_args(int argc, char **argv, tc_opts *o, const tc_size_opt *sizes,
                  void (*usage)(FILE *))
{
    for (int i = 1; i < argc; i++) {
        int rc = tc_common_option(argc, argv, &i, o);
        if (rc < 0) return 2;
        if (rc) continue;
        if (!strcmp(argv[i], "--help")) {
            usage(stdout);
            return 1;
        }
        const tc_size_opt *s = sizes;
        while (s->name && strcmp(argv[i], s->name)) s++;
        if (!s->name || i + 1 >= argc) {
            usage(stderr);
            return 2;
        }
        *s->value = tc_parse_positive(argv[0], argv[i], argv[i + 1]);
        i++;
    }
    return 0;
}

int tc_common_option(int argc, char **argv, int *i, tc_opts *o)
{
    const char *a = argv[*i];
    if (!strcmp(a, "--checksum")) {
        o->checksum = 1;
        return 1;
    }
    if (strcmp(a, "--repeat") && strcmp(a, "--emit-job") && strcmp(a, "--options") &&
        strcmp(a, "--check-job"))
        return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "%s: %s needs a value\n", argv[0], a);
        return -1;
    }
    const char *v = argv[++*i];
    if (!strcmp(a, "--repeat"))
        o->repeat = (int)tc_parse_positive(argv[0], a, v);
    else if (!strcmp(a, "--emit-job"))
        o->emit_job = v;
    else if (!strcmp(a, "--check-job"))
        o->check_job = v;
    else
        o->options = v;
    return 1;
}

static void info_string(tc_env *e, int platform, cl_uint param, char *out, size_t len)
{
    cl_int err = platform ? clGetPlatformInfo(e->platform, param, len, out, NULL)
                          : clGetDeviceInfo(e->device, param, len, out, NULL);
    if (err != CL_SUCCESS) die_cl("clGet*Info", err);
    out[len - 1] = '\0';
}

void tc_init(tc_env *e)
{
    cl_int err;
    cl_uint n = 0;
    memset(e, 0, sizeof *e);
    if (clGetPlatformIDs(1, &e->platform, &n) != CL_SUCCESS || n == 0) {
        fprintf(stderr, "no OpenCL platform found\n");
        exit(1);
    }
    if (clGetDeviceIDs(e->platform, CL_DEVICE_TYPE_ALL, 1, &e->device, &n) != CL_SUCCESS || !n) {
        fprintf(stderr, "no OpenCL device found\n");
        exit(1);
    }
    e->ctx = clCreateContext(NULL, 1, &e->device, NULL, NULL, &err);
    if (!e->ctx) die_cl("clCreateContext", err);
    cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    e->queue = clCreateCommandQueueWithProperties(e->ctx, e->device, props, &err);
    if (!e->queue) die_cl("clCreateCommandQueue", err);
    char vendor[256], name[256], driver[256];
    cl_uint cu = 0;
    info_string(e, 1, CL_PLATFORM_VENDOR, vendor, sizeof vendor);
    info_string(e, 0, CL_DEVICE_NAME, name, sizeof name);
    info_string(e, 0, CL_DRIVER_VERSION, driver, sizeof driver);
    CHECK(clGetDeviceInfo(e->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL));
    aoe_fingerprint_format(e->fingerprint, sizeof e->fingerprint, "opencl", vendor, name, driver,
                           cu);
}

void tc_release(tc_env *e)
{
    for (uint32_t i = 0; i < TC_MAX_ARGS; i++) free(e->args[i].data);
    if (e->program) clReleaseProgram(e->program);
    if (e->queue) clReleaseCommandQueue(e->queue);
    if (e->ctx) clReleaseContext(e->ctx);
    free(e->source);
    free(e->options);
    memset(e, 0, sizeof *e);
}

static char *read_kernel_file(const char *file)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", AOE_KERNEL_DIR, file);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open kernel source %s\n", path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (!s || fread(s, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "cannot read kernel source %s\n", path);
        exit(1);
    }
    s[n] = '\0';
    fclose(f);
    return s;
}

cl_kernel tc_build(tc_env *e, const char *file, const char *name, const char *options)
{
    cl_int err;
    e->source = read_kernel_file(file);
    e->options = strdup(options ? options : "");
    snprintf(e->kernel_name, sizeof e->kernel_name, "%s", name);
    const char *src = e->source;
    e->program = clCreateProgramWithSource(e->ctx, 1, &src, NULL, &err);
    if (!e->program) die_cl("clCreateProgramWithSource", err);
    err = clBuildProgram(e->program, 1, &e->device, e->options, NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[16384] = "";
        clGetProgramBuildInfo(e->program, e->device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log,
                              NULL);
        fprintf(stderr, "building %s failed (%d):\n%s\n", file, (int)err, log);
        exit(1);
    }
    cl_kernel k = clCreateKernel(e->program, name, &err);
    if (!k) die_cl("clCreateKernel", err);
    return k;
}

cl_mem tc_buffer(tc_env *e, cl_mem_flags flags, size_t size, const void *host)
{
    cl_int err;
    cl_mem m =
        clCreateBuffer(e->ctx, flags | (host ? CL_MEM_COPY_HOST_PTR : 0), size, (void *)host, &err);
    if (!m) die_cl("clCreateBuffer", err);
    return m;
}

static aoe_job_arg *record(tc_env *e, cl_uint idx)
{
    if (idx >= TC_MAX_ARGS) {
        fprintf(stderr, "argument index %u beyond %d\n", idx, TC_MAX_ARGS);
        exit(1);
    }
    if (idx + 1 > e->nargs) e->nargs = idx + 1;
    aoe_job_arg *a = &e->args[idx];
    free(a->data);
    memset(a, 0, sizeof *a);
    return a;
}

static uint8_t *copy_bytes(const void *p, size_t n)
{
    uint8_t *c = malloc(n ? n : 1);
    if (!c) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    memcpy(c, p, n);
    return c;
}

void tc_arg_scalar(tc_env *e, cl_kernel k, cl_uint idx, size_t size, const void *value)
{
    CHECK(clSetKernelArg(k, idx, size, value));
    aoe_job_arg *a = record(e, idx);
    *a = (aoe_job_arg){.kind = AOE_JOB_ARG_SCALAR,
                       .size = size,
                       .flags = 0,
                       .data = copy_bytes(value, size),
                       .elem = AOE_ELEM_BYTES};
}

void tc_arg_buffer(tc_env *e, cl_kernel k, cl_uint idx, cl_mem m, size_t size, cl_mem_flags flags,
                   const void *contents)
{
    CHECK(clSetKernelArg(k, idx, sizeof m, &m));
    aoe_job_arg *a = record(e, idx);
    *a = (aoe_job_arg){.kind = AOE_JOB_ARG_BUFFER,
                       .size = size,
                       .flags = flags,
                       .data = contents ? copy_bytes(contents, size) : NULL,
                       .elem = AOE_ELEM_BYTES};
}

void tc_arg_local(tc_env *e, cl_kernel k, cl_uint idx, size_t size)
{
    CHECK(clSetKernelArg(k, idx, size, NULL));
    aoe_job_arg *a = record(e, idx);
    *a = (aoe_job_arg){
        .kind = AOE_JOB_ARG_LOCAL, .size = size, .flags = 0, .data = NULL, .elem = AOE_ELEM_BYTES};
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double tc_run(tc_env *e, cl_kernel k, cl_uint dim, const size_t *global, const size_t *local,
              int repeat)
{
    if (repeat < 1) repeat = 1;
    double *us = malloc((size_t)repeat * sizeof *us);
    if (!us) exit(1);
    for (int r = 0; r < repeat; r++) {
        cl_event ev;
        cl_ulong t0 = 0, t1 = 0;
        CHECK(clEnqueueNDRangeKernel(e->queue, k, dim, NULL, global, local, 0, NULL, &ev));
        CHECK(clWaitForEvents(1, &ev));
        CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL));
        CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL));
        clReleaseEvent(ev);
        us[r] = (double)(t1 - t0) / 1e3;
    }
    qsort(us, (size_t)repeat, sizeof *us, cmp_double);
    double median = us[repeat / 2];
    free(us);
    e->work_dim = dim;
    e->has_local = local != NULL;
    for (cl_uint d = 0; d < dim; d++) {
        e->global[d] = global[d];
        e->local[d] = local ? local[d] : 0;
    }
    return median;
}

void tc_read(tc_env *e, cl_mem m, size_t size, void *out)
{
    CHECK(clEnqueueReadBuffer(e->queue, m, CL_TRUE, 0, size, out, 0, NULL, NULL));
}

void tc_emit_job(tc_env *e, const char *path)
{
    aoe_job job;
    memset(&job, 0, sizeof job);
    job.format = AOE_JOB_FORMAT;
    job.runtime = "opencl";
    job.fingerprint = e->fingerprint;
    job.source = e->source;
    job.options = e->options;
    job.kernel_name = e->kernel_name;
    job.work_dim = e->work_dim;
    for (uint32_t d = 0; d < e->work_dim; d++) {
        job.global[d] = e->global[d];
        job.local[d] = e->local[d];
    }
    job.has_local = e->has_local;
    job.nargs = e->nargs;
    job.args = e->args;
    job.key = aoe_job_compute_key(&job);
    if (aoe_job_write(path, &job)) {
        perror(path);
        exit(1);
    }
}

void tc_fill(float *p, size_t n, uint32_t seed, int int_valued)
{
    uint32_t s = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 17, s ^= s << 5; /* xorshift32 */
        p[i] = int_valued ? (float)(s % 17) - 8.0f : (float)(s % 10000) / 10000.0f - 0.5f;
    }
}

int tc_compare(const char *what, const float *got, const float *want, size_t n, double rel)
{
    double scale = 0;
    for (size_t i = 0; i < n; i++) scale = fmax(scale, fabs(want[i]));
    double tol = rel * (scale > 0 ? scale : 1);
    for (size_t i = 0; i < n; i++) {
        if (!(fabs((double)got[i] - want[i]) <= tol)) { /* NaN fails too */
            fprintf(stderr, "%s: MISMATCH at %zu: got %.9g, expected %.9g\n", what, i, got[i],
                    want[i]);
            return 1;
        }
    }
    return 0;
}

void tc_print_checksum(const void *data, size_t len)
{
    printf("checksum=%016llx\n", (unsigned long long)aoe_hash64_bytes(data, len, 0));
}

int tc_check_job(tc_env *e, cl_kernel k, const char *path)
{
    aoe_job job;
    char err[1024];
    if (aoe_job_read(path, &job, err, sizeof err)) {
        fprintf(stderr, "job %s rejected: %s\n", path, err);
        return 1;
    }
    int bad = 0;
    aoe_job mine;
    memset(&mine, 0, sizeof mine);
    mine.fingerprint = e->fingerprint, mine.source = e->source, mine.options = e->options;
    mine.kernel_name = e->kernel_name, mine.work_dim = e->work_dim, mine.has_local = e->has_local;
    for (uint32_t d = 0; d < e->work_dim; d++)
        mine.global[d] = e->global[d], mine.local[d] = e->local[d];
    mine.nargs = e->nargs, mine.args = e->args;
    aoe_key key = aoe_job_compute_key(&mine);
    if (strcmp(job.fingerprint, e->fingerprint) || strcmp(job.kernel_name, e->kernel_name) ||
        job.key.hi != key.hi || job.key.lo != key.lo) {
        fprintf(stderr, "job %s is not this launch's (fingerprint, kernel or key differ)\n", path);
        bad = 1;
    }
    aoe_device_limits lim;
    memset(&lim, 0, sizeof lim);
    size_t dev_max = 0, kern_max = 0, items[3] = {0, 0, 0}, reqd[3] = {0, 0, 0}, pref = 0;
    CHECK(
        clGetDeviceInfo(e->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof dev_max, &dev_max, NULL));
    CHECK(clGetDeviceInfo(e->device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof items, items, NULL));
    CHECK(clGetKernelWorkGroupInfo(k, e->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kern_max,
                                   &kern_max, NULL));
    CHECK(clGetKernelWorkGroupInfo(k, e->device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof reqd,
                                   reqd, NULL));
    CHECK(clGetKernelWorkGroupInfo(k, e->device, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                   sizeof pref, &pref, NULL));
    lim.max_work_group_size = kern_max < dev_max ? kern_max : dev_max;
    for (int d = 0; d < 3; d++) {
        lim.max_work_item_sizes[d] = items[d];
        lim.reqd_work_group_size[d] = reqd[d];
    }
    lim.preferred_multiple = pref;
    aoe_space_options opt = {AOE_KERNEL_DIR "/../../etc/tunables", NULL, false};
    aoe_space *sp = aoe_space_build(&job, &lim, &opt, err, sizeof err);
    if (!sp) {
        fprintf(stderr, "job %s: no search space: %s\n", path, err);
        bad = 1;
    } else {
        printf("job ok: %s key=%016llx%016llx space: %s\n", job.kernel_name,
               (unsigned long long)job.key.hi, (unsigned long long)job.key.lo,
               aoe_space_describe(sp));
        aoe_space_free(sp);
    }
    aoe_job_free(&job);
    return bad;
}
