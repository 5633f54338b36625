#include "hooks/cuda_fingerprint.h"

#include "core/log.h"
#include "jobs/job_device.h"
#include "store/fingerprint.h"
#include "store/record.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEVICES 64

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    CUdevice dev;
    const char *fp; /* interned: never freed; one per device, so it names the device */
    char uuid[33];  /* "" when the driver did not say */
} g_devices[MAX_DEVICES];
static int g_ndevices;

static const char *describe(const aoe_cuda_queries *q, CUdevice dev, const char **why)
{
    char name[256] = "", buf[AOE_FINGERPRINT_LEN];
    int version = 0, sms = 0, major = 0, minor = 0;
    if (q->device_name(name, (int)sizeof name - 1, dev) != CUDA_SUCCESS ||
        q->driver_version(&version) != CUDA_SUCCESS ||
        q->device_attr(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev) != CUDA_SUCCESS ||
        q->device_attr(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) != CUDA_SUCCESS ||
        q->device_attr(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) != CUDA_SUCCESS ||
        sms <= 0) {
        *why = "the driver did not describe the device";
        return NULL;
    }
    aoe_fingerprint_cuda(buf, sizeof buf, name, version, (unsigned)sms, major, minor);
    char *fp = strdup(buf);
    if (!fp) *why = "out of memory";
    return fp;
}

const char *aoe_cuda_fingerprint(const aoe_cuda_queries *q, const char **why)
{
    CUdevice dev;
    if (!q->ctx_get_device || !q->device_get || !q->device_name || !q->device_attr ||
        !q->driver_version) {
        *why = "libcuda.so.1 lacks a device query";
        return NULL;
    }
    if (q->ctx_get_device(&dev) != CUDA_SUCCESS && q->device_get(&dev, 0) != CUDA_SUCCESS) {
        *why = "no current device";
        return NULL;
    }
    const char *fp = NULL;
    pthread_mutex_lock(&g_lock);
    for (int i = 0; i < g_ndevices; i++)
        if (g_devices[i].dev == dev) fp = g_devices[i].fp;
    if (!fp && g_ndevices >= MAX_DEVICES) *why = "more than 64 devices";
    if (!fp && g_ndevices < MAX_DEVICES && (fp = describe(q, dev, why))) {
        CUuuid u;
        g_devices[g_ndevices].dev = dev;
        g_devices[g_ndevices].uuid[0] = 0;
        if (q->device_uuid && q->device_uuid(&u, dev) == CUDA_SUCCESS)
            aoe_job_uuid_hex(u.bytes, g_devices[g_ndevices].uuid);
        g_devices[g_ndevices++].fp = fp;
        AOE_DEBUG("CUDA device %d: %s", (int)dev, fp);
    }
    pthread_mutex_unlock(&g_lock);
    return fp;
}

int aoe_cuda_fingerprint_uuid(const char *fp, char hex[33])
{
    int rc = -1;
    pthread_mutex_lock(&g_lock);
    for (int i = 0; i < g_ndevices; i++)
        if (g_devices[i].fp == fp && g_devices[i].uuid[0]) {
            memcpy(hex, g_devices[i].uuid, 33);
            rc = 0;
        }
    pthread_mutex_unlock(&g_lock);
    return rc;
}

void aoe_cuda_fingerprint_atfork_child(void)
{
    pthread_mutex_init(&g_lock, NULL);
}
