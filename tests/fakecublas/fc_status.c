#include "fc_status.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#define NAMES(X)                                                                                   \
    X(CUBLAS_STATUS_SUCCESS, "success")                                                            \
    X(CUBLAS_STATUS_NOT_INITIALIZED, "the library was not initialized")                            \
    X(CUBLAS_STATUS_ALLOC_FAILED, "the resource allocation failed")                                \
    X(CUBLAS_STATUS_INVALID_VALUE, "an invalid numeric value was used as an argument")             \
    X(CUBLAS_STATUS_ARCH_MISMATCH, "an absent device architectural feature is required")           \
    X(CUBLAS_STATUS_MAPPING_ERROR, "an access to GPU memory space failed")                         \
    X(CUBLAS_STATUS_EXECUTION_FAILED, "the GPU program failed to execute")                         \
    X(CUBLAS_STATUS_INTERNAL_ERROR, "an internal operation failed")                                \
    X(CUBLAS_STATUS_NOT_SUPPORTED, "the functionality requested is not supported")                 \
    X(CUBLAS_STATUS_LICENSE_ERROR, "error detected trying to check the license")

const char *fc_status_name(cublasStatus_t s)
{
#define NAME(v, text)                                                                              \
    if (s == v) return #v;
    NAMES(NAME)
#undef NAME
    return "<unknown>";
}

const char *fc_status_string(cublasStatus_t s)
{
#define TEXT(v, text)                                                                              \
    if (s == v) return text;
    NAMES(TEXT)
#undef TEXT
    return "<unknown>";
}

cublasStatus_t fc_property(libraryPropertyType type, int *value)
{
    if (!value) return CUBLAS_STATUS_INVALID_VALUE;
    int v = fc_version(); /* 130100: 13.1.0 */
    switch (type) {
    case MAJOR_VERSION:
        *value = v / 10000;
        return CUBLAS_STATUS_SUCCESS;
    case MINOR_VERSION:
        *value = v / 100 % 100;
        return CUBLAS_STATUS_SUCCESS;
    case PATCH_LEVEL:
        *value = v % 100;
        return CUBLAS_STATUS_SUCCESS;
    default:
        return CUBLAS_STATUS_INVALID_VALUE;
    }
}

#ifndef FC_DEFAULT_VERSION
#define FC_DEFAULT_VERSION CUBLAS_VERSION
#endif

int fc_version(void)
{
    const char *v = getenv("FAKECUBLAS_VERSION");
    return v && *v ? atoi(v) : FC_DEFAULT_VERSION;
}

void fc_load_driver(void)
{
    const char *off = getenv("FAKECUBLAS_NO_DRIVER");
    if (off && !strcmp(off, "1")) return;
    /* Kept loaded and initialised, as the real libraries' runtime does. */
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    int (*init)(unsigned) = h ? (int (*)(unsigned))dlsym(h, "cuInit") : NULL;
    if (init) init(0);
}
