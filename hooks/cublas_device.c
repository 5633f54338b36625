/* The CUDA fingerprint (store/fingerprint.h, aoe_fingerprint_cuda) of the
 * device a cuBLAS handle works on, asked from the driver the program already
 * loaded (libcuda.so.1, RTLD_NOLOAD: the shim never loads or initialises
 * CUDA itself). Without a driver (or a current device) GEMMs pass through,
 * said once. Slow path only: handles remember their fingerprint. */
#include "hooks/cublas_internal.h"

#include "core/log.h"
#include "store/fingerprint.h"

#include <cuda.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEVICES 64

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    CUdevice dev;
    const char *fp; /* interned: never freed */
} g_devices[MAX_DEVICES];
static int g_ndevices;
static atomic_int g_said_no_driver;

typedef CUresult (*ctx_get_device_fn)(CUdevice *);
typedef CUresult (*device_get_fn)(CUdevice *, int);
typedef CUresult (*device_name_fn)(char *, int, CUdevice);
typedef CUresult (*device_attr_fn)(int *, CUdevice_attribute, CUdevice);
typedef CUresult (*driver_version_fn)(int *);

static void no_driver(const char *why)
{
    aoe_shim_log_once(&g_said_no_driver, AOE_LOG_WARN,
                      "cannot identify the CUDA device (%s): cuBLAS and cuBLASLt GEMMs pass "
                      "through untuned",
                      why);
}

const char *aoe_cb_current_fingerprint(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOLOAD | RTLD_LAZY);
    if (!h) {
        no_driver("libcuda.so.1 is not loaded");
        return NULL;
    }
    ctx_get_device_fn ctx_dev = (ctx_get_device_fn)aoe_real_dlsym(h, "cuCtxGetDevice");
    device_get_fn dev_get = (device_get_fn)aoe_real_dlsym(h, "cuDeviceGet");
    device_name_fn dev_name = (device_name_fn)aoe_real_dlsym(h, "cuDeviceGetName");
    device_attr_fn dev_attr = (device_attr_fn)aoe_real_dlsym(h, "cuDeviceGetAttribute");
    driver_version_fn drv = (driver_version_fn)aoe_real_dlsym(h, "cuDriverGetVersion");
    dlclose(h); /* the program's own reference keeps it loaded */
    if (!ctx_dev || !dev_get || !dev_name || !dev_attr || !drv) {
        no_driver("libcuda.so.1 lacks a device query");
        return NULL;
    }
    CUdevice dev;
    /* The current context's device; without one (a handle used before any
     * context), the first device, as the runtime API would pick it. */
    if (ctx_dev(&dev) != CUDA_SUCCESS && dev_get(&dev, 0) != CUDA_SUCCESS) {
        no_driver("no current device");
        return NULL;
    }
    const char *fp = NULL;
    pthread_mutex_lock(&g_lock);
    for (int i = 0; i < g_ndevices; i++)
        if (g_devices[i].dev == dev) fp = g_devices[i].fp;
    if (!fp && g_ndevices < MAX_DEVICES) {
        char name[256] = "", buf[AOE_FINGERPRINT_LEN];
        int version = 0, sms = 0, major = 0, minor = 0;
        if (dev_name(name, (int)sizeof name - 1, dev) == CUDA_SUCCESS &&
            drv(&version) == CUDA_SUCCESS &&
            dev_attr(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev) == CUDA_SUCCESS &&
            dev_attr(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) == CUDA_SUCCESS &&
            dev_attr(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) == CUDA_SUCCESS &&
            sms > 0) {
            aoe_fingerprint_cuda(buf, sizeof buf, name, version, (unsigned)sms, major, minor);
            fp = strdup(buf);
            if (fp) {
                g_devices[g_ndevices].dev = dev;
                g_devices[g_ndevices++].fp = fp;
                AOE_DEBUG("cuBLAS device %d: %s", (int)dev, fp);
            }
        }
    }
    pthread_mutex_unlock(&g_lock);
    if (!fp) no_driver("the driver did not describe the device");
    return fp;
}

void aoe_cb_device_atfork_child(void)
{
    pthread_mutex_init(&g_lock, NULL);
}
