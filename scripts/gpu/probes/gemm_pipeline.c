// Probe (not part of the project): does a cuBLASLt algorithm timed one call at a time (an event
// pair around each call, the GPU idle before it: how AOE's tuner times) rank the same as when
// the calls run back to back on a stream (how a program issues them)? Decode GEMMs (M 1) of a
// Llama-8B layer, bf16, F.linear as PyTorch issues it (cublasGemmEx TN), the weight rotated over
// enough copies that each call reads it from HBM in both modes. A third mode times single calls
// behind queued memsets, as the tuner does since.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe_check.h"

#define MAXC 16
#define ROUNDS 9
#define ISO_REPS 100
#define PIPE_CALLS 64
#define PIPE_BATCHES 7

typedef struct {
    char name[96];
    int blas; /* cublasGemmEx, CUBLAS_GEMM_DEFAULT: PyTorch's call */
    cublasLtMatmulAlgo_t algo;
} cand;

static cublasLtHandle_t lt;
static cublasHandle_t bh;
static cublasLtMatmulDesc_t op;
static cublasLtMatrixLayout_t la, lb, lc;
static cudaStream_t s;
static cudaEvent_t e0, e1;
static void *A[8], *B, *C, *ws;
static int ncopies, m, n, k, turn;
static size_t wsz = 32u << 20;

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int nv)
{
    qsort(v, nv, sizeof *v, cmpd);
    return v[nv / 2];
}

static int call(const cand *c)
{
    float alpha = 1, beta = 0;
    const void *a = A[turn];
    turn = (turn + 1) % ncopies;
    if (c->blas)
        return cublasGemmEx(bh, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, a, CUDA_R_16BF, k, B,
                            CUDA_R_16BF, k, &beta, C, CUDA_R_16BF, m, CUBLAS_COMPUTE_32F,
                            CUBLAS_GEMM_DEFAULT);
    return cublasLtMatmul(lt, op, &alpha, a, la, B, lb, &beta, C, lc, C, lc, &c->algo, ws, wsz, s);
}

static double elapsed_us(void)
{
    float ms;
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&ms, e0, e1));
    return ms * 1000.0;
}

/* One call at a time, the GPU idle before each (AOE's tuner). */
static double time_iso(const cand *c)
{
    double t[ISO_REPS];
    for (int r = 0; r < ISO_REPS; r++) {
        CK(cudaEventRecord(e0, s));
        CK(call(c));
        CK(cudaEventRecord(e1, s));
        t[r] = elapsed_us();
    }
    return median(t, ISO_REPS);
}

/* One call at a time behind about 50 us of queued memsets (AOE's tuner since
 * 2026-11-30): the host issues the call while the device is still busy. */
static void *lead;
#define LEAD_BYTES (24u << 20)
static double time_lead(const cand *c)
{
    double t[ISO_REPS];
    for (int r = 0; r < ISO_REPS; r++) {
        for (int i = 0; i < 4; i++) CK(cudaMemsetAsync(lead, i, LEAD_BYTES, s));
        CK(cudaEventRecord(e0, s));
        CK(call(c));
        CK(cudaEventRecord(e1, s));
        t[r] = elapsed_us();
    }
    return median(t, ISO_REPS);
}

/* PIPE_CALLS calls back to back (a program's stream), per call. */
static double time_pipe(const cand *c)
{
    double t[PIPE_BATCHES];
    for (int r = 0; r < PIPE_BATCHES; r++) {
        CK(cudaEventRecord(e0, s));
        for (int i = 0; i < PIPE_CALLS; i++) CK(call(c));
        CK(cudaEventRecord(e1, s));
        t[r] = elapsed_us() / PIPE_CALLS;
    }
    return median(t, PIPE_BATCHES);
}

static void describe(const cublasLtMatmulAlgo_t *a, char *out, size_t len)
{
    int id = 0, tile = 0, st = 0, sk = 0, red = 0, cl = 0;
    size_t w;
    uint16_t cl16 = 0;
    cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, &w);
    cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile, &w);
    cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_STAGES_ID, &st, sizeof st, &w);
    cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &sk, sizeof sk, &w);
    cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &red, sizeof red,
                                         &w);
    cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &cl16,
                                         sizeof cl16, &w);
    cl = cl16;
    snprintf(out, len, "id%d tile%d st%d splitk%d red%d cl%d", id, tile, st, sk, red, cl);
}

/* A candidate only if cuBLASLt accepts it for this problem within the workspace. */
static int add(cand *cs, int nc, const char *tag, const cublasLtMatmulAlgo_t *a)
{
    cublasLtMatmulHeuristicResult_t chk;
    if (nc >= MAXC) return nc;
    if (cublasLtMatmulAlgoCheck(lt, op, la, lb, lc, lc, a, &chk) || chk.workspaceSize > wsz)
        return nc;
    cand *c = &cs[nc];
    memset(c, 0, sizeof *c);
    c->algo = *a;
    char d[80];
    describe(a, d, sizeof d);
    snprintf(c->name, sizeof c->name, "%s %s", tag, d);
    return nc + 1;
}

static int with_splitk(const cublasLtMatmulAlgo_t *base, int sk, cublasLtMatmulAlgo_t *out)
{
    uint32_t k32 = (uint32_t)sk, red = CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
    *out = *base;
    return cublasLtMatmulAlgoConfigSetAttribute(out, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &k32,
                                                sizeof k32) ||
           cublasLtMatmulAlgoConfigSetAttribute(out, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &red,
                                                sizeof red);
}

/* The policies AOE's tuner chose for the decode shapes on an H200 (2026-11-30): algorithm id,
 * tile, stages, split-K, reduction, custom option, cluster shape (swizzle and inner shape 0). */
static const int aoe_policies[][7] = {
    {66, 448, 35, 2, 2, 1, 3}, {66, 393, 35, 3, 2, 1, 4}, {66, 393, 35, 4, 2, 1, 3}};

static int from_policy(const int *p, cublasLtMatmulAlgo_t *a)
{
    const cublasLtMatmulAlgoConfigAttributes_t at[] = {
        CUBLASLT_ALGO_CONFIG_TILE_ID, CUBLASLT_ALGO_CONFIG_STAGES_ID,
        CUBLASLT_ALGO_CONFIG_SPLITK_NUM, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME,
        CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION};
    if (cublasLtMatmulAlgoInit(lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16BF, CUDA_R_16BF,
                               CUDA_R_16BF, CUDA_R_16BF, p[0], a))
        return 1;
    for (int i = 0; i < 5; i++) {
        uint32_t v = (uint32_t)p[1 + i];
        if (cublasLtMatmulAlgoConfigSetAttribute(a, at[i], &v, sizeof v)) return 1;
    }
    uint16_t cl = (uint16_t)p[6];
    return cublasLtMatmulAlgoConfigSetAttribute(a, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &cl,
                                                sizeof cl) != 0;
}

static void shape(int M, int N, int K, int l2)
{
    m = N, n = M, k = K, turn = 0;
    size_t wbytes = (size_t)m * k * 2;
    ncopies = 2 + (int)(2 * (size_t)l2 / wbytes);
    if (ncopies > 8) ncopies = 8;
    for (int i = 0; i < ncopies; i++) {
        CK(cudaMalloc(&A[i], wbytes));
        CK(cudaMemset(A[i], 0x3c, wbytes));
    }
    CK(cudaMalloc(&B, (size_t)k * n * 2));
    CK(cudaMemset(B, 0x3c, (size_t)k * n * 2));
    CK(cudaMalloc(&C, (size_t)m * n * 2));
    CK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    CK(cublasLtMatrixLayoutCreate(&la, CUDA_R_16BF, k, m, k));
    CK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_16BF, k, n, k));
    CK(cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, m, n, m));
    cublasLtMatmulPreference_t pref;
    CK(cublasLtMatmulPreferenceCreate(&pref));
    CK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsz,
                                            sizeof wsz));
    cublasLtMatmulHeuristicResult_t res[8];
    int got = 0;
    CK(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 8, res, &got));

    cand cs[MAXC];
    int nc = 1;
    memset(&cs[0], 0, sizeof cs[0]);
    cs[0].blas = 1;
    snprintf(cs[0].name, sizeof cs[0].name, "cublasGemmEx DEFAULT (baseline)");
    for (int i = 0; i < got && i < 4; i++) {
        char tag[16];
        snprintf(tag, sizeof tag, "heur%d", i);
        nc = add(cs, nc, tag, &res[i].algo);
    }
    for (int sk = 2; sk <= 4 && got > 0; sk++) {
        cublasLtMatmulAlgo_t v;
        if (!with_splitk(&res[0].algo, sk, &v)) nc = add(cs, nc, "heur0+sk", &v);
    }

    for (size_t p = 0; p < sizeof aoe_policies / sizeof *aoe_policies; p++) {
        cublasLtMatmulAlgo_t v;
        if (!from_policy(aoe_policies[p], &v)) nc = add(cs, nc, "aoe", &v);
    }

    double iso[MAXC][ROUNDS], pipe[MAXC][ROUNDS], led[MAXC][ROUNDS];
    for (int i = 0; i < nc; i++) { /* warm-up: modules loaded, workspace touched */
        CK(call(&cs[i]));
        CK(call(&cs[i]));
    }
    CK(cudaStreamSynchronize(s));
    for (int r = 0; r < ROUNDS; r++)
        for (int j = 0; j < nc; j++) {
            int i = (j + r) % nc; /* each round starts elsewhere: drift falls on all alike */
            iso[i][r] = time_iso(&cs[i]);
            pipe[i][r] = time_pipe(&cs[i]);
            led[i][r] = time_lead(&cs[i]);
        }
    printf("\nM%d N%d K%d bf16, %d weight copies of %zu MiB\n", M, N, K, ncopies, wbytes >> 20);
    printf("%-52s %8s %8s %8s %7s %7s %7s %6s\n", "candidate", "iso us", "pipe us", "lead us",
           "iso x", "pipe x", "lead x", "agree");
    for (int i = 0; i < nc; i++) {
        double ri[ROUNDS], rp[ROUNDS], rl[ROUNDS], ti[ROUNDS], tp[ROUNDS], tl[ROUNDS];
        for (int r = 0; r < ROUNDS; r++) {
            ri[r] = iso[0][r] / iso[i][r]; /* speed-up over the baseline within the round */
            rp[r] = pipe[0][r] / pipe[i][r];
            ti[r] = iso[i][r];
            tp[r] = pipe[i][r];
            rl[r] = led[0][r] / led[i][r];
            tl[r] = led[i][r];
        }
        double xi = median(ri, ROUNDS), xp = median(rp, ROUNDS), xl = median(rl, ROUNDS);
        printf("%-52s %8.2f %8.2f %8.2f %7.3f %7.3f %7.3f %3s %3s\n", cs[i].name,
               median(ti, ROUNDS), median(tp, ROUNDS), median(tl, ROUNDS), xi, xp, xl,
               (xi > 1) == (xp > 1) ? "yes" : "NO", (xl > 1) == (xp > 1) ? "yes" : "NO");
    }
    cublasLtMatmulPreferenceDestroy(pref);
    cublasLtMatrixLayoutDestroy(la);
    cublasLtMatrixLayoutDestroy(lb);
    cublasLtMatrixLayoutDestroy(lc);
    cublasLtMatmulDescDestroy(op);
    for (int i = 0; i < ncopies; i++) cudaFree(A[i]);
    cudaFree(B);
    cudaFree(C);
}

int main(void)
{
    int l2 = 0;
    CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    CK(cublasLtCreate(&lt));
    CK(cublasCreate(&bh));
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    CK(cudaMalloc(&ws, wsz));
    CK(cudaMalloc(&lead, LEAD_BYTES));
    CK(cublasSetStream(bh, s));
    CK(cublasSetWorkspace(bh, ws, wsz));
    printf(
        "cublasLt %zu, L2 %d MiB, workspace %zu MiB; iso: median of %d single calls; pipe: "
        "median of %d batches of %d calls; lead: iso behind 4 memsets of 24 MiB; agree: iso, lead "
        "with pipe; x: median over %d rounds of the baseline's time over "
        "the candidate's\n",
        cublasLtGetVersion(), l2 >> 20, wsz >> 20, ISO_REPS, PIPE_BATCHES, PIPE_CALLS, ROUNDS);
    int shapes[][3] = {
        {1, 4096, 4096}, {1, 12288, 4096}, {1, 14336, 4096}, {1, 4096, 14336}, {8, 12288, 4096}};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
        shape(shapes[i][0], shapes[i][1], shapes[i][2], l2);
    return 0;
}
