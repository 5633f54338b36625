/* cuBLAS GEMMs: cublasGemmEx, cublasGemmStridedBatchedEx, cublasSgemm_v2,
 * cublasSgemmStridedBatched and their _64 forms (PyTorch's path for mm, bmm
 * and bias-free Linear). Each call is described (path BLAS) and keyed; on a
 * verified bank hit it runs through cublasLtMatmul with the tuned algorithm
 * and the handle's stream, pointer mode, math mode (TF32: compute type
 * 32F_FAST_TF32; no reduced-precision reduction: reduction mask
 * COMPUTE_TYPE), SM-count target and workspace (cublasSetWorkspace_v2);
 * never in pedantic or emulation math modes, for an algorithm the program
 * chose itself, or when cublasLtMatmul fails (the real call then runs: the
 * program never sees a failure AOE caused). Otherwise the real call, and the
 * first sight of a key captures its job. */
#include "hooks/cublas_internal.h"

#include "core/log.h"
#include "preload/reclaim.h"

#include <string.h>

static atomic_int g_said_math, g_said_failed, g_said_algo;
__thread int aoe_cb_in_blas __attribute__((tls_model("initial-exec")));

/* The real call, marked as such for the cublasLtMatmul observer. */
#define REAL_CALL(fn, ...)                                                                         \
    do {                                                                                           \
        aoe_cb_in_blas = 1;                                                                        \
        cublasStatus_t st_ = CB_REAL(fn)(__VA_ARGS__);                                             \
        aoe_cb_in_blas = 0;                                                                        \
        return st_;                                                                                \
    } while (0)

typedef struct {
    cublasOperation_t ta, tb;
    int64_t m, n, k;
    const void *alpha, *A, *B, *beta;
    void *C;
    int32_t at, bt, ct, compute;
    int64_t lda, ldb, ldc;
    long long sa, sb, sc;
    int64_t batch;
    int algo;
} blas_call;

static int32_t scale_type_of(int32_t compute)
{
    switch (compute) {
    case CUBLAS_COMPUTE_16F:
    case CUBLAS_COMPUTE_16F_PEDANTIC:
        return CUDA_R_16F;
    case CUBLAS_COMPUTE_64F:
    case CUBLAS_COMPUTE_64F_PEDANTIC:
        return CUDA_R_64F;
    case CUBLAS_COMPUTE_32I:
    case CUBLAS_COMPUTE_32I_PEDANTIC:
        return CUDA_R_32I;
    default:
        return CUDA_R_32F;
    }
}

static int is_pedantic(int32_t compute)
{
    return compute == CUBLAS_COMPUTE_16F_PEDANTIC || compute == CUBLAS_COMPUTE_32F_PEDANTIC ||
           compute == CUBLAS_COMPUTE_64F_PEDANTIC || compute == CUBLAS_COMPUTE_32I_PEDANTIC;
}

/* beta == 0, read in the scale type (host pointer mode only). */
static int beta_zero(const void *beta, int32_t scale)
{
    switch (scale) {
    case CUDA_R_32F:
        return *(const float *)beta == 0.0f;
    case CUDA_R_64F:
        return *(const double *)beta == 0.0;
    case CUDA_R_16F:
        return (*(const uint16_t *)beta & 0x7fffu) == 0;
    case CUDA_R_32I:
        return *(const int32_t *)beta == 0;
    default:
        return 0;
    }
}

/* 1 when the call ran rerouted through cublasLtMatmul; 0: the caller makes
 * the real call. */
static int try_reroute(cublasHandle_t h, const blas_call *a)
{
    if (a->algo != CUBLAS_GEMM_DEFAULT && a->algo != CUBLAS_GEMM_DEFAULT_TENSOR_OP) {
        aoe_shim_log_once(&g_said_algo, AOE_LOG_DEBUG,
                          "a cuBLAS GEMM with an algorithm the program chose (%d): left alone",
                          a->algo);
        return 0;
    }
    if (a->m <= 0 || a->n <= 0 || a->k <= 0 || a->batch < 1 || !a->alpha || !a->beta || !a->A ||
        !a->B || !a->C || a->lda < 0 || a->ldb < 0 || a->ldc < 0 || a->sa < 0 || a->sb < 0 ||
        a->sc < 0)
        return 0; /* the library reports what is wrong */
    aoe_rd_node *rd = aoe_rd_begin();
    if (!rd) return 0;
    int done = 0;
    aoe_cb_handle *r = aoe_cb_handle_of(h);
    if (!r || !r->fingerprint) goto out;
    int math = atomic_load_explicit(&r->math, memory_order_relaxed);
    int base = math & ~(int)CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;
    if ((base != CUBLAS_DEFAULT_MATH && base != CUBLAS_TENSOR_OP_MATH &&
         base != CUBLAS_TF32_TENSOR_OP_MATH) ||
        is_pedantic(a->compute)) {
        aoe_shim_log_once(&g_said_math, AOE_LOG_INFO,
                          "a cuBLAS handle in pedantic or emulation math mode (math mode %d, "
                          "compute type %d): its GEMMs run as the program asked, untuned",
                          math, (int)a->compute);
        goto out;
    }
    aoe_cb_call c;
    aoe_gemm_desc *g = &c.g;
    aoe_gemm_desc_init(g);
    g->path = AOE_GEMM_PATH_BLAS;
    memcpy(g->library, "cublas", sizeof "cublas");
    g->library_version = aoe_cb_blas_version;
    g->a_type = a->at, g->b_type = a->bt, g->c_type = g->d_type = a->ct;
    g->compute_type = a->compute;
    if (base == CUBLAS_TF32_TENSOR_OP_MATH && a->compute == CUBLAS_COMPUTE_32F &&
        a->at == CUDA_R_32F && a->bt == CUDA_R_32F)
        g->compute_type = CUBLAS_COMPUTE_32F_FAST_TF32; /* what the math mode lets cuBLAS do */
    g->scale_type = scale_type_of(a->compute);
    g->transa = (uint8_t)a->ta, g->transb = (uint8_t)a->tb;
    g->m = (uint64_t)a->m, g->n = (uint64_t)a->n, g->k = (uint64_t)a->k;
    g->lda = (uint64_t)a->lda, g->ldb = (uint64_t)a->ldb, g->ldc = g->ldd = (uint64_t)a->ldc;
    g->batch_count = (uint64_t)a->batch;
    if (a->batch > 1)
        g->stride_a = (uint64_t)a->sa, g->stride_b = (uint64_t)a->sb,
        g->stride_c = g->stride_d = (uint64_t)a->sc;
    int pmode = atomic_load_explicit(&r->pmode, memory_order_relaxed);
    g->pointer_mode = (uint8_t)pmode;
    g->align_a = aoe_gemm_align_class((uintptr_t)a->A);
    g->align_b = aoe_gemm_align_class((uintptr_t)a->B);
    g->align_c = g->align_d = aoe_gemm_align_class((uintptr_t)a->C);
    int ws_known = atomic_load_explicit(&r->ws_known, memory_order_acquire);
    void *ws = ws_known ? atomic_load_explicit(&r->ws, memory_order_relaxed) : NULL;
    size_t ws_size = ws_known ? atomic_load_explicit(&r->ws_size, memory_order_relaxed) : 0;
    g->workspace_limit = ws_size; /* cuBLAS' own workspace is not ours to use */
    if (math & CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)
        g->reduction_mask = CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
    int sm = atomic_load_explicit(&r->sm_target, memory_order_relaxed);
    g->sm_count_target = sm > 0 ? (uint32_t)sm : 0;
    g->flags = AOE_GEMM_FLAG_C_IS_D;
    if (pmode == CUBLAS_POINTER_MODE_HOST && beta_zero(a->beta, g->scale_type))
        g->flags |= AOE_GEMM_FLAG_BETA_ZERO;
    c.lt = NULL, c.op_desc = NULL, c.la = c.lb = c.lc = c.ld = NULL, c.math = (uint32_t)math;
    aoe_key key = aoe_cb_key(r->fingerprint, g);
    aoe_op *op = aoe_cb_operator(&c, r->fingerprint, &key);
    if (!op) goto out;
    atomic_fetch_add_explicit(&op->launches, 1, memory_order_relaxed);
    const aoe_policy_entry *p = atomic_load_explicit(&op->policy, memory_order_acquire);
    if (!p || !(c.lt = aoe_cb_handle_lt(r))) goto out;
    const aoe_cb_built *b = aoe_cb_built_for(op, p, &c);
    if (!b || b->workspace > ws_size) goto out;
    cudaStream_t stream = atomic_load_explicit(&r->stream, memory_order_relaxed);
    cublasStatus_t st =
        CB_REAL(cublasLtMatmul)(c.lt, b->op_desc, a->alpha, a->A, b->la, a->B, b->lb, a->beta, a->C,
                                b->lc, a->C, b->lc, &b->algo, ws, ws_size, stream);
    if (st != CUBLAS_STATUS_SUCCESS) {
        aoe_shim_log_once(&g_said_failed, AOE_LOG_WARN,
                          "%s: cublasLtMatmul with the tuned algorithm failed (status %d); the "
                          "cuBLAS call runs instead (said once)",
                          op->kernel_name, (int)st);
        goto out;
    }
    atomic_fetch_add_explicit(&op->tuned_launches, 1, memory_order_relaxed);
    done = 1;
out:
    aoe_rd_end(rd);
    return done;
}

#define ROUTE(h, ...)                                                                              \
    do {                                                                                           \
        if (aoe_cb_on(AOE_CB_PATH_BLAS)) {                                                         \
            blas_call a_ = {__VA_ARGS__};                                                          \
            if (try_reroute(h, &a_)) return CUBLAS_STATUS_SUCCESS;                                 \
        }                                                                                          \
    } while (0)

#define GEMM_EX(fn, I)                                                                             \
    cublasStatus_t aoe_cbw_##fn(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, \
                                I n, I k, const void *alpha, const void *A, cudaDataType at,       \
                                I lda, const void *B, cudaDataType bt, I ldb, const void *beta,    \
                                void *C, cudaDataType ct, I ldc, cublasComputeType_t compute,      \
                                cublasGemmAlgo_t algo)                                             \
    {                                                                                              \
        if (!CB_REAL(fn)) return CUBLAS_STATUS_NOT_INITIALIZED;                                    \
        ROUTE(h, .ta = ta, .tb = tb, .m = m, .n = n, .k = k, .alpha = alpha, .A = A, .B = B,       \
              .beta = beta, .C = C, .at = at, .bt = bt, .ct = ct, .compute = compute, .lda = lda,  \
              .ldb = ldb, .ldc = ldc, .batch = 1, .algo = algo);                                   \
        REAL_CALL(fn, h, ta, tb, m, n, k, alpha, A, at, lda, B, bt, ldb, beta, C, ct, ldc,         \
                  compute, algo);                                                                  \
    }                                                                                              \
    AOE_CB_ENTRIES(                                                                                \
        "libcublas", fn,                                                                           \
        (cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, I n, I k,              \
         const void *alpha, const void *A, cudaDataType at, I lda, const void *B, cudaDataType bt, \
         I ldb, const void *beta, void *C, cudaDataType ct, I ldc, cublasComputeType_t compute,    \
         cublasGemmAlgo_t algo),                                                                   \
        (h, ta, tb, m, n, k, alpha, A, at, lda, B, bt, ldb, beta, C, ct, ldc, compute, algo))
GEMM_EX(cublasGemmEx, int)
GEMM_EX(cublasGemmEx_64, int64_t)

#define GEMM_SB_EX(fn, I)                                                                          \
    cublasStatus_t aoe_cbw_##fn(                                                                   \
        cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, I n, I k,               \
        const void *alpha, const void *A, cudaDataType at, I lda, long long sa, const void *B,     \
        cudaDataType bt, I ldb, long long sb, const void *beta, void *C, cudaDataType ct, I ldc,   \
        long long sc, I batch, cublasComputeType_t compute, cublasGemmAlgo_t algo)                 \
    {                                                                                              \
        if (!CB_REAL(fn)) return CUBLAS_STATUS_NOT_INITIALIZED;                                    \
        ROUTE(h, .ta = ta, .tb = tb, .m = m, .n = n, .k = k, .alpha = alpha, .A = A, .B = B,       \
              .beta = beta, .C = C, .at = at, .bt = bt, .ct = ct, .compute = compute, .lda = lda,  \
              .ldb = ldb, .ldc = ldc, .sa = sa, .sb = sb, .sc = sc, .batch = batch, .algo = algo); \
        REAL_CALL(fn, h, ta, tb, m, n, k, alpha, A, at, lda, sa, B, bt, ldb, sb, beta, C, ct, ldc, \
                  sc, batch, compute, algo);                                                       \
    }                                                                                              \
    AOE_CB_ENTRIES("libcublas", fn,                                                                \
                   (cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, I n, I k,   \
                    const void *alpha, const void *A, cudaDataType at, I lda, long long sa,        \
                    const void *B, cudaDataType bt, I ldb, long long sb, const void *beta,         \
                    void *C, cudaDataType ct, I ldc, long long sc, I batch,                        \
                    cublasComputeType_t compute, cublasGemmAlgo_t algo),                           \
                   (h, ta, tb, m, n, k, alpha, A, at, lda, sa, B, bt, ldb, sb, beta, C, ct, ldc,   \
                    sc, batch, compute, algo))
GEMM_SB_EX(cublasGemmStridedBatchedEx, int)
GEMM_SB_EX(cublasGemmStridedBatchedEx_64, int64_t)

/* cublasSgemm: f32 everywhere, compute 32F (the math mode may allow TF32). */
#define SGEMM(fn, I)                                                                               \
    cublasStatus_t aoe_cbw_##fn(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, \
                                I n, I k, const float *alpha, const float *A, I lda,               \
                                const float *B, I ldb, const float *beta, float *C, I ldc)         \
    {                                                                                              \
        if (!CB_REAL(fn)) return CUBLAS_STATUS_NOT_INITIALIZED;                                    \
        ROUTE(h, .ta = ta, .tb = tb, .m = m, .n = n, .k = k, .alpha = alpha, .A = A, .B = B,       \
              .beta = beta, .C = C, .at = CUDA_R_32F, .bt = CUDA_R_32F, .ct = CUDA_R_32F,          \
              .compute = CUBLAS_COMPUTE_32F, .lda = lda, .ldb = ldb, .ldc = ldc, .batch = 1,       \
              .algo = CUBLAS_GEMM_DEFAULT);                                                        \
        REAL_CALL(fn, h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);                    \
    }                                                                                              \
    AOE_CB_ENTRIES("libcublas", fn,                                                                \
                   (cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, I n, I k,   \
                    const float *alpha, const float *A, I lda, const float *B, I ldb,              \
                    const float *beta, float *C, I ldc),                                           \
                   (h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc))
SGEMM(cublasSgemm_v2, int)
SGEMM(cublasSgemm_v2_64, int64_t)

#define SGEMM_SB(fn, I)                                                                            \
    cublasStatus_t aoe_cbw_##fn(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, \
                                I n, I k, const float *alpha, const float *A, I lda, long long sa, \
                                const float *B, I ldb, long long sb, const float *beta, float *C,  \
                                I ldc, long long sc, I batch)                                      \
    {                                                                                              \
        if (!CB_REAL(fn)) return CUBLAS_STATUS_NOT_INITIALIZED;                                    \
        ROUTE(h, .ta = ta, .tb = tb, .m = m, .n = n, .k = k, .alpha = alpha, .A = A, .B = B,       \
              .beta = beta, .C = C, .at = CUDA_R_32F, .bt = CUDA_R_32F, .ct = CUDA_R_32F,          \
              .compute = CUBLAS_COMPUTE_32F, .lda = lda, .ldb = ldb, .ldc = ldc, .sa = sa,         \
              .sb = sb, .sc = sc, .batch = batch, .algo = CUBLAS_GEMM_DEFAULT);                    \
        REAL_CALL(fn, h, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, batch); \
    }                                                                                              \
    AOE_CB_ENTRIES("libcublas", fn,                                                                \
                   (cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, I n, I k,   \
                    const float *alpha, const float *A, I lda, long long sa, const float *B,       \
                    I ldb, long long sb, const float *beta, float *C, I ldc, long long sc,         \
                    I batch),                                                                      \
                   (h, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, batch))
SGEMM_SB(cublasSgemmStridedBatched, int)
SGEMM_SB(cublasSgemmStridedBatched_64, int64_t)
