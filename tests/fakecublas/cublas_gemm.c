/* cublasGemmEx, cublasGemmStridedBatchedEx, cublasSgemm_v2,
 * cublasSgemmStridedBatched and their _64 forms: one core computing
 * C = alpha*op(A)op(B) + beta*C through the catalogue's default algorithm
 * ("cublas_default"), whose cost the clock records. */
#include "cublas_internal.h"
#include "fc_catalogue.h"
#include "fc_clock.h"
#include "fc_gemm.h"

#include <dlfcn.h>
#include <stdlib.h>

struct blas_call {
    cublasOperation_t ta, tb;
    int64_t m, n, k, batch;
    const void *alpha, *beta;
    const void *a, *b;
    void *c;
    int at, bt, ct;
    int64_t lda, ldb, ldc;
    long long sa, sb, sc;
    cublasComputeType_t compute;
    int algo; /* cublasGemmAlgo_t */
};

typedef void (*host_fn)(double);

/* FAKECUBLAS_HOST_US (default 0): the host time cuBLAS' own call spends
 * choosing its algorithm before its kernel is issued, handed to the fake
 * driver's clock (fakecuda_host_us: the device idles that long unless work
 * queued earlier keeps it busy). A cuBLASLt call given its algorithm has
 * none. Without the fake driver in the process it is not modelled. */
static void host_cost(void)
{
    const char *v = getenv("FAKECUBLAS_HOST_US");
    double us = v ? strtod(v, NULL) : 0;
    if (!(us > 0)) return;
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD); /* loaded globally or not */
    if (!h) return;
    host_fn f = (host_fn)dlsym(h, "fakecuda_host_us");
    dlclose(h); /* NOLOAD took a reference; the library stays loaded */
    if (f) f(us);
}

static int op_ok(cublasOperation_t op)
{
    return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C;
}

static cublasStatus_t gemm(cublasHandle_t h, const struct blas_call *c)
{
    if (!cublas_handle_valid(h)) return CUBLAS_STATUS_NOT_INITIALIZED;
    int ta = c->ta != CUBLAS_OP_N, tb = c->tb != CUBLAS_OP_N;
    if (!op_ok(c->ta) || !op_ok(c->tb) || c->m < 0 || c->n < 0 || c->k < 0 || c->batch < 0 ||
        c->lda < (ta ? c->k : c->m) || c->lda < 1 || c->ldb < (tb ? c->n : c->k) || c->ldb < 1 ||
        c->ldc < c->m || c->ldc < 1 ||
        !(c->algo == CUBLAS_GEMM_DEFAULT ||
          (c->algo >= CUBLAS_GEMM_ALGO0 && c->algo <= CUBLAS_GEMM_ALGO23) ||
          (c->algo >= CUBLAS_GEMM_DEFAULT_TENSOR_OP && c->algo <= CUBLAS_GEMM_ALGO15_TENSOR_OP)))
        return CUBLAS_STATUS_INVALID_VALUE;
    int ae = fc_elem_of(c->at), ce = fc_elem_of(c->ct);
    if (!(c->compute == CUBLAS_COMPUTE_32F || c->compute == CUBLAS_COMPUTE_32F_PEDANTIC ||
          c->compute == CUBLAS_COMPUTE_32F_FAST_16F || c->compute == CUBLAS_COMPUTE_32F_FAST_16BF ||
          c->compute == CUBLAS_COMPUTE_32F_FAST_TF32) ||
        ae < 0 || c->bt != c->at || ce < 0 || (ce != ae && ce != FC_F32))
        return CUBLAS_STATUS_NOT_SUPPORTED;
    if (c->m == 0 || c->n == 0 || c->batch == 0) return CUBLAS_STATUS_SUCCESS;
    if (!c->alpha || !c->beta || !c->c || (c->k && (!c->a || !c->b)))
        return CUBLAS_STATUS_INVALID_VALUE;
    if ((double)c->m * (double)c->n * (double)c->k * (double)c->batch > (double)FC_MAX_MACS)
        return CUBLAS_STATUS_NOT_SUPPORTED; /* too large for the CPU reference */
    const struct fc_catalogue *cat = fc_catalogue();
    const struct fc_algo_info *algo = fc_catalogue_find(cat, cat ? cat->cublas_default : -1);
    if (!algo) return CUBLAS_STATUS_NOT_INITIALIZED;
    struct fc_gemm g = {
        .transa = ta,
        .transb = tb,
        .m = c->m,
        .n = c->n,
        .k = c->k,
        .batch = c->batch,
        .alpha = *(const float *)c->alpha,
        .beta = *(const float *)c->beta,
        .a = {c->a, (enum fc_elem)ae, c->lda, c->sa},
        .b = {c->b, (enum fc_elem)ae, c->ldb, c->sb},
        .c = {c->c, (enum fc_elem)ce, c->ldc, c->sc},
        .d = {c->c, (enum fc_elem)ce, c->ldc, c->sc},
        .epilogue = 1, /* CUBLASLT_EPILOGUE_DEFAULT */
    };
    fc_gemm_run(&g, algo);
    struct fc_config config = fc_config_default(algo);
    struct fc_problem p = {c->m, c->n, c->k, c->batch};
    host_cost();
    fc_clock_add(fc_cost_us(algo, &config, &p));
    return CUBLAS_STATUS_SUCCESS;
}

/* The public entry points call these, never each other: a shim that hooks
 * one of them sees exactly the calls the program made. */
static cublasStatus_t gemm_ex(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
                              int64_t m, int64_t n, int64_t k, const void *alpha, const void *A,
                              cudaDataType at, int64_t lda, const void *B, cudaDataType bt,
                              int64_t ldb, const void *beta, void *C, cudaDataType ct, int64_t ldc,
                              cublasComputeType_t compute, cublasGemmAlgo_t algo)
{
    struct blas_call c = {ta, tb, m,  n,   k,   1,   alpha, beta, A, B,       C,
                          at, bt, ct, lda, ldb, ldc, 0,     0,    0, compute, algo};
    return gemm(h, &c);
}

static cublasStatus_t gemm_sb_ex(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
                                 int64_t m, int64_t n, int64_t k, const void *alpha, const void *A,
                                 cudaDataType at, int64_t lda, long long sa, const void *B,
                                 cudaDataType bt, int64_t ldb, long long sb, const void *beta,
                                 void *C, cudaDataType ct, int64_t ldc, long long sc, int64_t batch,
                                 cublasComputeType_t compute, cublasGemmAlgo_t algo)
{
    struct blas_call c = {ta, tb, m,  n,   k,   batch, alpha, beta, A,  B,       C,
                          at, bt, ct, lda, ldb, ldc,   sa,    sb,   sc, compute, algo};
    return gemm(h, &c);
}

cublasStatus_t cublasGemmEx_64(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
                               int64_t m, int64_t n, int64_t k, const void *alpha, const void *A,
                               cudaDataType at, int64_t lda, const void *B, cudaDataType bt,
                               int64_t ldb, const void *beta, void *C, cudaDataType ct, int64_t ldc,
                               cublasComputeType_t compute, cublasGemmAlgo_t algo)
{
    return gemm_ex(h, ta, tb, m, n, k, alpha, A, at, lda, B, bt, ldb, beta, C, ct, ldc, compute,
                   algo);
}

cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                            int n, int k, const void *alpha, const void *A, cudaDataType at,
                            int lda, const void *B, cudaDataType bt, int ldb, const void *beta,
                            void *C, cudaDataType ct, int ldc, cublasComputeType_t compute,
                            cublasGemmAlgo_t algo)
{
    return gemm_ex(h, ta, tb, m, n, k, alpha, A, at, lda, B, bt, ldb, beta, C, ct, ldc, compute,
                   algo);
}

cublasStatus_t cublasGemmStridedBatchedEx_64(
    cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n, int64_t k,
    const void *alpha, const void *A, cudaDataType at, int64_t lda, long long sa, const void *B,
    cudaDataType bt, int64_t ldb, long long sb, const void *beta, void *C, cudaDataType ct,
    int64_t ldc, long long sc, int64_t batch, cublasComputeType_t compute, cublasGemmAlgo_t algo)
{
    return gemm_sb_ex(h, ta, tb, m, n, k, alpha, A, at, lda, sa, B, bt, ldb, sb, beta, C, ct, ldc,
                      sc, batch, compute, algo);
}

cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t h, cublasOperation_t ta,
                                          cublasOperation_t tb, int m, int n, int k,
                                          const void *alpha, const void *A, cudaDataType at,
                                          int lda, long long sa, const void *B, cudaDataType bt,
                                          int ldb, long long sb, const void *beta, void *C,
                                          cudaDataType ct, int ldc, long long sc, int batch,
                                          cublasComputeType_t compute, cublasGemmAlgo_t algo)
{
    return gemm_sb_ex(h, ta, tb, m, n, k, alpha, A, at, lda, sa, B, bt, ldb, sb, beta, C, ct, ldc,
                      sc, batch, compute, algo);
}

/* fp32: TF32 when the handle's math mode allows it; the fake computes fp32 either way. */
static cublasComputeType_t sgemm_compute(cublasHandle_t h)
{
    return cublas_handle_valid(h) && h->math_mode == CUBLAS_TF32_TENSOR_OP_MATH
               ? CUBLAS_COMPUTE_32F_FAST_TF32
               : CUBLAS_COMPUTE_32F;
}

cublasStatus_t cublasSgemm_v2_64(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
                                 int64_t m, int64_t n, int64_t k, const float *alpha,
                                 const float *A, int64_t lda, const float *B, int64_t ldb,
                                 const float *beta, float *C, int64_t ldc)
{
    return gemm_ex(h, ta, tb, m, n, k, alpha, A, CUDA_R_32F, lda, B, CUDA_R_32F, ldb, beta, C,
                   CUDA_R_32F, ldc, sgemm_compute(h), CUBLAS_GEMM_DEFAULT);
}

cublasStatus_t cublasSgemm_v2(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                              int n, int k, const float *alpha, const float *A, int lda,
                              const float *B, int ldb, const float *beta, float *C, int ldc)
{
    return gemm_ex(h, ta, tb, m, n, k, alpha, A, CUDA_R_32F, lda, B, CUDA_R_32F, ldb, beta, C,
                   CUDA_R_32F, ldc, sgemm_compute(h), CUBLAS_GEMM_DEFAULT);
}

cublasStatus_t cublasSgemmStridedBatched_64(cublasHandle_t h, cublasOperation_t ta,
                                            cublasOperation_t tb, int64_t m, int64_t n, int64_t k,
                                            const float *alpha, const float *A, int64_t lda,
                                            long long sa, const float *B, int64_t ldb, long long sb,
                                            const float *beta, float *C, int64_t ldc, long long sc,
                                            int64_t batch)
{
    return gemm_sb_ex(h, ta, tb, m, n, k, alpha, A, CUDA_R_32F, lda, sa, B, CUDA_R_32F, ldb, sb,
                      beta, C, CUDA_R_32F, ldc, sc, batch, sgemm_compute(h), CUBLAS_GEMM_DEFAULT);
}

cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t h, cublasOperation_t ta,
                                         cublasOperation_t tb, int m, int n, int k,
                                         const float *alpha, const float *A, int lda, long long sa,
                                         const float *B, int ldb, long long sb, const float *beta,
                                         float *C, int ldc, long long sc, int batch)
{
    return gemm_sb_ex(h, ta, tb, m, n, k, alpha, A, CUDA_R_32F, lda, sa, B, CUDA_R_32F, ldb, sb,
                      beta, C, CUDA_R_32F, ldc, sc, batch, sgemm_compute(h), CUBLAS_GEMM_DEFAULT);
}
