/* The fingerprint of the current device for the driver hooks, through the
 * driver's real entry points (hooks/cuda_fingerprint.h). First sight only. */
#include "hooks/cuda_internal.h"

#include "core/log.h"
#include "hooks/cuda_fingerprint.h"

static atomic_int g_said;

#define REAL(id) ((void *)aoe_cu_real(AOE_CUF_##id))

const char *aoe_cu_current_fingerprint(void)
{
    const aoe_cuda_queries q = {REAL(CTX_DEVICE),  REAL(DEVICE_GET),     REAL(DEVICE_NAME),
                                REAL(DEVICE_ATTR), REAL(DRIVER_VERSION), REAL(DEVICE_UUID)};
    const char *why = NULL, *fp = aoe_cuda_fingerprint(&q, &why);
    if (!fp) aoe_shim_log_once(&g_said, AOE_LOG_DEBUG, "cannot identify the CUDA device (%s)", why);
    return fp;
}

void aoe_cu_device_atfork_child(void)
{
    aoe_cuda_fingerprint_atfork_child();
}
