/* Host cost of the two GEMM entry points AOE hooks, for
 * scripts/bench/gemm-overhead: in one process, batches of
 *   - cublasLtMatmulAlgoGetHeuristic as PyTorch's Linear with bias asks it
 *     (requestedAlgoCount 1, 1 MiB workspace, epilogue BIAS, alignments),
 *   - cublasGemmEx as PyTorch's bias-free Linear calls it (32 MiB workspace),
 * each through the symbol the program binds to (the shim's wrapper when it
 * is preloaded) and through the library's own entry point (dlvsym on the
 * library's version node: never wrapped), alternating batch by batch.
 * Prints median ns per call over the batches:
 *   heuristic_via_ns= heuristic_direct_ns= gemm_via_ns= gemm_direct_ns=
 * Usage: gemm_overhead [--batches B] [--calls N] [M N K] (default 31, 20000,
 * 4 4 8: small enough that the fake's CPU product costs little). */

#include <cublasLt.h>
#include <cublas_v2.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cublasStatus_t st_ = (call);                                                               \
        if (st_ != CUBLAS_STATUS_SUCCESS) {                                                        \
            fprintf(stderr, "gemm_overhead: %s failed: %d\n", #call, (int)st_);                    \
            exit(2);                                                                               \
        }                                                                                          \
    } while (0)

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void *aligned(size_t bytes)
{
    void *p = NULL;
    if (posix_memalign(&p, 256, bytes)) exit(2);
    memset(p, 0, bytes);
    return p;
}

typedef __typeof__(&cublasLtMatmulAlgoGetHeuristic) heur_fn;
typedef __typeof__(&cublasGemmEx) gemm_fn;

int main(int argc, char **argv)
{
    int batches = 31, calls = 20000, M = 4, N = 4, K = 8, a = 1;
    for (; a < argc && !strncmp(argv[a], "--", 2); a += 2) {
        if (a + 1 >= argc) return 2;
        if (!strcmp(argv[a], "--batches"))
            batches = atoi(argv[a + 1]);
        else if (!strcmp(argv[a], "--calls"))
            calls = atoi(argv[a + 1]);
        else
            return 2;
    }
    if (a + 2 < argc) M = atoi(argv[a]), N = atoi(argv[a + 1]), K = atoi(argv[a + 2]);
    if (batches < 1 || batches > 1000 || calls < 1 || M < 1 || N < 1 || K < 1) {
        fprintf(stderr, "usage: gemm_overhead [--batches B] [--calls N] [M N K]\n");
        return 2;
    }
    void *lt_lib = dlopen("libcublasLt.so.13", RTLD_NOW | RTLD_NOLOAD);
    void *blas_lib = dlopen("libcublas.so.13", RTLD_NOW | RTLD_NOLOAD);
    heur_fn heur_direct =
        lt_lib ? (heur_fn)dlvsym(lt_lib, "cublasLtMatmulAlgoGetHeuristic", "libcublasLt.so.13")
               : NULL;
    gemm_fn gemm_direct =
        blas_lib ? (gemm_fn)dlvsym(blas_lib, "cublasGemmEx", "libcublas.so.13") : NULL;
    if (!heur_direct || !gemm_direct) {
        fprintf(stderr, "gemm_overhead: the libraries' own entry points not found\n");
        return 2;
    }
    cublasLtHandle_t lt;
    cublasHandle_t h;
    CHECK(cublasLtCreate(&lt));
    CHECK(cublasCreate_v2(&h));
    uint16_t *x = aligned((size_t)M * K * 2), *w = aligned((size_t)N * K * 2),
             *b = aligned((size_t)N * 2), *y = aligned((size_t)M * N * 2);
    void *ws = aligned(32u << 20);
    /* the Linear with bias's descriptors (PyTorch makes them per call; the
     * heuristic call is what is measured) */
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t la, lb, lc;
    cublasLtMatmulPreference_t pref;
    cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_BIAS;
    const void *bias = b;
    uint64_t ws_size = 1u << 20;
    uint32_t al = 256;
    CHECK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
    CHECK(
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
    CHECK(cublasLtMatrixLayoutCreate(&la, CUDA_R_16BF, K, N, K));
    CHECK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_16BF, K, M, K));
    CHECK(cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, N, M, N));
    CHECK(cublasLtMatmulPreferenceCreate(&pref));
    CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                               &ws_size, sizeof ws_size));
    for (int i = 0; i < 4; i++)
        CHECK(cublasLtMatmulPreferenceSetAttribute(
            pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES + i, &al, sizeof al));
    CHECK(cublasSetWorkspace_v2(h, ws, 32u << 20));
    float alpha = 1, beta = 0;
    heur_fn heur_via = cublasLtMatmulAlgoGetHeuristic;
    gemm_fn gemm_via = cublasGemmEx;
    double *hv = calloc((size_t)batches, sizeof(double)),
           *hd = calloc((size_t)batches, sizeof(double));
    double *gv = calloc((size_t)batches, sizeof(double)),
           *gd = calloc((size_t)batches, sizeof(double));
    cublasLtMatmulHeuristicResult_t res;
    int got = 0, tile_via = -1;
    for (int r = 0; r < batches; r++) {
        heur_fn hf[2] = {heur_via, heur_direct};
        double *hs[2] = {hv, hd};
        for (int j = 0; j < 2; j++) {
            double t0 = now_ns();
            for (int i = 0; i < calls; i++)
                CHECK(hf[j](lt, op, la, lb, lc, lc, pref, 1, &res, &got));
            hs[j][r] = (now_ns() - t0) / calls;
            if (j == 0)
                cublasLtMatmulAlgoConfigGetAttribute(&res.algo, CUBLASLT_ALGO_CONFIG_TILE_ID,
                                                     &tile_via, sizeof tile_via, NULL);
        }
        gemm_fn gf[2] = {gemm_via, gemm_direct};
        double *gs[2] = {gv, gd};
        for (int j = 0; j < 2; j++) {
            double t0 = now_ns();
            for (int i = 0; i < calls; i++)
                CHECK(gf[j](h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &alpha, w, CUDA_R_16BF, K, x,
                            CUDA_R_16BF, K, &beta, y, CUDA_R_16BF, N, CUBLAS_COMPUTE_32F,
                            CUBLAS_GEMM_DEFAULT_TENSOR_OP));
            gs[j][r] = (now_ns() - t0) / calls;
        }
    }
    printf("heuristic_via_ns=%.2f heuristic_direct_ns=%.2f gemm_via_ns=%.2f gemm_direct_ns=%.2f "
           "heuristic_tile=%d\n",
           median(hv, batches), median(hd, batches), median(gv, batches), median(gd, batches),
           tile_via);
    cublasLtMatmulPreferenceDestroy(pref);
    cublasLtMatrixLayoutDestroy(la), cublasLtMatrixLayoutDestroy(lb),
        cublasLtMatrixLayoutDestroy(lc);
    cublasLtMatmulDescDestroy(op);
    CHECK(cublasDestroy_v2(h));
    CHECK(cublasLtDestroy(lt));
    free(x), free(w), free(b), free(y), free(ws), free(hv), free(hd), free(gv), free(gd);
    return 0;
}
