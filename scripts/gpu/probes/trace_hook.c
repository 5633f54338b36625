// Probe (not part of the project): logs the cuBLAS/cuBLASLt calls a program makes.
#define _GNU_SOURCE
#include <cublasLt.h>
#include <cublas_v2.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdatomic.h>
#include <time.h>

static atomic_int nlog;
static void *real(const char *n, const char *lib)
{
    void *p = dlsym(RTLD_NEXT, n);
    if (p) return p;
    void *h = dlopen(lib, RTLD_NOLOAD | RTLD_LAZY);
    return h ? dlsym(h, n) : NULL;
}
static const char *who(void *ra)
{
    Dl_info i;
    if (dladdr(ra, &i) && i.dli_fname) {
        const char *s = __builtin_strrchr(i.dli_fname, '/');
        return s ? s + 1 : i.dli_fname;
    }
    return "?";
}
#define RCALL(lib, fn, ...) ((__typeof__(&fn))real(#fn, lib))(__VA_ARGS__)
#define LOG(...)                                                                                   \
    do {                                                                                           \
        if (atomic_fetch_add(&nlog, 1) < 4000) fprintf(stderr, "TRACE " __VA_ARGS__);              \
    } while (0)
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                            int n, int k, const void *al, const void *A, cudaDataType at, int lda,
                            const void *B, cudaDataType bt, int ldb, const void *be, void *C,
                            cudaDataType ct, int ldc, cublasComputeType_t cp, cublasGemmAlgo_t algo)
{
    static __typeof__(&cublasGemmEx) f;
    if (!f) {
        f = real("cublasGemmEx", "libcublas.so.13");
        Dl_info di;
        int ok = f && dladdr((void *)f, &di);
        fprintf(stderr, "TRACE real cublasGemmEx %p in %s\n", (void *)f, ok ? di.dli_fname : "?");
    }
    cublasMath_t mm = 0;
    RCALL("libcublas.so.13", cublasGetMathMode, h, &mm);
    cublasPointerMode_t pm = 0;
    RCALL("libcublas.so.13", cublasGetPointerMode_v2, h, &pm);
    double t0 = now();
    cublasStatus_t r = f(h, ta, tb, m, n, k, al, A, at, lda, B, bt, ldb, be, C, ct, ldc, cp, algo);
    LOG("cublasGemmEx from %s: %c%c m=%d n=%d k=%d types %d/%d/%d lda=%d ldb=%d ldc=%d compute=%d "
        "algo=%d math=%d pm=%d align %lu/%lu/%lu host %.1f us -> %d\n",
        who(__builtin_return_address(0)), "NTC"[ta], "NTC"[tb], m, n, k, at, bt, ct, lda, ldb, ldc,
        cp, algo, mm, pm, (unsigned long)A & 255, (unsigned long)B & 255, (unsigned long)C & 255,
        now() - t0, r);
    return r;
}
cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t h, cublasOperation_t ta,
                                          cublasOperation_t tb, int m, int n, int k, const void *al,
                                          const void *A, cudaDataType at, int lda, long long sa,
                                          const void *B, cudaDataType bt, int ldb, long long sb,
                                          const void *be, void *C, cudaDataType ct, int ldc,
                                          long long sc, int bc, cublasComputeType_t cp,
                                          cublasGemmAlgo_t algo)
{
    static __typeof__(&cublasGemmStridedBatchedEx) f;
    if (!f) f = real("cublasGemmStridedBatchedEx", "libcublas.so.13");
    LOG("cublasGemmStridedBatchedEx from %s: %c%c m=%d n=%d k=%d types %d/%d/%d ld %d/%d/%d "
        "strides %lld/%lld/%lld batch=%d compute=%d algo=%d\n",
        who(__builtin_return_address(0)), "NTC"[ta], "NTC"[tb], m, n, k, at, bt, ct, lda, ldb, ldc,
        sa, sb, sc, bc, cp, algo);
    return f(h, ta, tb, m, n, k, al, A, at, lda, sa, B, bt, ldb, sb, be, C, ct, ldc, sc, bc, cp,
             algo);
}
cublasStatus_t cublasSgemm_v2(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                              int n, int k, const float *al, const float *A, int lda,
                              const float *B, int ldb, const float *be, float *C, int ldc)
{
    static __typeof__(&cublasSgemm_v2) f;
    if (!f) f = real("cublasSgemm_v2", "libcublas.so.13");
    cublasMath_t mm = 0;
    RCALL("libcublas.so.13", cublasGetMathMode, h, &mm);
    LOG("cublasSgemm_v2 from %s: %c%c m=%d n=%d k=%d ld %d/%d/%d math=%d\n",
        who(__builtin_return_address(0)), "NTC"[ta], "NTC"[tb], m, n, k, lda, ldb, ldc, mm);
    return f(h, ta, tb, m, n, k, al, A, lda, B, ldb, be, C, ldc);
}
cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t h, cublasOperation_t ta,
                                         cublasOperation_t tb, int m, int n, int k, const float *al,
                                         const float *A, int lda, long long sa, const float *B,
                                         int ldb, long long sb, const float *be, float *C, int ldc,
                                         long long sc, int bc)
{
    static __typeof__(&cublasSgemmStridedBatched) f;
    if (!f) f = real("cublasSgemmStridedBatched", "libcublas.so.13");
    LOG("cublasSgemmStridedBatched from %s: m=%d n=%d k=%d batch=%d\n",
        who(__builtin_return_address(0)), m, n, k, bc);
    return f(h, ta, tb, m, n, k, al, A, lda, sa, B, ldb, sb, be, C, ldc, sc, bc);
}
cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t h, void *w, size_t sz)
{
    static __typeof__(&cublasSetWorkspace_v2) f;
    if (!f) f = real("cublasSetWorkspace_v2", "libcublas.so.13");
    LOG("cublasSetWorkspace_v2 from %s: %p %zu\n", who(__builtin_return_address(0)), w, sz);
    return f(h, w, sz);
}
cublasStatus_t cublasSetMathMode(cublasHandle_t h, cublasMath_t m)
{
    static __typeof__(&cublasSetMathMode) f;
    if (!f) f = real("cublasSetMathMode", "libcublas.so.13");
    LOG("cublasSetMathMode from %s: %d\n", who(__builtin_return_address(0)), m);
    return f(h, m);
}
cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t h, cublasLtMatmulDesc_t op,
                                              cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                                              cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d,
                                              cublasLtMatmulPreference_t p, int req,
                                              cublasLtMatmulHeuristicResult_t *res, int *ret)
{
    static __typeof__(&cublasLtMatmulAlgoGetHeuristic) f;
    if (!f) f = real("cublasLtMatmulAlgoGetHeuristic", "libcublasLt.so.13");
    double t0 = now();
    cublasStatus_t r = f(h, op, a, b, c, d, p, req, res, ret);
    double dt = now() - t0;
    uint64_t rows = 0, cols = 0, ws = 0;
    int32_t ty = 0;
    size_t w;
    RCALL("libcublasLt.so.13", cublasLtMatrixLayoutGetAttribute, a, CUBLASLT_MATRIX_LAYOUT_ROWS,
          &rows, 8, &w);
    RCALL("libcublasLt.so.13", cublasLtMatrixLayoutGetAttribute, a, CUBLASLT_MATRIX_LAYOUT_COLS,
          &cols, 8, &w);
    RCALL("libcublasLt.so.13", cublasLtMatrixLayoutGetAttribute, a, CUBLASLT_MATRIX_LAYOUT_TYPE,
          &ty, 4, &w);
    RCALL("libcublasLt.so.13", cublasLtMatmulPreferenceGetAttribute, p,
          CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, 8, &w);
    uint32_t epi = 0;
    RCALL("libcublasLt.so.13", cublasLtMatmulDescGetAttribute, op, CUBLASLT_MATMUL_DESC_EPILOGUE,
          &epi, 4, &w);
    LOG("cublasLtMatmulAlgoGetHeuristic from %s: A %llux%llu type %d req=%d ws=%llu epi=%u -> %d "
        "(%d) host %.1f us\n",
        who(__builtin_return_address(0)), (unsigned long long)rows, (unsigned long long)cols, ty,
        req, (unsigned long long)ws, epi, r, ret ? *ret : -1, dt);
    return r;
}
cublasStatus_t cublasLtMatmul(cublasLtHandle_t h, cublasLtMatmulDesc_t op, const void *al,
                              const void *A, cublasLtMatrixLayout_t a, const void *B,
                              cublasLtMatrixLayout_t b, const void *be, const void *C,
                              cublasLtMatrixLayout_t c, void *D, cublasLtMatrixLayout_t d,
                              const cublasLtMatmulAlgo_t *algo, void *ws, size_t wsz,
                              cudaStream_t s)
{
    static __typeof__(&cublasLtMatmul) f;
    if (!f) f = real("cublasLtMatmul", "libcublasLt.so.13");
    LOG("cublasLtMatmul from %s: algo %s wsz=%zu\n", who(__builtin_return_address(0)),
        algo ? "given" : "NULL", wsz);
    return f(h, op, al, A, a, B, b, be, C, c, D, d, algo, ws, wsz, s);
}
