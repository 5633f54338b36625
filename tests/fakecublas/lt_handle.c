/* cuBLASLt handles, version queries and the fake's own time accessors. */
#include "fc_clock.h"
#include "fakecublas.h"
#include "fc_status.h"
#include "lt_internal.h"

#include <stdlib.h>

/* One per loaded copy of the library: another copy's handle (another
 * major's) is refused, where the real library would misread it. */
static const char owner_tag;

struct cublasLtContext {
    uint32_t magic;
    const void *owner;
};
#define LT_MAGIC_HANDLE 0x4c54484eu

int lt_handle_valid(cublasLtHandle_t h)
{
    return h && h->magic == LT_MAGIC_HANDLE && h->owner == &owner_tag;
}

cublasStatus_t cublasLtCreate(cublasLtHandle_t *handle)
{
    if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
    if (!fc_catalogue())
        return CUBLAS_STATUS_NOT_INITIALIZED; /* FAKECUBLAS_CATALOGUE is unusable */
    fc_load_driver();
    struct cublasLtContext *h = calloc(1, sizeof *h);
    if (!h) return CUBLAS_STATUS_ALLOC_FAILED;
    h->magic = LT_MAGIC_HANDLE;
    h->owner = &owner_tag;
    *handle = h;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtDestroy(cublasLtHandle_t handle)
{
    if (!lt_handle_valid(handle)) return CUBLAS_STATUS_NOT_INITIALIZED;
    handle->magic = 0;
    free(handle);
    return CUBLAS_STATUS_SUCCESS;
}

size_t cublasLtGetVersion(void)
{
    return (size_t)fc_version();
}
size_t cublasLtGetCudartVersion(void)
{
    return 13000;
}
cublasStatus_t cublasLtGetProperty(libraryPropertyType type, int *value)
{
    return fc_property(type, value);
}
const char *cublasLtGetStatusName(cublasStatus_t status)
{
    return fc_status_name(status);
}
const char *cublasLtGetStatusString(cublasStatus_t status)
{
    return fc_status_string(status);
}

/* Not in the real library: the simulated time of the last cublasLtMatmul,
 * the sum over all, and how many ran (fc_clock.h). */
double fakecublasLt_last_time_us(void)
{
    return fc_clock_last();
}
double fakecublasLt_total_time_us(void)
{
    return fc_clock_total();
}
unsigned long long fakecublasLt_matmul_count(void)
{
    return fc_clock_count();
}
