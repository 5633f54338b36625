/* Calls cuBLAS and cuBLASLt the way PyTorch 2.11 does (measured on an H100:
 * docs/experiments/cuda-probes-h100.md) and checks every result against its
 * own double-precision reference:
 *   (a) F.linear(x, W, b): cuBLASLt, fresh descriptors, TN, epilogue BIAS,
 *       heuristic with requestedAlgoCount 1, a 1 MiB workspace and the
 *       pointers' alignments, then
 *       cublasLtMatmul with that algorithm;
 *   (b) x @ W.t(): cublasGemmEx TN, CUBLAS_COMPUTE_32F,
 *       CUBLAS_GEMM_DEFAULT_TENSOR_OP, with cublasSetWorkspace_v2 (32 MiB) and
 *       cublasSetMathMode around it;
 *   (c) torch.bmm: cublasGemmStridedBatchedEx NN;
 *   (d) fp32 mm with allow_tf32: cublasSgemm_v2 under math mode TF32.
 * "Device" memory is host memory (the fakes compute on the CPU).
 * Usage: gemm_torchlike [bf16|f16] [M N K]. Prints what the heuristic
 * returned and one line per case; exit status 1 when a result is wrong.
 * Built twice: against the fakes, and (gemm_torchlike_real) against the real
 * libraries, then run on the fakes through LD_LIBRARY_PATH. */
#include "half_util.h"

#include <cublasLt.h>
#include <cublas_v2.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cublasStatus_t st_ = (call);                                                               \
        if (st_ != CUBLAS_STATUS_SUCCESS) {                                                        \
            fprintf(stderr, "gemm_torchlike: %s failed: %d\n", #call, (int)st_);                   \
            exit(2);                                                                               \
        }                                                                                          \
    } while (0)

struct tensor { /* elements in the half type, and the same values as floats */
    uint16_t *h;
    float *f;
    long n;
};

static int use_f16;
static cudaDataType half_type(void)
{
    return use_f16 ? CUDA_R_16F : CUDA_R_16BF;
}
static float round_half(float v)
{
    return use_f16 ? from_f16(to_f16(v)) : from_bf16(to_bf16(v));
}
static float load_half(uint16_t v)
{
    return use_f16 ? from_f16(v) : from_bf16(v);
}

static struct tensor tensor(unsigned seed, long n)
{
    struct tensor t = {calloc((size_t)n, 2), calloc((size_t)n, sizeof(float)), n};
    if (!t.h || !t.f) exit(2);
    for (long i = 0; i < n; i++) {
        t.f[i] = round_half(test_value(seed, i));
        t.h[i] = use_f16 ? to_f16(t.f[i]) : to_bf16(t.f[i]);
    }
    return t;
}

/* Compares out (half) with ref (double): tolerance of the half type's rounding. */
static void verdict(const char *what, const uint16_t *out, const double *ref, long n)
{
    double worst = 0, tol = use_f16 ? 4e-3 : 2e-2;
    int bad = 0;
    for (long i = 0; i < n; i++) {
        double got = load_half(out[i]), err = fabs(got - ref[i]) / (1.0 + fabs(ref[i]));
        if (!(err <= tol)) bad = 1;
        if (err > worst || err != err) worst = err;
    }
    printf("%s: max relative error %.3g: %s\n", what, worst, bad ? "WRONG" : "ok");
    failures += bad;
}

static double last_time(const char *sym)
{
    double (*fn)(void) = (double (*)(void))dlsym(RTLD_DEFAULT, sym);
    return fn ? fn() : -1.0; /* the real libraries have no simulated clock */
}

/* PyTorch's _getAlignment: the largest power of two up to 256 dividing p. */
static uint32_t alignment(const void *p)
{
    uint32_t a = 256;
    while ((uintptr_t)p % a) a /= 2;
    return a;
}

/* y[M,N] = x[M,K] W[N,K]^T + b[N] (row-major, as PyTorch holds them). */
static void linear_bias(cublasLtHandle_t lt, int M, int N, int K)
{
    struct tensor x = tensor(1, (long)M * K), w = tensor(2, (long)N * K), b = tensor(3, N);
    uint16_t *y = calloc((size_t)M * N, 2);
    double *ref = calloc((size_t)M * N, sizeof(double));
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double acc = b.f[j];
            for (int l = 0; l < K; l++) acc += (double)x.f[(long)i * K + l] * w.f[(long)j * K + l];
            ref[(long)i * N + j] = acc;
        }
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t la, lb, lc;
    cublasLtMatmulPreference_t pref;
    cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_BIAS;
    const void *bias = b.h;
    uint64_t ws_size = 1u << 20;
    CHECK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
    CHECK(
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
    CHECK(cublasLtMatrixLayoutCreate(&la, half_type(), K, N, K));
    CHECK(cublasLtMatrixLayoutCreate(&lb, half_type(), K, M, K));
    CHECK(cublasLtMatrixLayoutCreate(&lc, half_type(), N, M, N));
    CHECK(cublasLtMatmulPreferenceCreate(&pref));
    CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                               &ws_size, sizeof ws_size));
    /* The pointers' alignments, as gemm_and_bias (aten/src/ATen/cuda/CUDABlas.cpp) passes
     * them: A = weight, B = input, C = result, D = the bias pointer's. */
    uint32_t align[4] = {alignment(w.h), alignment(x.h), alignment(y), alignment(b.h)};
    for (int i = 0; i < 4; i++)
        CHECK(cublasLtMatmulPreferenceSetAttribute(
            pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES + i, &align[i], sizeof align[i]));
    cublasLtMatmulHeuristicResult_t res;
    int got = 0;
    CHECK(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 1, &res, &got));
    int id = -1, split = 0;
    uint32_t tile = 0;
    cublasLtMatmulAlgoConfigGetAttribute(&res.algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, NULL);
    cublasLtMatmulAlgoConfigGetAttribute(&res.algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile,
                                         sizeof tile, NULL);
    cublasLtMatmulAlgoConfigGetAttribute(&res.algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &split,
                                         sizeof split, NULL);
    printf("heuristic: %d algorithm(s): id %d tile %u split_k %d workspace %zu\n", got, id, tile,
           split, res.workspaceSize);
    void *ws = malloc(ws_size);
    float alpha = 1, beta = 0;
    CHECK(cublasLtMatmul(lt, op, &alpha, w.h, la, x.h, lb, &beta, y, lc, y, lc, &res.algo, ws,
                         ws_size, NULL));
    printf("linear_bias time_us %.3f\n", last_time("fakecublasLt_last_time_us"));
    verdict("linear_bias (cublasLtMatmul)", y, ref, (long)M * N);
    cublasLtMatmulPreferenceDestroy(pref);
    cublasLtMatrixLayoutDestroy(la), cublasLtMatrixLayoutDestroy(lb),
        cublasLtMatrixLayoutDestroy(lc);
    cublasLtMatmulDescDestroy(op);
    free(ws), free(y), free(ref), free(x.h), free(x.f), free(w.h), free(w.f), free(b.h), free(b.f);
}

/* PyTorch's prologue around every GEMM. */
static void torch_prologue(cublasHandle_t h, void *ws)
{
    cublasPointerMode_t pm;
    CHECK(cublasSetStream_v2(h, NULL));
    CHECK(cublasGetPointerMode_v2(h, &pm));
    CHECK(cublasSetWorkspace_v2(h, ws, 32u << 20));
    CHECK(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
}

/* y[M,N] = x[M,K] W[N,K]^T through cublasGemmEx. */
static void mm(cublasHandle_t h, void *ws, int M, int N, int K)
{
    struct tensor x = tensor(4, (long)M * K), w = tensor(5, (long)N * K);
    uint16_t *y = calloc((size_t)M * N, 2);
    double *ref = calloc((size_t)M * N, sizeof(double));
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            for (int l = 0; l < K; l++)
                ref[(long)i * N + j] += (double)x.f[(long)i * K + l] * w.f[(long)j * K + l];
    float alpha = 1, beta = 0;
    torch_prologue(h, ws);
    CHECK(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &alpha, w.h, half_type(), K, x.h,
                       half_type(), K, &beta, y, half_type(), N, CUBLAS_COMPUTE_32F,
                       CUBLAS_GEMM_DEFAULT_TENSOR_OP));
    CHECK(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
    printf("mm time_us %.3f\n", last_time("fakecublas_last_time_us"));
    verdict("mm (cublasGemmEx)", y, ref, (long)M * N);
    free(y), free(ref), free(x.h), free(x.f), free(w.h), free(w.f);
}

/* c[B,M,N] = a[B,M,K] b[B,K,N] through cublasGemmStridedBatchedEx. */
static void bmm(cublasHandle_t h, void *ws, int Bt, int M, int N, int K)
{
    struct tensor a = tensor(6, (long)Bt * M * K), b = tensor(7, (long)Bt * K * N);
    uint16_t *c = calloc((size_t)Bt * M * N, 2);
    double *ref = calloc((size_t)Bt * M * N, sizeof(double));
    for (int q = 0; q < Bt; q++)
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++)
                for (int l = 0; l < K; l++)
                    ref[((long)q * M + i) * N + j] +=
                        (double)a.f[((long)q * M + i) * K + l] * b.f[((long)q * K + l) * N + j];
    float alpha = 1, beta = 0;
    torch_prologue(h, ws);
    CHECK(cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, b.h, half_type(),
                                     N, (long long)K * N, a.h, half_type(), K, (long long)M * K,
                                     &beta, c, half_type(), N, (long long)M * N, Bt,
                                     CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP));
    CHECK(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
    verdict("bmm (cublasGemmStridedBatchedEx)", c, ref, (long)Bt * M * N);
    free(c), free(ref), free(a.h), free(a.f), free(b.h), free(b.f);
}

/* fp32 y[M,N] = x[M,K] W[N,K]^T with allow_tf32: cublasSgemm_v2 under TF32 math. */
static void sgemm(cublasHandle_t h, void *ws, int M, int N, int K)
{
    float *x = malloc(sizeof(float) * M * K), *w = malloc(sizeof(float) * N * K),
          *y = calloc((size_t)M * N, 4);
    double worst = 0;
    for (long i = 0; i < (long)M * K; i++) x[i] = test_value(8, i);
    for (long i = 0; i < (long)N * K; i++) w[i] = test_value(9, i);
    float alpha = 1, beta = 0;
    torch_prologue(h, ws);
    CHECK(cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH));
    CHECK(cublasSgemm_v2(h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &alpha, w, K, x, K, &beta, y, N));
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double acc = 0;
            for (int l = 0; l < K; l++) acc += (double)x[(long)i * K + l] * w[(long)j * K + l];
            double err = fabs(y[(long)i * N + j] - acc) / (1.0 + fabs(acc));
            if (!(err <= worst)) worst = err;
        }
    int bad = !(worst <= 1e-4);
    printf("sgemm (cublasSgemm_v2): max relative error %.3g: %s\n", worst, bad ? "WRONG" : "ok");
    failures += bad;
    free(x), free(w), free(y);
}

int main(int argc, char **argv)
{
    int M = 3, N = 24, K = 40;
    if (argc > 1 && strcmp(argv[1], "f16") == 0)
        use_f16 = 1;
    else if (argc > 1 && strcmp(argv[1], "bf16") != 0) {
        fprintf(stderr, "usage: gemm_torchlike [bf16|f16] [M N K]\n");
        return 2;
    }
    if (argc > 4) M = atoi(argv[2]), N = atoi(argv[3]), K = atoi(argv[4]);
    if (M <= 0 || N <= 0 || K <= 0 || M > 512 || N > 512 || K > 512) {
        fprintf(stderr, "gemm_torchlike: M, N, K must lie in 1..512\n");
        return 2;
    }
#ifdef GEMM_TORCHLIKE_REAL
    printf("linked against the real libcublasLt.so.13 and libcublas.so.13\n");
#endif
    printf("cublasLtGetVersion %zu\n", cublasLtGetVersion());
    cublasLtHandle_t lt;
    cublasHandle_t h;
    CHECK(cublasLtCreate(&lt));
    CHECK(cublasCreate_v2(&h));
    int version = 0;
    CHECK(cublasGetVersion_v2(h, &version));
    printf("cublasGetVersion %d\n", version);
    void *ws = malloc(32u << 20);
    linear_bias(lt, M, N, K);
    mm(h, ws, M, N, K);
    bmm(h, ws, 2, M, N, K);
    sgemm(h, ws, M, N, K);
    free(ws);
    CHECK(cublasDestroy_v2(h));
    CHECK(cublasLtDestroy(lt));
    return failures ? 1 : 0;
}
