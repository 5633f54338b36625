/* cuBLAS handles, their settings, version queries and the fake's own time
 * accessors. */
#include "cublas_internal.h"
#include "fc_catalogue.h"
#include "fc_clock.h"
#include "fakecublas.h"
#include "fc_status.h"

#include <stdlib.h>

const char fc_owner_tag;

cublasStatus_t cublasCreate_v2(cublasHandle_t *handle)
{
    if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
    if (!fc_catalogue())
        return CUBLAS_STATUS_NOT_INITIALIZED; /* FAKECUBLAS_CATALOGUE is unusable */
    fc_load_driver();
    cublasHandle_t h = calloc(1, sizeof *h);
    if (!h) return CUBLAS_STATUS_ALLOC_FAILED;
    h->magic = CUBLAS_MAGIC_HANDLE;
    h->owner = &fc_owner_tag;
    h->math_mode = CUBLAS_DEFAULT_MATH;
    h->pointer_mode = CUBLAS_POINTER_MODE_HOST;
    *handle = h;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy_v2(cublasHandle_t h)
{
    if (!cublas_handle_valid(h)) return CUBLAS_STATUS_NOT_INITIALIZED;
    h->magic = 0;
    free(h);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t h, void *workspace, size_t size)
{
    if (!cublas_handle_valid(h)) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!workspace && size) return CUBLAS_STATUS_INVALID_VALUE;
    h->workspace = workspace, h->workspace_size = size;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetMathMode(cublasHandle_t h, cublasMath_t mode)
{
    if (!cublas_handle_valid(h)) return CUBLAS_STATUS_NOT_INITIALIZED;
    h->math_mode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetMathMode(cublasHandle_t h, cublasMath_t *mode)
{
    if (!cublas_handle_valid(h)) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!mode) return CUBLAS_STATUS_INVALID_VALUE;
    *mode = h->math_mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream_v2(cublasHandle_t h, cudaStream_t stream)
{
    if (!cublas_handle_valid(h)) return CUBLAS_STATUS_NOT_INITIALIZED;
    /* as documented: the handle goes back to the library's own workspace */
    h->stream = stream, h->workspace = NULL, h->workspace_size = 0;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetStream_v2(cublasHandle_t h, cudaStream_t *stream)
{
    if (!cublas_handle_valid(h)) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!stream) return CUBLAS_STATUS_INVALID_VALUE;
    *stream = h->stream;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t h, cublasPointerMode_t mode)
{
    if (!cublas_handle_valid(h)) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (mode != CUBLAS_POINTER_MODE_HOST && mode != CUBLAS_POINTER_MODE_DEVICE)
        return CUBLAS_STATUS_INVALID_VALUE;
    h->pointer_mode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t h, cublasPointerMode_t *mode)
{
    if (!cublas_handle_valid(h)) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!mode) return CUBLAS_STATUS_INVALID_VALUE;
    *mode = h->pointer_mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetVersion_v2(cublasHandle_t h, int *version)
{
    (void)h; /* the real one answers without a handle too */
    if (!version) return CUBLAS_STATUS_INVALID_VALUE;
    *version = fc_version();
    return CUBLAS_STATUS_SUCCESS;
}

size_t cublasGetCudartVersion(void)
{
    return 13000;
}
cublasStatus_t cublasGetProperty(libraryPropertyType type, int *value)
{
    return fc_property(type, value);
}
const char *cublasGetStatusName(cublasStatus_t status)
{
    return fc_status_name(status);
}
const char *cublasGetStatusString(cublasStatus_t status)
{
    return fc_status_string(status);
}

/* Not in the real library: the simulated time of the last GEMM, the sum over
 * all, and how many ran (fc_clock.h). */
double fakecublas_last_time_us(void)
{
    return fc_clock_last();
}
double fakecublas_total_time_us(void)
{
    return fc_clock_total();
}
unsigned long long fakecublas_gemm_count(void)
{
    return fc_clock_count();
}
