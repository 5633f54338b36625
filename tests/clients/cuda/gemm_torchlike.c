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
 * returned, which library computed each cuBLAS call ("mm ran: cublasLt id 6
 * split_k 4" when a shim rerouted it) and one line per case; exit status 1
 * when a result is wrong. Knobs for tests: GEMM_TORCHLIKE_OFFSET (bytes every
 * operand is moved from 256-byte alignment), GEMM_TORCHLIKE_MATH
 * (pedantic|noreduce: the mm call's math mode), GEMM_TORCHLIKE_DLOPEN (a
 * library to load first), GEMM_TORCHLIKE_STREAM_LAST=1 (cublasSetStream_v2
 * again after cublasSetWorkspace_v2).
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

/* "Device" memory as PyTorch's caching allocator hands it out: 256-byte
 * aligned (stable alignment classes from run to run), moved by
 * GEMM_TORCHLIKE_OFFSET bytes (a test of less aligned operands). */
static size_t g_offset;
#if CUBLAS_VER_MAJOR > 12 || (CUBLAS_VER_MAJOR == 12 && CUBLAS_VER_MINOR >= 8)
#define AOE_LT_SCALE_MODES 1 /* cublasLt.h has CUBLASLT_MATMUL_DESC_*_SCALE_MODE */
#endif
static int32_t g_a_scale_mode; /* GEMM_TORCHLIKE_A_SCALE_MODE */
static void *dev_alloc(size_t bytes)
{
    void *p = NULL;
    if (posix_memalign(&p, 256, bytes + g_offset + 1)) exit(2);
    memset(p, 0, bytes + g_offset + 1);
    return (char *)p + g_offset;
}
static void dev_free(void *p)
{
    if (p) free((char *)p - g_offset);
}

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
    struct tensor t = {dev_alloc((size_t)n * 2), calloc((size_t)n, sizeof(float)), n};
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

/* Which library computed the last cuBLAS call (the fakes count their GEMMs):
 * "cublas", or "cublasLt id N split_k S" when a shim rerouted it. */
static unsigned long long count_of(const char *sym)
{
    unsigned long long (*fn)(void) = (unsigned long long (*)(void))dlsym(RTLD_DEFAULT, sym);
    return fn ? fn() : 0;
}
static int int_of(const char *sym)
{
    int (*fn)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, sym);
    return fn ? fn() : -1;
}
static void report_ran(const char *what, unsigned long long blas0, unsigned long long lt0)
{
    if (count_of("fakecublasLt_matmul_count") > lt0)
        printf("%s ran: cublasLt id %d split_k %d\n", what, int_of("fakecublasLt_last_algo_id"),
               int_of("fakecublasLt_last_split_k"));
    else if (count_of("fakecublas_gemm_count") > blas0)
        printf("%s ran: cublas\n", what);
}

/* GEMM_TORCHLIKE_MATH=pedantic|tf32|noreduce: the math mode of the mm call. */
static cublasMath_t g_mm_math = CUBLAS_DEFAULT_MATH;

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
    uint16_t *y = dev_alloc((size_t)M * N * 2);
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
#ifdef AOE_LT_SCALE_MODES
    if (g_a_scale_mode) {         /* block or vector scaling of A (FP8 recipes; a test knob here) */
        const void *scales = b.h; /* any device pointer: the fake does not read it */
        CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scales,
                                             sizeof scales));
        CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &g_a_scale_mode,
                                             sizeof g_a_scale_mode));
    }
#endif
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
    void *ws = dev_alloc(ws_size);
    float alpha = 1, beta = 0;
    CHECK(cublasLtMatmul(lt, op, &alpha, w.h, la, x.h, lb, &beta, y, lc, y, lc, &res.algo, ws,
                         ws_size, NULL));
    printf("linear_bias time_us %.3f\n", last_time("fakecublasLt_last_time_us"));
    verdict("linear_bias (cublasLtMatmul)", y, ref, (long)M * N);
    cublasLtMatmulPreferenceDestroy(pref);
    cublasLtMatrixLayoutDestroy(la), cublasLtMatrixLayoutDestroy(lb),
        cublasLtMatrixLayoutDestroy(lc);
    cublasLtMatmulDescDestroy(op);
    dev_free(ws), dev_free(y), free(ref), dev_free(x.h), free(x.f), dev_free(w.h), free(w.f),
        dev_free(b.h), free(b.f);
}

/* PyTorch's prologue around every GEMM. */
static int g_stream_last; /* GEMM_TORCHLIKE_STREAM_LAST=1 */
static void torch_prologue(cublasHandle_t h, void *ws)
{
    cublasPointerMode_t pm;
    CHECK(cublasSetStream_v2(h, NULL));
    CHECK(cublasGetPointerMode_v2(h, &pm));
    CHECK(cublasSetWorkspace_v2(h, ws, 32u << 20));
    CHECK(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
    /* CuPy's order: the stream set after the workspace, which puts the
     * handle back on cuBLAS' own workspace */
    if (g_stream_last) CHECK(cublasSetStream_v2(h, NULL));
}

/* y[M,N] = x[M,K] W[N,K]^T through cublasGemmEx. */
static void mm(cublasHandle_t h, void *ws, int M, int N, int K)
{
    struct tensor x = tensor(4, (long)M * K), w = tensor(5, (long)N * K);
    uint16_t *y = dev_alloc((size_t)M * N * 2);
    double *ref = calloc((size_t)M * N, sizeof(double));
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            for (int l = 0; l < K; l++)
                ref[(long)i * N + j] += (double)x.f[(long)i * K + l] * w.f[(long)j * K + l];
    float alpha = 1, beta = 0;
    torch_prologue(h, ws);
    if (g_mm_math != CUBLAS_DEFAULT_MATH) CHECK(cublasSetMathMode(h, g_mm_math));
    unsigned long long blas0 = count_of("fakecublas_gemm_count"),
                       lt0 = count_of("fakecublasLt_matmul_count");
    CHECK(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &alpha, w.h, half_type(), K, x.h,
                       half_type(), K, &beta, y, half_type(), N, CUBLAS_COMPUTE_32F,
                       CUBLAS_GEMM_DEFAULT_TENSOR_OP));
    report_ran("mm", blas0, lt0);
    CHECK(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
    printf("mm time_us %.3f\n", last_time("fakecublas_last_time_us"));
    verdict("mm (cublasGemmEx)", y, ref, (long)M * N);
    dev_free(y), free(ref), dev_free(x.h), free(x.f), dev_free(w.h), free(w.f);
}

/* c[B,M,N] = a[B,M,K] b[B,K,N] through cublasGemmStridedBatchedEx. */
static void bmm(cublasHandle_t h, void *ws, int Bt, int M, int N, int K)
{
    struct tensor a = tensor(6, (long)Bt * M * K), b = tensor(7, (long)Bt * K * N);
    uint16_t *c = dev_alloc((size_t)Bt * M * N * 2);
    double *ref = calloc((size_t)Bt * M * N, sizeof(double));
    for (int q = 0; q < Bt; q++)
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++)
                for (int l = 0; l < K; l++)
                    ref[((long)q * M + i) * N + j] +=
                        (double)a.f[((long)q * M + i) * K + l] * b.f[((long)q * K + l) * N + j];
    float alpha = 1, beta = 0;
    torch_prologue(h, ws);
    unsigned long long blas0 = count_of("fakecublas_gemm_count"),
                       lt0 = count_of("fakecublasLt_matmul_count");
    CHECK(cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, b.h, half_type(),
                                     N, (long long)K * N, a.h, half_type(), K, (long long)M * K,
                                     &beta, c, half_type(), N, (long long)M * N, Bt,
                                     CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP));
    report_ran("bmm", blas0, lt0);
    CHECK(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
    verdict("bmm (cublasGemmStridedBatchedEx)", c, ref, (long)Bt * M * N);
    dev_free(c), free(ref), dev_free(a.h), free(a.f), dev_free(b.h), free(b.f);
}

/* fp32 y[M,N] = x[M,K] W[N,K]^T with allow_tf32: cublasSgemm_v2 under TF32 math. */
static void sgemm(cublasHandle_t h, void *ws, int M, int N, int K)
{
    float *x = dev_alloc(sizeof(float) * M * K), *w = dev_alloc(sizeof(float) * N * K),
          *y = dev_alloc((size_t)M * N * 4);
    double worst = 0;
    for (long i = 0; i < (long)M * K; i++) x[i] = test_value(8, i);
    for (long i = 0; i < (long)N * K; i++) w[i] = test_value(9, i);
    float alpha = 1, beta = 0;
    torch_prologue(h, ws);
    CHECK(cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH));
    unsigned long long blas0 = count_of("fakecublas_gemm_count"),
                       lt0 = count_of("fakecublasLt_matmul_count");
    CHECK(cublasSgemm_v2(h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &alpha, w, K, x, K, &beta, y, N));
    report_ran("sgemm", blas0, lt0);
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
    dev_free(x), dev_free(w), dev_free(y);
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
    /* Test knobs (tests/integration/shim_cublas.sh). */
    const char *env = getenv("GEMM_TORCHLIKE_OFFSET");
    g_offset = env ? (size_t)atoi(env) : 0;
    env = getenv("GEMM_TORCHLIKE_MATH");
    if (env && !strcmp(env, "pedantic")) g_mm_math = CUBLAS_PEDANTIC_MATH;
    if (env && !strcmp(env, "noreduce"))
        g_mm_math = CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;
    env = getenv("GEMM_TORCHLIKE_STREAM_LAST");
    g_stream_last = env && !strcmp(env, "1");
    env = getenv("GEMM_TORCHLIKE_A_SCALE_MODE");
    g_a_scale_mode = env ? atoi(env) : 0;
    env = getenv("GEMM_TORCHLIKE_DLOPEN"); /* a second library, e.g. another cuBLASLt version */
    if (env && !dlopen(env, RTLD_NOW | RTLD_LOCAL)) {
        fprintf(stderr, "gemm_torchlike: cannot load %s: %s\n", env, dlerror());
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
    void *ws = dev_alloc(32u << 20);
    linear_bias(lt, M, N, K);
    mm(h, ws, M, N, K);
    bmm(h, ws, 2, M, N, K);
    sgemm(h, ws, M, N, K);
    dev_free(ws);
    /* A module linked against another cuBLAS major (a CUDA 12 wheel's
     * extension beside this CUDA 13 program), loaded as Python loads one. */
    env = getenv("GEMM_TORCHLIKE_MODULE");
    if (env) {
        void *m = dlopen(env, RTLD_NOW | RTLD_LOCAL);
        int (*run)(void) = m ? (int (*)(void))dlsym(m, "gemm_module_run") : NULL;
        if (!run) {
            fprintf(stderr, "gemm_torchlike: %s\n", dlerror());
            return 2;
        }
        failures += run() != 0;
        int again = 0; /* this program's own handle still works */
        CHECK(cublasGetVersion_v2(h, &again));
    }
    CHECK(cublasDestroy_v2(h));
    CHECK(cublasLtDestroy(lt));
    return failures ? 1 : 0;
}
