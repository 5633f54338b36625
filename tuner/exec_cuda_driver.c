/* Loading the CUDA driver and finding the job's device (exec_cuda_driver.h),
 * shared by the GEMM and the kernel executors. */
#include "tuner/exec_cuda_driver.h"
#include "core/log.h"
#include "jobs/job_device.h"
#include "store/fingerprint.h"
#include "store/record.h"

#include <cjson/cJSON.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int aoe_cuda_driver_load(aoe_cuda_driver *d, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    if (!(d->handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL))) {
        snprintf(err, errlen, "cannot load libcuda.so.1: %s", dlerror());
        return -1;
    }
#define AOE_CUDA_DRIVER_LOAD(f)                                                                    \
    if (!(*(void **)&d->f = dlsym(d->handle, AOE_CU_NAME(f)))) {                                   \
        snprintf(err, errlen, "libcuda.so.1 has no %s", AOE_CU_NAME(f));                           \
        return -1;                                                                                 \
    }
    AOE_CUDA_DRIVER_FUNCS(AOE_CUDA_DRIVER_LOAD)
#undef AOE_CUDA_DRIVER_LOAD
    return 0;
}

void aoe_cuda_driver_unload(aoe_cuda_driver *d)
{
    if (d->handle) dlclose(d->handle);
    memset(d, 0, sizeof *d);
}

const char *aoe_cuda_error_name(const aoe_cuda_driver *d, CUresult r)
{
    const char *s = NULL;
    if (d->cuGetErrorName && !d->cuGetErrorName(r, &s) && s) return s;
    return "an unknown CUDA error";
}

void aoe_cuda_error_text(const aoe_cuda_driver *d, CUresult r, char *out, size_t len)
{
    const char *s = NULL;
    if (d->cuGetErrorName && !d->cuGetErrorName(r, &s) && s)
        snprintf(out, len, "%s", s);
    else
        snprintf(out, len, "CUDA error %d", (int)r);
}

/* One failed call: "cuda: cuDeviceGet: CUDA_ERROR_..." and the status. */
static aoe_exec_status fail(const aoe_cuda_driver *d, const char *what, CUresult r,
                            aoe_exec_status st, char *detail, size_t len)
{
    snprintf(detail, len, "cuda: %s: %s", what, aoe_cuda_error_name(d, r));
    return r == CUDA_ERROR_OUT_OF_MEMORY ? AOE_EXEC_OUT_OF_MEMORY : st;
}

#define TRY(call, what, st)                                                                        \
    do {                                                                                           \
        CUresult r_ = (call);                                                                      \
        if (r_ != CUDA_SUCCESS) return fail(d, what, r_, st, detail, len);                         \
    } while (0)

/* Jobs queued on this machine since it booted: their program's view of the
 * GPUs names this machine's GPUs. */
static int same_boot(const char *job_boot)
{
    char b[64];
    return job_boot && !aoe_job_boot_id(b) && !strcmp(b, job_boot);
}

void aoe_cuda_job_device(const aoe_job *job, char uuid[33])
{
    uuid[0] = 0;
    cJSON *ex = job->runtime_extra ? cJSON_Parse(job->runtime_extra) : NULL;
    const cJSON *dev = cJSON_GetObjectItemCaseSensitive(ex, "device");
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(dev, "uuid");
    const cJSON *boot = cJSON_GetObjectItemCaseSensitive(dev, "boot_id");
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(dev, "env");
    if (cJSON_IsString(u) && strlen(u->valuestring) == 32 &&
        strspn(u->valuestring, "0123456789abcdef") == 32)
        memcpy(uuid, u->valuestring, 33);
    if (job->settings.present && cJSON_IsObject(env) &&
        same_boot(cJSON_IsString(boot) ? boot->valuestring : NULL))
        for (int i = 0; i < AOE_JOB_VIEW_VARS; i++) { /* only these: nothing else from a job */
            const char *var = aoe_job_view_vars[i];
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(env, var);
            if (cJSON_IsString(v) && strlen(v->valuestring) <= 4096)
                setenv(var, v->valuestring, 1);
            else if (!v)
                unsetenv(var);
        }
    cJSON_Delete(ex);
}

aoe_exec_status aoe_cuda_device_open(aoe_cuda_driver *d, const char *fingerprint, const char *uuid,
                                     aoe_cuda_device *out, char *detail, size_t len)
{
    int count = 0, drv = 0, sms = 0, found = -1, own = 0;
    char name[256] = "", fp[AOE_FINGERPRINT_LEN] = "";
    memset(out, 0, sizeof *out);
    CUresult (*get_uuid)(CUuuid *, CUdevice) = NULL; /* optional: older drivers lack _v2 */
    *(void **)&get_uuid = dlsym(d->handle, "cuDeviceGetUuid_v2");
    TRY(d->cuInit(0), "cuInit", AOE_EXEC_NO_DEVICE);
    TRY(d->cuDeviceGetCount(&count), "cuDeviceGetCount", AOE_EXEC_NO_DEVICE);
    if (count < 1) {
        snprintf(detail, len, "cuda: no CUDA device");
        return AOE_EXEC_NO_DEVICE;
    }
    TRY(d->cuDriverGetVersion(&drv), "cuDriverGetVersion", AOE_EXEC_NO_DEVICE);
    /* the device with the job's UUID among those with its fingerprint, else the first */
    for (int i = 0; i < count; i++) {
        CUdevice dev;
        int major = 0, minor = 0;
        TRY(d->cuDeviceGet(&dev, i), "cuDeviceGet", AOE_EXEC_NO_DEVICE);
        TRY(d->cuDeviceGetName(name, (int)sizeof name - 1, dev), "cuDeviceGetName",
            AOE_EXEC_NO_DEVICE);
        TRY(d->cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev),
            "cuDeviceGetAttribute", AOE_EXEC_NO_DEVICE);
        TRY(d->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev),
            "cuDeviceGetAttribute", AOE_EXEC_NO_DEVICE);
        TRY(d->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev),
            "cuDeviceGetAttribute", AOE_EXEC_NO_DEVICE);
        aoe_fingerprint_cuda(fp, sizeof fp, name, drv, (unsigned)sms, major, minor);
        if (!fingerprint || strcmp(fp, fingerprint)) continue;
        if (found < 0) found = i, out->dev = dev, out->cc_major = major, out->cc_minor = minor;
        CUuuid u;
        char hex[33];
        if (!uuid || !uuid[0] || !get_uuid || get_uuid(&u, dev) != CUDA_SUCCESS) break;
        aoe_job_uuid_hex(u.bytes, hex);
        if ((own = !strcmp(hex, uuid))) {
            out->dev = dev, out->cc_major = major, out->cc_minor = minor;
            break;
        }
    }
    if (found < 0) {
        const char *vis = getenv("CUDA_VISIBLE_DEVICES");
        snprintf(detail, len, "cuda: the job is for device '%s', this machine has '%s'%s%s%s",
                 fingerprint ? fingerprint : "", fp, count > 1 ? " and others" : "",
                 vis ? " (CUDA_VISIBLE_DEVICES=" : "", vis ? vis : "");
        if (vis && strlen(detail) + 2 < len) strcat(detail, ")");
        return AOE_EXEC_NO_DEVICE;
    }
    AOE_DEBUG("cuda: on device %d of %d (CUDA_VISIBLE_DEVICES=%s%s)", (int)out->dev, count,
              getenv("CUDA_VISIBLE_DEVICES") ? getenv("CUDA_VISIBLE_DEVICES") : "(unset)",
              own ? ", the job's own GPU" : "");
    TRY(d->cuDevicePrimaryCtxRetain(&out->ctx, out->dev), AOE_CU_NAME(cuDevicePrimaryCtxRetain),
        AOE_EXEC_NO_DEVICE);
    out->retained = 1;
    TRY(d->cuCtxSetCurrent(out->ctx), "cuCtxSetCurrent", AOE_EXEC_NO_DEVICE);
    return AOE_EXEC_OK;
}

void aoe_cuda_device_close(aoe_cuda_driver *d, aoe_cuda_device *dev)
{
    if (dev->retained && d->cuDevicePrimaryCtxRelease) d->cuDevicePrimaryCtxRelease(dev->dev);
    dev->retained = 0;
}
