/* Several threads call cuBLAS and cuBLASLt at once, as a multi-threaded
 * PyTorch program does (tests/integration/shim_cublas_race.sh, also under
 * ThreadSanitizer): each thread has its own cuBLAS handle and workspace and
 * runs cublasGemmEx (bias-free Linear) and, on one shared cuBLASLt handle,
 * the heuristic + cublasLtMatmul (Linear with bias), checking every result
 * against its own reference, while the bank's records for those keys change.
 * Usage: gemm_race [--threads T] [--calls N] [--wait-file F] (after N calls
 * each thread goes on until F exists). Prints "calls=C wrong=W". */
#include "half_util.h"

#include <cublasLt.h>
#include <cublas_v2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define M 8
#define N 8
#define K 16

static cublasLtHandle_t g_lt;
static long g_calls = 1000;
static const char *g_wait;
static uint16_t g_x[M * K] __attribute__((aligned(256))), g_w[N * K] __attribute__((aligned(256))),
    g_b[N] __attribute__((aligned(256)));
static double g_ref[M * N], g_ref_bias[M * N];

struct result {
    long calls, wrong;
};

static int bad(const uint16_t *y, const double *ref)
{
    for (int i = 0; i < M * N; i++)
        if (!(fabs(from_bf16(y[i]) - ref[i]) <= 2e-2 * (1.0 + fabs(ref[i])))) return 1;
    return 0;
}

static void *worker(void *arg)
{
    struct result *r = arg;
    cublasHandle_t h;
    void *ws = NULL, *y_mem = NULL, *ltws = NULL;
    if (cublasCreate_v2(&h) != CUBLAS_STATUS_SUCCESS || posix_memalign(&ws, 256, 32u << 20) ||
        posix_memalign(&y_mem, 256, M * N * 2) || posix_memalign(&ltws, 256, 1u << 20))
        exit(2);
    uint16_t *y = y_mem;
    cublasSetWorkspace_v2(h, ws, 32u << 20);
    for (long i = 0; i < g_calls || (g_wait && access(g_wait, F_OK) != 0); i++) {
        float alpha = 1, beta = 0;
        memset(y, 0, M * N * 2);
        cublasSetMathMode(h, CUBLAS_DEFAULT_MATH);
        if (cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &alpha, g_w, CUDA_R_16BF, K, g_x,
                         CUDA_R_16BF, K, &beta, y, CUDA_R_16BF, N, CUBLAS_COMPUTE_32F,
                         CUBLAS_GEMM_DEFAULT_TENSOR_OP) != CUBLAS_STATUS_SUCCESS ||
            bad(y, g_ref))
            r->wrong++;
        /* PyTorch's Linear with bias: fresh descriptors every call */
        cublasLtMatmulDesc_t op;
        cublasLtMatrixLayout_t la, lb, lc;
        cublasLtMatmulPreference_t pref;
        cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
        cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_BIAS;
        const void *bias = g_b;
        uint64_t lim = 1u << 20;
        cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta);
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb);
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi);
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias);
        cublasLtMatrixLayoutCreate(&la, CUDA_R_16BF, K, N, K);
        cublasLtMatrixLayoutCreate(&lb, CUDA_R_16BF, K, M, K);
        cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, N, M, N);
        cublasLtMatmulPreferenceCreate(&pref);
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &lim,
                                             sizeof lim);
        cublasLtMatmulHeuristicResult_t res;
        int got = 0;
        memset(y, 0, M * N * 2);
        if (cublasLtMatmulAlgoGetHeuristic(g_lt, op, la, lb, lc, lc, pref, 1, &res, &got) !=
                CUBLAS_STATUS_SUCCESS ||
            got != 1 ||
            cublasLtMatmul(g_lt, op, &alpha, g_w, la, g_x, lb, &beta, y, lc, y, lc, &res.algo, ltws,
                           lim, NULL) != CUBLAS_STATUS_SUCCESS ||
            bad(y, g_ref_bias))
            r->wrong++;
        cublasLtMatmulPreferenceDestroy(pref);
        cublasLtMatrixLayoutDestroy(la), cublasLtMatrixLayoutDestroy(lb),
            cublasLtMatrixLayoutDestroy(lc);
        cublasLtMatmulDescDestroy(op);
        r->calls++;
    }
    cublasDestroy_v2(h);
    free(ws), free(y_mem), free(ltws);
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = 4;
    for (int a = 1; a + 1 < argc; a += 2) {
        if (!strcmp(argv[a], "--threads"))
            threads = atoi(argv[a + 1]);
        else if (!strcmp(argv[a], "--calls"))
            g_calls = atol(argv[a + 1]);
        else if (!strcmp(argv[a], "--wait-file"))
            g_wait = argv[a + 1];
    }
    if (threads < 1 || threads > 64 || g_calls < 1) return 2;
    for (int i = 0; i < M * K; i++) g_x[i] = to_bf16(test_value(1, i));
    for (int i = 0; i < N * K; i++) g_w[i] = to_bf16(test_value(2, i));
    for (int i = 0; i < N; i++) g_b[i] = to_bf16(test_value(3, i));
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double acc = 0;
            for (int l = 0; l < K; l++)
                acc += (double)from_bf16(g_x[i * K + l]) * from_bf16(g_w[j * K + l]);
            g_ref[i * N + j] = acc;
            g_ref_bias[i * N + j] = acc + from_bf16(g_b[j]);
        }
    if (cublasLtCreate(&g_lt) != CUBLAS_STATUS_SUCCESS) return 2;
    pthread_t t[64];
    struct result r[64];
    memset(r, 0, sizeof r);
    for (int i = 0; i < threads; i++)
        if (pthread_create(&t[i], NULL, worker, &r[i])) return 2;
    long calls = 0, wrong = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(t[i], NULL);
        calls += r[i].calls, wrong += r[i].wrong;
    }
    cublasLtDestroy(g_lt);
    printf("calls=%ld wrong=%ld\n", calls, wrong);
    return wrong ? 1 : 0;
}
