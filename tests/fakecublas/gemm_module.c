/* A module linked against cuBLAS 12 (the fakes as libcublas.so.12 and
 * libcublasLt.so.12), loaded by its host RTLD_LOCAL: what a CUDA 12 wheel's
 * extension module is to Python (CuPy's cublas module, PyTorch's cu12 build).
 * Its calls bind to a preloaded shim's wrappers by the PLT, while the
 * library stays out of the global scope.
 * gemm_module_run(): a handle (its pointer mode read back by a call the
 * shim does not wrap, so the module's own library must have made it), one
 * fp32 GEMM (cublasSgemm_v2, 3x24x40) checked against
 * a double-precision reference; prints "gemm_module: ok" or the failing
 * call and status; returns 0 when correct. */
#include <cublasLt.h>
#include <cublas_v2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define M 3
#define N 24
#define K 40

__attribute__((visibility("default"))) int gemm_module_run(void);
__attribute__((visibility("default"))) int gemm_module_gemmex(void);

/* The largest relative error of y = x @ w^T against a double-precision
 * reference (NaN counts as the largest). */
static double worst_error(const float *x, const float *w, const float *y)
{
    double worst = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double acc = 0;
            for (int l = 0; l < K; l++) acc += (double)x[i * K + l] * w[j * K + l];
            double err = fabs(y[i * N + j] - acc) / (1.0 + fabs(acc));
            if (!(err <= worst)) worst = err;
        }
    return worst;
}

int gemm_module_run(void)
{
    /* linked to cuBLASLt too, as the real libcublas.so.12 is */
    printf("gemm_module: cuBLASLt %zu\n", cublasLtGetVersion());
    cublasHandle_t h = NULL;
    cublasStatus_t st = cublasCreate_v2(&h);
    if (st != CUBLAS_STATUS_SUCCESS) {
        printf("gemm_module: cublasCreate_v2 failed: %d\n", (int)st);
        return 1;
    }
    /* a call the shim does not wrap: it reaches this module's own library,
     * which must be the one that made the handle */
    cublasPointerMode_t pm;
    st = cublasGetPointerMode_v2(h, &pm);
    if (st != CUBLAS_STATUS_SUCCESS) {
        printf("gemm_module: cublasGetPointerMode_v2 failed: %d (the handle is another "
               "library's)\n",
               (int)st);
        return 1;
    }
    /* "device" memory is host memory on the fakes */
    float *x = calloc(M * K, sizeof *x), *w = calloc(N * K, sizeof *w),
          *y = calloc(M * N, sizeof *y);
    if (!x || !w || !y) return 2;
    for (int i = 0; i < M * K; i++) x[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
    for (int i = 0; i < N * K; i++) w[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
    float alpha = 1, beta = 0;
    /* y = x @ w^T, row-major as PyTorch and CuPy see it */
    st = cublasSgemm_v2(h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &alpha, w, K, x, K, &beta, y, N);
    double worst = st == CUBLAS_STATUS_SUCCESS ? worst_error(x, w, y) : 0;
    int bad = st != CUBLAS_STATUS_SUCCESS || !(worst <= 1e-4);
    if (st != CUBLAS_STATUS_SUCCESS)
        printf("gemm_module: cublasSgemm_v2 failed: %d\n", (int)st);
    else
        printf("gemm_module: max relative error %.3g: %s\n", worst, bad ? "WRONG" : "ok");
    free(x), free(w), free(y);
    st = cublasDestroy_v2(h);
    if (st != CUBLAS_STATUS_SUCCESS) printf("gemm_module: cublasDestroy_v2 failed: %d\n", (int)st);
    return bad || st != CUBLAS_STATUS_SUCCESS;
}

/* gemm_module_gemmex(): a handle and one cublasGemmEx (f32, the same GEMM),
 * a function gemm_module_run does not call: its host may load another
 * cuBLAS major in between. Prints "gemm_module: gemmex ok" or the failing
 * call; returns 0 when correct. */
int gemm_module_gemmex(void)
{
    cublasHandle_t h = NULL;
    cublasStatus_t st = cublasCreate_v2(&h);
    float *x = calloc(M * K, sizeof *x), *w = calloc(N * K, sizeof *w),
          *y = calloc(M * N, sizeof *y);
    if (st != CUBLAS_STATUS_SUCCESS || !x || !w || !y) {
        printf("gemm_module: gemmex setup failed: %d\n", (int)st);
        return 1;
    }
    for (int i = 0; i < M * K; i++) x[i] = (float)((i * 3) % 7) / 7.0f;
    for (int i = 0; i < N * K; i++) w[i] = (float)((i * 5) % 11) / 11.0f;
    float alpha = 1, beta = 0;
    st = cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &alpha, w, CUDA_R_32F, K, x, CUDA_R_32F,
                      K, &beta, y, CUDA_R_32F, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    double worst = st == CUBLAS_STATUS_SUCCESS ? worst_error(x, w, y) : 0;
    int bad = st != CUBLAS_STATUS_SUCCESS || !(worst <= 1e-4);
    printf("gemm_module: gemmex %s (status %d)\n", bad ? "WRONG" : "ok", (int)st);
    free(x), free(w), free(y);
    return bad | (cublasDestroy_v2(h) != CUBLAS_STATUS_SUCCESS);
}
