/* The CUDA fingerprint (store/fingerprint.h, aoe_fingerprint_cuda: GPU name,
 * compute capability, multiprocessor count, driver version) of the current
 * device, through the driver's real entry points. First sight only: the
 * fingerprint of each device is computed once and interned. */
#include "hooks/cuda_internal.h"

#include "core/log.h"
#include "store/fingerprint.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEVICES 64

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    CUdevice dev;
    const char *fp; /* interned: never freed */
} g_devices[MAX_DEVICES];
static int g_ndevices;
static atomic_int g_said;

typedef CUresult (*ctx_get_device_fn)(CUdevice *);
typedef CUresult (*device_get_fn)(CUdevice *, int);
typedef CUresult (*device_name_fn)(char *, int, CUdevice);
typedef CUresult (*device_attr_fn)(int *, CUdevice_attribute, CUdevice);
typedef CUresult (*driver_version_fn)(int *);

#define REAL(id, type) ((type)aoe_cu_real(AOE_CUF_##id))

const char *aoe_cu_current_fingerprint(void)
{
    ctx_get_device_fn ctx_dev = REAL(CTX_DEVICE, ctx_get_device_fn);
    device_get_fn dev_get = REAL(DEVICE_GET, device_get_fn);
    device_name_fn dev_name = REAL(DEVICE_NAME, device_name_fn);
    device_attr_fn dev_attr = REAL(DEVICE_ATTR, device_attr_fn);
    driver_version_fn drv = REAL(DRIVER_VERSION, driver_version_fn);
    CUdevice dev;
    if (!ctx_dev || !dev_get || !dev_name || !dev_attr || !drv ||
        (ctx_dev(&dev) != CUDA_SUCCESS && dev_get(&dev, 0) != CUDA_SUCCESS)) {
        aoe_shim_log_once(&g_said, AOE_LOG_DEBUG, "cannot identify the CUDA device");
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
            if ((fp = strdup(buf))) {
                g_devices[g_ndevices].dev = dev;
                g_devices[g_ndevices++].fp = fp;
                AOE_DEBUG("CUDA device %d: %s", (int)dev, fp);
            }
        }
    }
    pthread_mutex_unlock(&g_lock);
    return fp;
}

void aoe_cu_device_atfork_child(void)
{
    pthread_mutex_init(&g_lock, NULL);
}
