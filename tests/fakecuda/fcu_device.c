/* The fake driver's devices, initialisation, contexts and error names.
 * FAKECUDA_DEVICES physical devices (default 1; 0: none), alike but for their
 * names (FAKECUDA_NAME, FAKECUDA_NAME_1..3) and UUIDs ("fakecuda" and the
 * index), of which cuInit makes visible what CUDA_VISIBLE_DEVICES names, as
 * the driver does: ordinals or "GPU-" and a prefix of the UUID in hex (dashes
 * ignored), the list ending at the first entry that names none. */
#include "fakecuda.h"
#include "fcu_internal.h"
#include "fcu_module.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static fcu_device dev;
static pthread_once_t dev_once = PTHREAD_ONCE_INIT;
static int initialised;

/* A context is a tag: the primary one, or one from cuCtxCreate. */
struct CUctx_st {
    int primary;
    CUdevice dev; /* its device's ordinal */
};
static struct CUctx_st primary_ctx[FCU_MAX_DEVICES] = {{1, 0}, {1, 1}, {1, 2}, {1, 3}};
static int primary_refs[FCU_MAX_DEVICES];
static __thread CUcontext current;
static __thread CUcontext stack[16];
static __thread int depth;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static long long env_num(const char *name, long long def, long long lo, long long hi)
{
    const char *v = getenv(name);
    char *end;
    if (!v || !*v) return def;
    long long x = strtoll(v, &end, 10);
    if (*end || x < lo || x > hi) {
        fprintf(stderr, "fakecuda: %s=%s is not an integer in %lld..%lld; using %lld\n", name, v,
                lo, hi, def);
        return def;
    }
    return x;
}

static void read_env(void)
{
    const char *name = getenv("FAKECUDA_NAME");
    snprintf(dev.name[0], sizeof dev.name[0], "%s", name && *name ? name : "NVIDIA H100 80GB HBM3");
    for (int i = 1; i < FCU_MAX_DEVICES; i++) {
        char var[32];
        snprintf(var, sizeof var, "FAKECUDA_NAME_%d", i);
        const char *n = getenv(var);
        snprintf(dev.name[i], sizeof dev.name[i], "%s", n && *n ? n : dev.name[0]);
    }
    dev.sms = (int)env_num("FAKECUDA_SMS", 132, 1, 100000);
    dev.driver = (int)env_num("FAKECUDA_DRIVER", 13000, 1000, 1000000);
    dev.devices = (int)env_num("FAKECUDA_DEVICES", 1, 0, FCU_MAX_DEVICES);
    dev.mem_bytes = (uint64_t)env_num("FAKECUDA_MEM_BYTES", 80LL << 30, 0, 1LL << 50);
    dev.l2_bytes = (uint64_t)env_num("FAKECUDA_L2_BYTES", 50LL << 20, 0, 1LL << 40);
    const char *cc = getenv("FAKECUDA_CC");
    dev.cc_major = 9, dev.cc_minor = 0;
    if (cc && *cc &&
        (sscanf(cc, "%d.%d", &dev.cc_major, &dev.cc_minor) != 2 || dev.cc_major < 1 ||
         dev.cc_minor < 0)) {
        fprintf(stderr, "fakecuda: FAKECUDA_CC=%s is not MAJOR.MINOR; using 9.0\n", cc);
        dev.cc_major = 9, dev.cc_minor = 0;
    }
}

const fcu_device *fcu_dev(void)
{
    pthread_once(&dev_once, read_env);
    return &dev;
}

/* The visible devices: ordinal -> physical index (set by cuInit). */
static int visible[FCU_MAX_DEVICES], nvisible;
static pthread_once_t visible_once = PTHREAD_ONCE_INIT;

static void uuid_of(int phys, unsigned char out[16])
{
    memset(out, 0, 16);
    memcpy(out, "fakecuda", 8);
    out[15] = (unsigned char)phys;
}

/* The physical device an entry of CUDA_VISIBLE_DEVICES names, or -1. */
static int named(const char *e, size_t n)
{
    char hex[33];
    size_t h = 0;
    if (n > 4 && !strncmp(e, "GPU-", 4)) {
        for (size_t i = 4; i < n && h < 32; i++)
            if (e[i] != '-') hex[h++] = e[i];
        hex[h] = 0;
        for (int p = 0; h && p < fcu_dev()->devices; p++) {
            unsigned char u[16];
            char full[33];
            uuid_of(p, u);
            for (int i = 0; i < 16; i++) snprintf(full + 2 * i, 3, "%02x", u[i]);
            if (!strncmp(full, hex, h)) return p;
        }
        return -1;
    }
    int v = 0;
    for (size_t i = 0; i < n; i++) {
        if (e[i] < '0' || e[i] > '9' || v > 1000) return -1;
        v = v * 10 + (e[i] - '0');
    }
    return n && v < fcu_dev()->devices ? v : -1;
}

static void read_visible(void)
{
    const char *v = getenv("CUDA_VISIBLE_DEVICES");
    if (!v) {
        for (nvisible = 0; nvisible < fcu_dev()->devices; nvisible++) visible[nvisible] = nvisible;
        return;
    }
    while (*v && nvisible < FCU_MAX_DEVICES) {
        size_t n = strcspn(v, ",");
        int p = named(v, n);
        if (p < 0) break;
        visible[nvisible++] = p;
        v += n + (v[n] == ',');
    }
}

CUresult fcu_initialised(void)
{
    return __atomic_load_n(&initialised, __ATOMIC_ACQUIRE) ? CUDA_SUCCESS
                                                           : CUDA_ERROR_NOT_INITIALIZED;
}

CUresult fcu_need_context(void)
{
    CUresult r = fcu_initialised();
    if (!r) r = fcu_sticky(); /* a context lost to a fault answers its error */
    return r ? r : current ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

static CUresult need_device(CUdevice d)
{
    CUresult r = fcu_initialised();
    return r ? r : d >= 0 && d < nvisible ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

FCU_EXPORT CUresult cuInit(unsigned int flags)
{
    if (flags) return CUDA_ERROR_INVALID_VALUE;
    pthread_once(&visible_once, read_visible);
    if (!nvisible) return CUDA_ERROR_NO_DEVICE;
    __atomic_store_n(&initialised, 1, __ATOMIC_RELEASE);
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuDriverGetVersion(int *v)
{
    if (!v) return CUDA_ERROR_INVALID_VALUE;
    *v = fcu_dev()->driver;
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuDeviceGetCount(int *n)
{
    CUresult r = fcu_initialised();
    if (r) return r;
    if (!n) return CUDA_ERROR_INVALID_VALUE;
    *n = nvisible;
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuDeviceGet(CUdevice *d, int ordinal)
{
    CUresult r = need_device(ordinal);
    if (r) return r;
    if (!d) return CUDA_ERROR_INVALID_VALUE;
    *d = ordinal;
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice d)
{
    CUresult r = need_device(d);
    if (r) return r;
    if (!name || len <= 0) return CUDA_ERROR_INVALID_VALUE;
    snprintf(name, (size_t)len, "%s", fcu_dev()->name[visible[d]]);
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuDeviceTotalMem(size_t *bytes, CUdevice d)
{
    CUresult r = need_device(d);
    if (r) return r;
    if (!bytes) return CUDA_ERROR_INVALID_VALUE;
    *bytes = fcu_dev()->mem_bytes;
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice d) /* cuDeviceGetUuid_v2 */
{
    CUresult r = need_device(d);
    if (r) return r;
    if (!uuid) return CUDA_ERROR_INVALID_VALUE;
    unsigned char u[16];
    uuid_of(visible[d], u);
    memcpy(uuid->bytes, u, sizeof u);
    return CUDA_SUCCESS;
}

/* The attributes a tuner or a launch check asks for; others: INVALID_VALUE. */
FCU_EXPORT CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d)
{
    CUresult r = need_device(d);
    if (r) return r;
    if (!v) return CUDA_ERROR_INVALID_VALUE;
    const fcu_device *x = fcu_dev();
    switch (a) {
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
        *v = x->sms;
        break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
        *v = x->cc_major;
        break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
        *v = x->cc_minor;
        break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE:
        *v = (int)(x->l2_bytes > 2147483647u ? 2147483647u : x->l2_bytes);
        break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE:
        *v = 32;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
        *v = 1024;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y:
        *v = 1024;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z:
        *v = 64;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X:
        *v = 2147483647;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z:
        *v = 65535;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK:
        *v = 49152;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
        *v = 232448;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK:
        *v = 65536;
        break;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE:
        *v = 1980000;
        break;
    case CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH:
        *v = x->cc_major >= 9;
        break;
    case CU_DEVICE_ATTRIBUTE_INTEGRATED:
        *v = 0;
        break;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING:
        *v = 1;
        break;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice d)
{
    CUresult r = need_device(d);
    if (r) return r;
    if (!ctx) return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&lock);
    primary_refs[d]++;
    pthread_mutex_unlock(&lock);
    *ctx = &primary_ctx[d];
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice d) /* cuDevicePrimaryCtxRelease_v2 */
{
    CUresult r = need_device(d);
    if (r) return r;
    pthread_mutex_lock(&lock);
    r = primary_refs[d] > 0 ? (primary_refs[d]--, CUDA_SUCCESS) : CUDA_ERROR_INVALID_CONTEXT;
    pthread_mutex_unlock(&lock);
    return r;
}

FCU_EXPORT CUresult cuCtxCreate(CUcontext *ctx, CUctxCreateParams *params, unsigned int flags,
                                CUdevice d) /* cuCtxCreate_v4 */
{
    (void)params, (void)flags;
    CUresult r = need_device(d);
    if (r) return r;
    if (!ctx) return CUDA_ERROR_INVALID_VALUE;
    if (!(*ctx = calloc(1, sizeof **ctx))) return CUDA_ERROR_OUT_OF_MEMORY;
    (*ctx)->dev = d;
    current = *ctx; /* cuCtxCreate makes the new context current */
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuCtxDestroy(CUcontext ctx) /* cuCtxDestroy_v2 */
{
    CUresult r = fcu_initialised();
    if (r) return r;
    if (!ctx || ctx->primary) return CUDA_ERROR_INVALID_CONTEXT;
    if (current == ctx) current = NULL;
    fcu_modules_destroyed_with(ctx);
    free(ctx);
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuCtxSetCurrent(CUcontext ctx)
{
    CUresult r = fcu_initialised();
    if (r) return r;
    current = ctx;
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuCtxGetCurrent(CUcontext *ctx)
{
    CUresult r = fcu_initialised();
    if (r) return r;
    if (!ctx) return CUDA_ERROR_INVALID_VALUE;
    *ctx = current;
    return CUDA_SUCCESS;
}

CUcontext fcu_current_context(void)
{
    return current;
}

FCU_EXPORT CUresult cuCtxGetDevice(CUdevice *d)
{
    CUresult r = fcu_need_context();
    if (r) return r;
    if (!d) return CUDA_ERROR_INVALID_VALUE;
    *d = current->dev;
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuCtxPushCurrent(CUcontext ctx) /* cuCtxPushCurrent_v2 */
{
    CUresult r = fcu_initialised();
    if (r) return r;
    if (!ctx) return CUDA_ERROR_INVALID_CONTEXT;
    if (depth == (int)(sizeof stack / sizeof *stack)) return CUDA_ERROR_INVALID_VALUE;
    stack[depth++] = current;
    current = ctx;
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuCtxPopCurrent(CUcontext *ctx) /* cuCtxPopCurrent_v2 */
{
    CUresult r = fcu_need_context();
    if (r) return r;
    if (ctx) *ctx = current;
    current = depth ? stack[--depth] : NULL;
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuCtxSynchronize(void)
{
    CUresult r = fcu_need_context(); /* every call already ran to completion */
    if (!r) fcu_clock_drain();
    return r;
}

static const struct {
    CUresult code;
    const char *name, *text;
} errors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    /* the sticky errors a fake kernel may report (fakecuda_fault) */
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {CUDA_ERROR_MISALIGNED_ADDRESS, "CUDA_ERROR_MISALIGNED_ADDRESS", "misaligned address"},
};

FCU_EXPORT CUresult cuGetErrorName(CUresult e, const char **s)
{
    if (!s) return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < sizeof errors / sizeof *errors; i++)
        if (errors[i].code == e) return *s = errors[i].name, CUDA_SUCCESS;
    *s = NULL;
    return CUDA_ERROR_INVALID_VALUE;
}

FCU_EXPORT CUresult cuGetErrorString(CUresult e, const char **s)
{
    if (!s) return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < sizeof errors / sizeof *errors; i++)
        if (errors[i].code == e) return *s = errors[i].text, CUDA_SUCCESS;
    *s = NULL;
    return CUDA_ERROR_INVALID_VALUE;
}
