/* Device fingerprints: exactly the four queries the tuner's executor makes,
 * formatted by store/fingerprint.c, so both sides agree byte for byte. */
#include "hooks/opencl_internal.h"

#include "store/fingerprint.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static aoe_ptr_slot g_slots[256];
static aoe_ptr_table g_devices = AOE_PTR_TABLE_INIT(g_slots);
/* One fingerprint built at a time: two threads launching on a new device at
 * once would otherwise both build one, and the second insert would orphan
 * the first (a leak, and two pointers for one device). */
static pthread_mutex_t g_build = PTHREAD_MUTEX_INITIALIZER;

static const char *build(cl_device_id dev);

const char *aoe_cl_fingerprint(cl_device_id dev)
{
    const char *fp = aoe_ptr_find(&g_devices, dev);
    if (fp) return fp;
    pthread_mutex_lock(&g_build);
    fp = aoe_ptr_find(&g_devices, dev); /* built by another thread meanwhile */
    if (!fp) fp = build(dev);
    pthread_mutex_unlock(&g_build);
    return fp;
}

static const char *build(cl_device_id dev)
{
    cl_platform_id plat = NULL;
    char vendor[256] = "", name[256] = "", driver[256] = "";
    cl_uint cu = 0;
    if (REAL(clGetDeviceInfo)(dev, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL) != CL_SUCCESS ||
        REAL(clGetPlatformInfo)(plat, CL_PLATFORM_VENDOR, sizeof vendor - 1, vendor, NULL) !=
            CL_SUCCESS ||
        REAL(clGetDeviceInfo)(dev, CL_DEVICE_NAME, sizeof name - 1, name, NULL) != CL_SUCCESS ||
        REAL(clGetDeviceInfo)(dev, CL_DRIVER_VERSION, sizeof driver - 1, driver, NULL) !=
            CL_SUCCESS ||
        REAL(clGetDeviceInfo)(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL) != CL_SUCCESS)
        return NULL;
    char *out = malloc(AOE_FINGERPRINT_LEN);
    if (!out) return NULL;
    /* No architecture: OpenCL compiles from source on the device named here,
     * and a new field would change every existing bank's fingerprint. */
    aoe_device_desc d = {"opencl", vendor, name, driver, cu, ""};
    aoe_fingerprint_build(out, AOE_FINGERPRINT_LEN, &d);
    if (aoe_ptr_insert(&g_devices, dev, out)) {
        free(out);
        return NULL;
    }
    return out; /* interned for the process: operators keep pointers to it */
}

void aoe_cl_device_atfork_child(void)
{
    pthread_mutex_init(&g_build, NULL); /* may have been held by a thread that is gone */
    aoe_ptr_table_atfork_child(&g_devices);
}
