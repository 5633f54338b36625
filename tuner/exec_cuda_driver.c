/* Loading the CUDA driver and finding the job's device (exec_cuda_driver.h),
 * shared by the GEMM and the kernel executors. */
#include "tuner/exec_cuda_driver.h"
#include "store/fingerprint.h"
#include "store/record.h"

#include <dlfcn.h>
#include <stdio.h>
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

aoe_exec_status aoe_cuda_device_open(aoe_cuda_driver *d, const char *fingerprint,
                                     aoe_cuda_device *out, char *detail, size_t len)
{
    int count = 0, drv = 0, sms = 0;
    char name[256] = "", fp[AOE_FINGERPRINT_LEN] = "";
    memset(out, 0, sizeof *out);
    TRY(d->cuInit(0), "cuInit", AOE_EXEC_NO_DEVICE);
    TRY(d->cuDeviceGetCount(&count), "cuDeviceGetCount", AOE_EXEC_NO_DEVICE);
    if (count < 1) {
        snprintf(detail, len, "cuda: no CUDA device");
        return AOE_EXEC_NO_DEVICE;
    }
    TRY(d->cuDriverGetVersion(&drv), "cuDriverGetVersion", AOE_EXEC_NO_DEVICE);
    for (int i = 0; i < count; i++) { /* the first device whose fingerprint is the job's */
        CUdevice dev;
        TRY(d->cuDeviceGet(&dev, i), "cuDeviceGet", AOE_EXEC_NO_DEVICE);
        TRY(d->cuDeviceGetName(name, (int)sizeof name - 1, dev), "cuDeviceGetName",
            AOE_EXEC_NO_DEVICE);
        TRY(d->cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev),
            "cuDeviceGetAttribute", AOE_EXEC_NO_DEVICE);
        TRY(d->cuDeviceGetAttribute(&out->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                    dev),
            "cuDeviceGetAttribute", AOE_EXEC_NO_DEVICE);
        TRY(d->cuDeviceGetAttribute(&out->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                    dev),
            "cuDeviceGetAttribute", AOE_EXEC_NO_DEVICE);
        aoe_fingerprint_cuda(fp, sizeof fp, name, drv, (unsigned)sms, out->cc_major, out->cc_minor);
        if (fingerprint && !strcmp(fp, fingerprint)) {
            out->dev = dev;
            TRY(d->cuDevicePrimaryCtxRetain(&out->ctx, dev), AOE_CU_NAME(cuDevicePrimaryCtxRetain),
                AOE_EXEC_NO_DEVICE);
            out->retained = 1;
            TRY(d->cuCtxSetCurrent(out->ctx), "cuCtxSetCurrent", AOE_EXEC_NO_DEVICE);
            return AOE_EXEC_OK;
        }
    }
    snprintf(detail, len, "cuda: the job is for device '%s', this machine has '%s'",
             fingerprint ? fingerprint : "", fp);
    return AOE_EXEC_NO_DEVICE;
}

void aoe_cuda_device_close(aoe_cuda_driver *d, aoe_cuda_device *dev)
{
    if (dev->retained && d->cuDevicePrimaryCtxRelease) d->cuDevicePrimaryCtxRelease(dev->dev);
    dev->retained = 0;
}
