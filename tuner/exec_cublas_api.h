/* The CUDA driver (exec_cuda_driver.h), cuBLASLt and (for a cuBLAS-path job) cuBLAS entry points
 * the GEMM executor calls, loaded with dlopen/dlsym (aoe links no CUDA
 * library). Names are resolved as the libraries export them: cuda.h's macros
 * turn cuMemAlloc into cuMemAlloc_v2, and the string looked up is that
 * expansion; cuBLAS' are named by their exported _v2 names directly. */
#ifndef AOE_EXEC_CUBLAS_API_H
#define AOE_EXEC_CUBLAS_API_H

#include <cublasLt.h>
#include <cublas_v2.h>
#include "tuner/exec_cuda_driver.h"
#include <stddef.h>
#include <stdint.h>

#define AOE_CUBLASLT_FUNCS(X)                                                                      \
    X(cublasLtCreate)                                                                              \
    X(cublasLtDestroy)                                                                             \
    X(cublasLtGetVersion)                                                                          \
    X(cublasLtGetStatusName)                                                                       \
    X(cublasLtMatmulDescCreate)                                                                    \
    X(cublasLtMatmulDescDestroy)                                                                   \
    X(cublasLtMatmulDescSetAttribute)                                                              \
    X(cublasLtMatrixLayoutCreate)                                                                  \
    X(cublasLtMatrixLayoutDestroy)                                                                 \
    X(cublasLtMatrixLayoutSetAttribute)                                                            \
    X(cublasLtMatmulPreferenceCreate)                                                              \
    X(cublasLtMatmulPreferenceDestroy)                                                             \
    X(cublasLtMatmulPreferenceSetAttribute)                                                        \
    X(cublasLtMatmulAlgoGetHeuristic)                                                              \
    X(cublasLtMatmulAlgoGetIds)                                                                    \
    X(cublasLtMatmulAlgoInit)                                                                      \
    X(cublasLtMatmulAlgoCapGetAttribute)                                                           \
    X(cublasLtMatmulAlgoConfigSetAttribute)                                                        \
    X(cublasLtMatmulAlgoConfigGetAttribute)                                                        \
    X(cublasLtMatmulAlgoCheck)                                                                     \
    X(cublasLtMatmul)

/* cuBLAS' own call, the default of a cuBLAS-path job (cublas_v2.h's macros
 * name the _v2 exports; these are those exports). */
#define AOE_CUBLAS_FUNCS(X)                                                                        \
    X(cublasCreate_v2)                                                                             \
    X(cublasDestroy_v2)                                                                            \
    X(cublasSetStream_v2)                                                                          \
    X(cublasSetWorkspace_v2)                                                                       \
    X(cublasSetPointerMode_v2)                                                                     \
    X(cublasSetMathMode)                                                                           \
    X(cublasGemmEx)                                                                                \
    X(cublasGemmStridedBatchedEx)
/* ... and, when exported (NULL otherwise), the 64-bit forms for sizes above INT_MAX. */
#define AOE_CUBLAS_FUNCS_64(X)                                                                     \
    X(cublasGemmEx_64)                                                                             \
    X(cublasGemmStridedBatchedEx_64)

typedef struct {
    aoe_cuda_driver cu; /* libcuda.so.1 (exec_cuda_driver.h) */
    void *lt, *blas;    /* dlopen handles (blas: a cuBLAS-path job only) */
#define AOE_API_FIELD(f) __typeof__(&f) f;
    AOE_CUBLASLT_FUNCS(AOE_API_FIELD)
    AOE_CUBLAS_FUNCS(AOE_API_FIELD)
    AOE_CUBLAS_FUNCS_64(AOE_API_FIELD)
#undef AOE_API_FIELD
    size_t blas_version; /* cuBLAS' version (major*10000+minor*100+patch) when blas is loaded */
} aoe_cublas_api;

/* Loads libcuda.so.1 and libcublasLt.so.<major> (and, with want_blas,
 * libcublas.so.<major>: its version and AOE_CUBLAS_FUNCS): from lib_dir first when
 * it is not NULL (absolute, a directory nobody but its owner can write),
 * then the system's search path. dir_name: how messages name lib_dir
 * ("AOE_CUBLAS_LIB_DIR="). 0, or -1 with one line in err. */
int aoe_cublas_api_load(aoe_cublas_api *api, unsigned major, int want_blas, const char *lib_dir,
                        const char *dir_name, char *err, size_t errlen);
void aoe_cublas_api_unload(aoe_cublas_api *api);

/* "CUBLAS_STATUS_NOT_SUPPORTED" style names of results. */
const char *aoe_cublas_status_name(const aoe_cublas_api *api, cublasStatus_t s);

#endif
