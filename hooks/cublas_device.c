/* The CUDA fingerprint of the device a cuBLAS handle works on
 * (hooks/cuda_fingerprint.h), asked from the driver the program already
 * loaded (libcuda.so.1, RTLD_NOLOAD: the shim never loads or initialises
 * CUDA itself). Without a driver (or a current device) GEMMs pass through,
 * said once. Slow path only: handles remember their fingerprint. */
#include "hooks/cublas_internal.h"

#include "core/log.h"
#include "hooks/cuda_fingerprint.h"

#include <dlfcn.h>

static atomic_int g_said_no_driver;

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
    const aoe_cuda_queries q = {
        aoe_real_dlsym(h, "cuCtxGetDevice"),     aoe_real_dlsym(h, "cuDeviceGet"),
        aoe_real_dlsym(h, "cuDeviceGetName"),    aoe_real_dlsym(h, "cuDeviceGetAttribute"),
        aoe_real_dlsym(h, "cuDriverGetVersion"), aoe_real_dlsym(h, "cuDeviceGetUuid_v2")};
    dlclose(h); /* the program's own reference keeps it loaded */
    const char *why = NULL, *fp = aoe_cuda_fingerprint(&q, &why);
    if (!fp) no_driver(why);
    return fp;
}

void aoe_cb_device_atfork_child(void)
{
    aoe_cuda_fingerprint_atfork_child();
}
