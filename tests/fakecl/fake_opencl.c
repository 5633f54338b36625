/* A fake OpenCL runtime (libOpenCL.so.1) for the overhead benchmark and
 * tests/integration/shim_fakecl.sh: just the entry points the shim and the
 * benchmark client call, with fixed platform/device strings and handles that
 * are plain structs. clEnqueueNDRangeKernel does no work but count, so the
 * launch costs a few ns and what the shim adds is what a benchmark sees.
 * At exit it prints, on stderr, one line per kernel that was launched:
 *   fakecl: kernel=NAME options="OPTS" local=L launches=N
 * (L: launches with an explicit local size) and a total line:
 *   fakecl: total_launches=N
 * Like a real compiler, the first clBuildProgram creates "compiler state"
 * that an exit handler registered then tears down; a build that runs after
 * or during the teardown aborts. FAKECL_BUILD_SLOW=STR: a clBuildProgram
 * whose options contain STR takes about 0.5 s, after creating the file
 * FAKECL_BUILD_SLOW_MARK when that is set.
 * Thread-safe as far as the shim's tests need: object creation is
 * serialised, reference and launch counts are atomic (several threads may
 * launch one kernel, tests/integration/shim_race.sh). */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define FAKE_MAX_ARGS 64

struct _cl_platform_id {
    int unused;
};
struct _cl_device_id {
    int unused;
};
struct _cl_context {
    _Atomic cl_uint refs;
};
struct _cl_command_queue {
    _Atomic cl_uint refs;
    cl_context ctx;
};
struct _cl_program {
    _Atomic cl_uint refs;
    cl_context ctx;
    char *source;
    char *options;
    int built;
};
struct _cl_kernel {
    _Atomic cl_uint refs;
    struct _cl_kernel *next; /* every kernel ever created (the report) */
    cl_program prog;
    char name[128];
    cl_uint nargs;
    cl_kernel_arg_address_qualifier qual[FAKE_MAX_ARGS];
    unsigned long long set_mask;                         /* arguments set so far */
    int ready;                                           /* every argument set */
    _Atomic unsigned long long launches, local_launches; /* several launching threads */
};
struct _cl_mem {
    _Atomic cl_uint refs;
    cl_mem_flags flags;
    size_t size;
    unsigned char *data;
};
struct _cl_event {
    _Atomic cl_uint refs;
};

static struct _cl_platform_id g_platform;
static struct _cl_device_id g_device;
static struct _cl_kernel *g_kernels;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

static const char PLATFORM_VENDOR[] = "AOE fake";
static const char PLATFORM_NAME[] = "AOE fake OpenCL";
static const char DEVICE_NAME[] = "fake-device";
static const char DRIVER_VERSION[] = "1.0-fake";
static const char CL_VERSION_STRING[] = "OpenCL 3.0 fake";

/* Copies one info value the OpenCL way (size checks, size_ret). */
static cl_int info(const void *v, size_t n, size_t size, void *out, size_t *size_ret)
{
    if (out) {
        if (size < n) return CL_INVALID_VALUE;
        memcpy(out, v, n);
    }
    if (size_ret) *size_ret = n;
    return CL_SUCCESS;
}
#define INFO_STR(s) info((s), strlen(s) + 1, size, out, size_ret)
#define INFO_VAL(T, x)                                                                             \
    do {                                                                                           \
        T v_ = (x);                                                                                \
        return info(&v_, sizeof v_, size, out, size_ret);                                          \
    } while (0)

static void set_err(cl_int *err, cl_int v)
{
    if (err) *err = v;
}

/* ------------------------------------------------------------ platform, device */

EXPORT cl_int clGetPlatformIDs(cl_uint n, cl_platform_id *plats, cl_uint *n_ret)
{
    if (plats && n) plats[0] = &g_platform;
    if (n_ret) *n_ret = 1;
    return CL_SUCCESS;
}

EXPORT cl_int clGetPlatformInfo(cl_platform_id p, cl_platform_info what, size_t size, void *out,
                                size_t *size_ret)
{
    if (p && p != &g_platform) return CL_INVALID_PLATFORM;
    switch (what) {
    case CL_PLATFORM_VENDOR:
        return INFO_STR(PLATFORM_VENDOR);
    case CL_PLATFORM_NAME:
        return INFO_STR(PLATFORM_NAME);
    case CL_PLATFORM_VERSION:
        return INFO_STR(CL_VERSION_STRING);
    case CL_PLATFORM_PROFILE:
        return INFO_STR("FULL_PROFILE");
    case CL_PLATFORM_EXTENSIONS:
        return INFO_STR("");
    default:
        return CL_INVALID_VALUE;
    }
}

EXPORT cl_int clGetDeviceIDs(cl_platform_id p, cl_device_type type, cl_uint n, cl_device_id *devs,
                             cl_uint *n_ret)
{
    (void)type;
    if (p && p != &g_platform) return CL_INVALID_PLATFORM;
    if (devs && n) devs[0] = &g_device;
    if (n_ret) *n_ret = 1;
    return CL_SUCCESS;
}

EXPORT cl_int clGetDeviceInfo(cl_device_id d, cl_device_info what, size_t size, void *out,
                              size_t *size_ret)
{
    if (d != &g_device) return CL_INVALID_DEVICE;
    switch (what) {
    case CL_DEVICE_PLATFORM:
        INFO_VAL(cl_platform_id, &g_platform);
    case CL_DEVICE_TYPE:
        INFO_VAL(cl_device_type, CL_DEVICE_TYPE_CPU);
    case CL_DEVICE_NAME:
        return INFO_STR(DEVICE_NAME);
    case CL_DEVICE_VENDOR:
        return INFO_STR(PLATFORM_VENDOR);
    case CL_DRIVER_VERSION:
        return INFO_STR(DRIVER_VERSION);
    case CL_DEVICE_VERSION:
        return INFO_STR(CL_VERSION_STRING);
    case CL_DEVICE_OPENCL_C_VERSION:
        return INFO_STR("OpenCL C 1.2 fake");
    case CL_DEVICE_EXTENSIONS:
        return INFO_STR("");
    case CL_DEVICE_PROFILE:
        return INFO_STR("FULL_PROFILE");
    case CL_DEVICE_MAX_COMPUTE_UNITS:
        INFO_VAL(cl_uint, 4);
    case CL_DEVICE_MAX_WORK_GROUP_SIZE:
        INFO_VAL(size_t, 256);
    case CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS:
        INFO_VAL(cl_uint, 3);
    case CL_DEVICE_MAX_WORK_ITEM_SIZES: {
        size_t s[3] = {256, 256, 256};
        return info(s, sizeof s, size, out, size_ret);
    }
    case CL_DEVICE_LOCAL_MEM_SIZE:
        INFO_VAL(cl_ulong, 65536);
    case CL_DEVICE_GLOBAL_MEM_SIZE:
        INFO_VAL(cl_ulong, 1ull << 30);
    case CL_DEVICE_MAX_MEM_ALLOC_SIZE:
        INFO_VAL(cl_ulong, 1ull << 28);
    case CL_DEVICE_AVAILABLE:
        INFO_VAL(cl_bool, CL_TRUE);
    case CL_DEVICE_COMPILER_AVAILABLE:
        INFO_VAL(cl_bool, CL_TRUE);
    default:
        return CL_INVALID_VALUE;
    }
}

/* ------------------------------------------------------------ context, queue */

EXPORT cl_context clCreateContext(
    const cl_context_properties *props, cl_uint ndev, const cl_device_id *devs,
    void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *), void *user, cl_int *err)
{
    (void)props, (void)notify, (void)user;
    if (!ndev || !devs || devs[0] != &g_device) {
        set_err(err, CL_INVALID_DEVICE);
        return NULL;
    }
    cl_context c = calloc(1, sizeof *c);
    if (c) c->refs = 1;
    set_err(err, c ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY);
    return c;
}

EXPORT cl_context clCreateContextFromType(const cl_context_properties *props, cl_device_type type,
                                          void(CL_CALLBACK *notify)(const char *, const void *,
                                                                    size_t, void *),
                                          void *user, cl_int *err)
{
    (void)type;
    cl_device_id d = &g_device;
    return clCreateContext(props, 1, &d, notify, user, err);
}

EXPORT cl_int clRetainContext(cl_context c)
{
    if (!c) return CL_INVALID_CONTEXT;
    c->refs++;
    return CL_SUCCESS;
}

EXPORT cl_int clReleaseContext(cl_context c)
{
    if (!c) return CL_INVALID_CONTEXT;
    if (--c->refs == 0) free(c);
    return CL_SUCCESS;
}

EXPORT cl_int clGetContextInfo(cl_context c, cl_context_info what, size_t size, void *out,
                               size_t *size_ret)
{
    if (!c) return CL_INVALID_CONTEXT;
    switch (what) {
    case CL_CONTEXT_NUM_DEVICES:
        INFO_VAL(cl_uint, 1);
    case CL_CONTEXT_DEVICES:
        INFO_VAL(cl_device_id, &g_device);
    case CL_CONTEXT_REFERENCE_COUNT:
        INFO_VAL(cl_uint, c->refs);
    default:
        return CL_INVALID_VALUE;
    }
}

static cl_command_queue queue_new(cl_context ctx, cl_device_id dev, cl_int *err)
{
    if (!ctx || dev != &g_device) {
        set_err(err, ctx ? CL_INVALID_DEVICE : CL_INVALID_CONTEXT);
        return NULL;
    }
    cl_command_queue q = calloc(1, sizeof *q);
    if (q) {
        q->refs = 1;
        q->ctx = ctx;
        ctx->refs++;
    }
    set_err(err, q ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY);
    return q;
}

EXPORT cl_command_queue clCreateCommandQueue(cl_context ctx, cl_device_id dev,
                                             cl_command_queue_properties props, cl_int *err)
{
    (void)props;
    return queue_new(ctx, dev, err);
}

EXPORT cl_command_queue clCreateCommandQueueWithProperties(cl_context ctx, cl_device_id dev,
                                                           const cl_queue_properties *props,
                                                           cl_int *err)
{
    (void)props;
    return queue_new(ctx, dev, err);
}

EXPORT cl_int clGetCommandQueueInfo(cl_command_queue q, cl_command_queue_info what, size_t size,
                                    void *out, size_t *size_ret)
{
    if (!q) return CL_INVALID_COMMAND_QUEUE;
    switch (what) {
    case CL_QUEUE_DEVICE:
        INFO_VAL(cl_device_id, &g_device);
    case CL_QUEUE_CONTEXT:
        INFO_VAL(cl_context, q->ctx);
    case CL_QUEUE_REFERENCE_COUNT:
        INFO_VAL(cl_uint, q->refs);
    case CL_QUEUE_PROPERTIES:
        INFO_VAL(cl_command_queue_properties, 0);
    default:
        return CL_INVALID_VALUE;
    }
}

EXPORT cl_int clRetainCommandQueue(cl_command_queue q)
{
    if (!q) return CL_INVALID_COMMAND_QUEUE;
    q->refs++;
    return CL_SUCCESS;
}

EXPORT cl_int clReleaseCommandQueue(cl_command_queue q)
{
    if (!q) return CL_INVALID_COMMAND_QUEUE;
    if (--q->refs == 0) {
        clReleaseContext(q->ctx);
        free(q);
    }
    return CL_SUCCESS;
}

EXPORT cl_int clFinish(cl_command_queue q)
{
    return q ? CL_SUCCESS : CL_INVALID_COMMAND_QUEUE;
}

EXPORT cl_int clFlush(cl_command_queue q)
{
    return q ? CL_SUCCESS : CL_INVALID_COMMAND_QUEUE;
}

/* ------------------------------------------------------------ programs */

EXPORT cl_program clCreateProgramWithSource(cl_context ctx, cl_uint count, const char **strings,
                                            const size_t *lengths, cl_int *err)
{
    if (!ctx || !count || !strings) {
        set_err(err, ctx ? CL_INVALID_VALUE : CL_INVALID_CONTEXT);
        return NULL;
    }
    size_t total = 0;
    for (cl_uint i = 0; i < count; i++)
        total += (lengths && lengths[i]) ? lengths[i] : strlen(strings[i]);
    cl_program p = calloc(1, sizeof *p);
    char *src = malloc(total + 1);
    if (!p || !src) {
        free(p);
        free(src);
        set_err(err, CL_OUT_OF_HOST_MEMORY);
        return NULL;
    }
    size_t off = 0;
    for (cl_uint i = 0; i < count; i++) {
        size_t n = (lengths && lengths[i]) ? lengths[i] : strlen(strings[i]);
        memcpy(src + off, strings[i], n);
        off += n;
    }
    src[total] = '\0';
    p->refs = 1;
    p->ctx = ctx;
    p->source = src;
    ctx->refs++;
    set_err(err, CL_SUCCESS);
    return p;
}

EXPORT cl_program clCreateProgramWithBinary(cl_context ctx, cl_uint ndev, const cl_device_id *devs,
                                            const size_t *lengths, const unsigned char **binaries,
                                            cl_int *status, cl_int *err)
{
    (void)ctx, (void)devs, (void)lengths, (void)binaries;
    if (status && ndev) status[0] = CL_INVALID_BINARY;
    set_err(err, CL_INVALID_BINARY); /* the fake compiles nothing */
    return NULL;
}

/* 0: none yet, 1: alive, 2: torn down by the exit. */
static atomic_int g_compiler;

static void compiler_teardown(void)
{
    atomic_store(&g_compiler, 2);
}

static void compiler_enter(void)
{
    int expect = 0;
    if (atomic_compare_exchange_strong(&g_compiler, &expect, 1)) atexit(compiler_teardown);
    if (expect == 2) {
        fprintf(stderr, "fakecl: clBuildProgram after the compiler's teardown\n");
        abort();
    }
}

EXPORT cl_int clBuildProgram(cl_program p, cl_uint ndev, const cl_device_id *devs,
                             const char *options, void(CL_CALLBACK *notify)(cl_program, void *),
                             void *user)
{
    (void)ndev, (void)devs;
    if (!p) return CL_INVALID_PROGRAM;
    compiler_enter();
    const char *slow = getenv("FAKECL_BUILD_SLOW");
    if (slow && *slow && options && strstr(options, slow)) {
        const char *mark = getenv("FAKECL_BUILD_SLOW_MARK");
        FILE *f = mark ? fopen(mark, "w") : NULL;
        if (f) fclose(f);
        for (int i = 0; i < 50; i++) {
            usleep(10000);
            compiler_enter();
        }
    }
    char *o = strdup(options ? options : "");
    if (!o) return CL_OUT_OF_HOST_MEMORY;
    free(p->options);
    p->options = o;
    p->built = 1;
    if (notify) notify(p, user);
    return CL_SUCCESS;
}

EXPORT cl_int clGetProgramInfo(cl_program p, cl_program_info what, size_t size, void *out,
                               size_t *size_ret)
{
    if (!p) return CL_INVALID_PROGRAM;
    switch (what) {
    case CL_PROGRAM_REFERENCE_COUNT:
        INFO_VAL(cl_uint, p->refs);
    case CL_PROGRAM_CONTEXT:
        INFO_VAL(cl_context, p->ctx);
    case CL_PROGRAM_NUM_DEVICES:
        INFO_VAL(cl_uint, 1);
    case CL_PROGRAM_DEVICES:
        INFO_VAL(cl_device_id, &g_device);
    case CL_PROGRAM_SOURCE:
        return INFO_STR(p->source);
    default:
        return CL_INVALID_VALUE;
    }
}

EXPORT cl_int clGetProgramBuildInfo(cl_program p, cl_device_id d, cl_program_build_info what,
                                    size_t size, void *out, size_t *size_ret)
{
    (void)d;
    if (!p) return CL_INVALID_PROGRAM;
    switch (what) {
    case CL_PROGRAM_BUILD_STATUS:
        INFO_VAL(cl_build_status, p->built ? CL_BUILD_SUCCESS : CL_BUILD_NONE);
    case CL_PROGRAM_BUILD_OPTIONS:
        return INFO_STR(p->options ? p->options : "");
    case CL_PROGRAM_BUILD_LOG:
        return INFO_STR("");
    default:
        return CL_INVALID_VALUE;
    }
}

EXPORT cl_int clRetainProgram(cl_program p)
{
    if (!p) return CL_INVALID_PROGRAM;
    p->refs++;
    return CL_SUCCESS;
}

/* Programs stay allocated (kernels in the report point at them). */
EXPORT cl_int clReleaseProgram(cl_program p)
{
    if (!p || !p->refs) return CL_INVALID_PROGRAM;
    p->refs--;
    return CL_SUCCESS;
}

/* ------------------------------------------------------------ kernels */

static int is_ident(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Finds "NAME(" in the source and classifies its parameters by address
 * space: enough for the small kernels the benchmark and tests use. */
static int parse_kernel(cl_kernel k, const char *src)
{
    size_t n = strlen(k->name);
    for (const char *s = strstr(src, k->name); s; s = strstr(s + 1, k->name)) {
        if (s > src && is_ident(s[-1])) continue;
        const char *p = s + n;
        while (*p == ' ' || *p == '\n' || *p == '\t') p++;
        if (*p != '(') continue;
        const char *end = strchr(p, ')');
        if (!end) return -1;
        k->nargs = 0;
        for (const char *a = p + 1; a < end;) {
            const char *comma = memchr(a, ',', (size_t)(end - a));
            const char *stop = comma ? comma : end;
            char param[256];
            size_t len =
                (size_t)(stop - a) < sizeof param - 1 ? (size_t)(stop - a) : sizeof param - 1;
            memcpy(param, a, len);
            param[len] = '\0';
            int blank = 1;
            for (size_t i = 0; i < len; i++)
                if (param[i] != ' ' && param[i] != '\n' && param[i] != '\t') blank = 0;
            if (!blank && strcmp(param, "void")) {
                if (k->nargs >= FAKE_MAX_ARGS) return -1;
                cl_kernel_arg_address_qualifier q = CL_KERNEL_ARG_ADDRESS_PRIVATE;
                if (strstr(param, "local"))
                    q = CL_KERNEL_ARG_ADDRESS_LOCAL;
                else if (strstr(param, "constant"))
                    q = CL_KERNEL_ARG_ADDRESS_CONSTANT;
                else if (strstr(param, "global") || strchr(param, '*'))
                    q = CL_KERNEL_ARG_ADDRESS_GLOBAL;
                k->qual[k->nargs++] = q;
            }
            a = stop + 1;
        }
        return 0;
    }
    return -1;
}

static void kernel_track(cl_kernel k)
{
    pthread_mutex_lock(&g_lock);
    k->next = g_kernels;
    g_kernels = k;
    pthread_mutex_unlock(&g_lock);
}

EXPORT cl_kernel clCreateKernel(cl_program p, const char *name, cl_int *err)
{
    if (!p || !p->built) {
        set_err(err, p ? CL_INVALID_PROGRAM_EXECUTABLE : CL_INVALID_PROGRAM);
        return NULL;
    }
    if (!name || strlen(name) >= sizeof((struct _cl_kernel *)0)->name) {
        set_err(err, CL_INVALID_KERNEL_NAME);
        return NULL;
    }
    cl_kernel k = calloc(1, sizeof *k);
    if (!k) {
        set_err(err, CL_OUT_OF_HOST_MEMORY);
        return NULL;
    }
    snprintf(k->name, sizeof k->name, "%s", name);
    if (parse_kernel(k, p->source)) {
        free(k);
        set_err(err, CL_INVALID_KERNEL_NAME);
        return NULL;
    }
    k->refs = 1;
    k->prog = p;
    k->ready = k->nargs == 0;
    p->refs++;
    kernel_track(k);
    set_err(err, CL_SUCCESS);
    return k;
}

EXPORT cl_kernel clCloneKernel(cl_kernel src, cl_int *err)
{
    if (!src) {
        set_err(err, CL_INVALID_KERNEL);
        return NULL;
    }
    cl_kernel k = malloc(sizeof *k);
    if (!k) {
        set_err(err, CL_OUT_OF_HOST_MEMORY);
        return NULL;
    }
    *k = *src;
    k->refs = 1;
    k->launches = k->local_launches = 0;
    k->prog->refs++;
    kernel_track(k);
    set_err(err, CL_SUCCESS);
    return k;
}

EXPORT cl_int clGetKernelInfo(cl_kernel k, cl_kernel_info what, size_t size, void *out,
                              size_t *size_ret)
{
    if (!k) return CL_INVALID_KERNEL;
    switch (what) {
    case CL_KERNEL_FUNCTION_NAME:
        return INFO_STR(k->name);
    case CL_KERNEL_NUM_ARGS:
        INFO_VAL(cl_uint, k->nargs);
    case CL_KERNEL_REFERENCE_COUNT:
        INFO_VAL(cl_uint, k->refs);
    case CL_KERNEL_PROGRAM:
        INFO_VAL(cl_program, k->prog);
    case CL_KERNEL_CONTEXT:
        INFO_VAL(cl_context, k->prog->ctx);
    case CL_KERNEL_ATTRIBUTES:
        return INFO_STR("");
    default:
        return CL_INVALID_VALUE;
    }
}

EXPORT cl_int clGetKernelArgInfo(cl_kernel k, cl_uint idx, cl_kernel_arg_info what, size_t size,
                                 void *out, size_t *size_ret)
{
    if (!k) return CL_INVALID_KERNEL;
    if (idx >= k->nargs) return CL_INVALID_ARG_INDEX;
    cl_kernel_arg_address_qualifier q = k->qual[idx];
    switch (what) {
    case CL_KERNEL_ARG_ADDRESS_QUALIFIER:
        INFO_VAL(cl_kernel_arg_address_qualifier, q);
    case CL_KERNEL_ARG_TYPE_NAME:
        return INFO_STR(q == CL_KERNEL_ARG_ADDRESS_PRIVATE ? "int" : "int*");
    default:
        return CL_KERNEL_ARG_INFO_NOT_AVAILABLE;
    }
}

EXPORT cl_int clGetKernelWorkGroupInfo(cl_kernel k, cl_device_id d, cl_kernel_work_group_info what,
                                       size_t size, void *out, size_t *size_ret)
{
    (void)d;
    if (!k) return CL_INVALID_KERNEL;
    switch (what) {
    case CL_KERNEL_WORK_GROUP_SIZE:
        INFO_VAL(size_t, 256);
    case CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE:
        INFO_VAL(size_t, 8);
    case CL_KERNEL_LOCAL_MEM_SIZE:
        INFO_VAL(cl_ulong, 0);
    case CL_KERNEL_PRIVATE_MEM_SIZE:
        INFO_VAL(cl_ulong, 0);
    case CL_KERNEL_COMPILE_WORK_GROUP_SIZE: {
        size_t s[3] = {0, 0, 0};
        return info(s, sizeof s, size, out, size_ret);
    }
    default:
        return CL_INVALID_VALUE;
    }
}

EXPORT cl_int clSetKernelArg(cl_kernel k, cl_uint idx, size_t size, const void *value)
{
    if (!k) return CL_INVALID_KERNEL;
    if (idx >= k->nargs) return CL_INVALID_ARG_INDEX;
    if (k->qual[idx] == CL_KERNEL_ARG_ADDRESS_LOCAL ? value != NULL || !size : !size)
        return CL_INVALID_ARG_SIZE;
    k->set_mask |= 1ull << idx;
    k->ready = k->set_mask == (k->nargs == 64 ? ~0ull : (1ull << k->nargs) - 1);
    return CL_SUCCESS;
}

EXPORT cl_int clRetainKernel(cl_kernel k)
{
    if (!k) return CL_INVALID_KERNEL;
    k->refs++;
    return CL_SUCCESS;
}

/* Kernels stay allocated: the exit report lists them. */
EXPORT cl_int clReleaseKernel(cl_kernel k)
{
    if (!k || !k->refs) return CL_INVALID_KERNEL;
    if (--k->refs == 0) k->prog->refs--;
    return CL_SUCCESS;
}

/* ------------------------------------------------------------ memory objects */

EXPORT cl_mem clCreateBuffer(cl_context ctx, cl_mem_flags flags, size_t size, void *host,
                             cl_int *err)
{
    if (!ctx) {
        set_err(err, CL_INVALID_CONTEXT);
        return NULL;
    }
    if (!size) {
        set_err(err, CL_INVALID_BUFFER_SIZE);
        return NULL;
    }
    cl_mem m = calloc(1, sizeof *m);
    unsigned char *data = calloc(1, size);
    if (!m || !data) {
        free(m);
        free(data);
        set_err(err, CL_OUT_OF_HOST_MEMORY);
        return NULL;
    }
    if (host && (flags & (CL_MEM_COPY_HOST_PTR | CL_MEM_USE_HOST_PTR))) memcpy(data, host, size);
    m->refs = 1;
    m->flags = flags;
    m->size = size;
    m->data = data;
    set_err(err, CL_SUCCESS);
    return m;
}

EXPORT cl_int clGetMemObjectInfo(cl_mem m, cl_mem_info what, size_t size, void *out,
                                 size_t *size_ret)
{
    if (!m) return CL_INVALID_MEM_OBJECT;
    switch (what) {
    case CL_MEM_TYPE:
        INFO_VAL(cl_mem_object_type, CL_MEM_OBJECT_BUFFER);
    case CL_MEM_FLAGS:
        INFO_VAL(cl_mem_flags, m->flags);
    case CL_MEM_SIZE:
        INFO_VAL(size_t, m->size);
    case CL_MEM_REFERENCE_COUNT:
        INFO_VAL(cl_uint, m->refs);
    default:
        return CL_INVALID_VALUE;
    }
}

EXPORT cl_int clRetainMemObject(cl_mem m)
{
    if (!m) return CL_INVALID_MEM_OBJECT;
    m->refs++;
    return CL_SUCCESS;
}

EXPORT cl_int clReleaseMemObject(cl_mem m)
{
    if (!m || !m->refs) return CL_INVALID_MEM_OBJECT;
    if (--m->refs == 0) {
        free(m->data);
        free(m);
    }
    return CL_SUCCESS;
}

/* ------------------------------------------------------------ events */

static cl_event event_new(void)
{
    cl_event e = calloc(1, sizeof *e);
    if (e) e->refs = 1;
    return e;
}

static cl_int done_event(cl_event *ev)
{
    if (!ev) return CL_SUCCESS;
    *ev = event_new();
    return *ev ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
}

EXPORT cl_int clWaitForEvents(cl_uint n, const cl_event *evs)
{
    return n && evs ? CL_SUCCESS : CL_INVALID_VALUE;
}

EXPORT cl_int clGetEventInfo(cl_event e, cl_event_info what, size_t size, void *out,
                             size_t *size_ret)
{
    if (!e) return CL_INVALID_EVENT;
    switch (what) {
    case CL_EVENT_COMMAND_EXECUTION_STATUS:
        INFO_VAL(cl_int, CL_COMPLETE);
    case CL_EVENT_REFERENCE_COUNT:
        INFO_VAL(cl_uint, e->refs);
    default:
        return CL_INVALID_VALUE;
    }
}

EXPORT cl_int clGetEventProfilingInfo(cl_event e, cl_profiling_info what, size_t size, void *out,
                                      size_t *size_ret)
{
    if (!e) return CL_INVALID_EVENT;
    (void)what;
    INFO_VAL(cl_ulong, 0);
}

EXPORT cl_int clRetainEvent(cl_event e)
{
    if (!e) return CL_INVALID_EVENT;
    e->refs++;
    return CL_SUCCESS;
}

EXPORT cl_int clReleaseEvent(cl_event e)
{
    if (!e) return CL_INVALID_EVENT;
    if (--e->refs == 0) free(e);
    return CL_SUCCESS;
}

/* ------------------------------------------------------------ enqueue */

static cl_int check_wait_list(cl_uint nev, const cl_event *evs)
{
    return (nev == 0) == (evs == NULL) ? CL_SUCCESS : CL_INVALID_EVENT_WAIT_LIST;
}

EXPORT cl_int clEnqueueReadBuffer(cl_command_queue q, cl_mem m, cl_bool blocking, size_t off,
                                  size_t n, void *ptr, cl_uint nev, const cl_event *evs,
                                  cl_event *ev)
{
    (void)blocking;
    if (!q) return CL_INVALID_COMMAND_QUEUE;
    if (!m) return CL_INVALID_MEM_OBJECT;
    if (!ptr || off > m->size || n > m->size - off) return CL_INVALID_VALUE;
    cl_int rc = check_wait_list(nev, evs);
    if (rc) return rc;
    memcpy(ptr, m->data + off, n);
    return done_event(ev);
}

EXPORT cl_int clEnqueueWriteBuffer(cl_command_queue q, cl_mem m, cl_bool blocking, size_t off,
                                   size_t n, const void *ptr, cl_uint nev, const cl_event *evs,
                                   cl_event *ev)
{
    (void)blocking;
    if (!q) return CL_INVALID_COMMAND_QUEUE;
    if (!m) return CL_INVALID_MEM_OBJECT;
    if (!ptr || off > m->size || n > m->size - off) return CL_INVALID_VALUE;
    cl_int rc = check_wait_list(nev, evs);
    if (rc) return rc;
    memcpy(m->data + off, ptr, n);
    return done_event(ev);
}

/* The launch: validation a real runtime would do first, then a count. */
EXPORT cl_int clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dim,
                                     const size_t *off, const size_t *gws, const size_t *lws,
                                     cl_uint nev, const cl_event *evs, cl_event *ev)
{
    (void)off;
    if (__builtin_expect(!q, 0)) return CL_INVALID_COMMAND_QUEUE;
    if (__builtin_expect(!k, 0)) return CL_INVALID_KERNEL;
    if (__builtin_expect(dim < 1 || dim > 3 || !gws, 0)) return CL_INVALID_WORK_DIMENSION;
    if (__builtin_expect(!k->ready, 0)) return CL_INVALID_KERNEL_ARGS;
    if (__builtin_expect((nev == 0) != (evs == NULL), 0)) return CL_INVALID_EVENT_WAIT_LIST;
    k->launches++;
    if (lws) k->local_launches++;
    return ev ? done_event(ev) : CL_SUCCESS;
}

EXPORT void *clGetExtensionFunctionAddress(const char *name)
{
    (void)name;
    return NULL;
}

EXPORT void *clGetExtensionFunctionAddressForPlatform(cl_platform_id p, const char *name)
{
    (void)p, (void)name;
    return NULL;
}

__attribute__((destructor)) static void fake_report(void)
{
    unsigned long long total = 0;
    for (cl_kernel k = g_kernels; k; k = k->next) {
        if (!k->launches) continue;
        total += k->launches;
        fprintf(stderr, "fakecl: kernel=%s options=\"%s\" local=%llu launches=%llu\n", k->name,
                k->prog->options ? k->prog->options : "", k->local_launches, k->launches);
    }
    fprintf(stderr, "fakecl: total_launches=%llu\n", total);
}
