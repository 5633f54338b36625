// Probe (not part of the project): how much does choosing a cuBLASLt algorithm
// beyond the heuristic's first pick gain on LLM GEMM shapes, and what does the
// heuristic cost on the host?
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "probe_check.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void *flushbuf;
static size_t flushsz = 256u << 20;

typedef struct {
    cublasLtHandle_t lt;
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t la, lb, lc;
    void *A, *B, *C, *ws;
    size_t wsz;
    cudaStream_t s;
    cudaEvent_t e0, e1;
} ctx;

static double time_algo(ctx *c, const cublasLtMatmulAlgo_t *algo, int reps)
{
    float alpha = 1, beta = 0;
    double t[64];
    for (int i = 0; i < 2; i++)
        if (cublasLtMatmul(c->lt, c->op, &alpha, c->A, c->la, c->B, c->lb, &beta, c->C, c->lc, c->C,
                           c->lc, algo, c->ws, c->wsz, c->s))
            return -1;
    for (int r = 0; r < reps; r++) {
        cudaMemsetAsync(flushbuf, r, flushsz, c->s);
        cudaEventRecord(c->e0, c->s);
        cublasLtMatmul(c->lt, c->op, &alpha, c->A, c->la, c->B, c->lb, &beta, c->C, c->lc, c->C,
                       c->lc, algo, c->ws, c->wsz, c->s);
        cudaEventRecord(c->e1, c->s);
        cudaEventSynchronize(c->e1);
        float ms;
        cudaEventElapsedTime(&ms, c->e0, c->e1);
        t[r] = ms * 1000;
    }
    if (cudaGetLastError()) return -1;
    qsort(t, reps, sizeof *t, cmpd);
    return t[reps / 2];
}

static void cfg(const cublasLtMatmulAlgo_t *a, char *out)
{
    int id = 0, tile = 0, st = 0, sk = 0, red = 0, sw = 0, cu = 0;
    uint16_t inner = 0, cl = 0;
    size_t w;
    cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, &w);
    cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile, &w);
    cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_STAGES_ID, &st, sizeof st, &w);
    cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &sk, sizeof sk, &w);
    cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &red, sizeof red,
                                         &w);
    cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &sw, sizeof sw, &w);
    cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, &cu, sizeof cu, &w);
    cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, &inner,
                                         sizeof inner, &w);
    cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &cl, sizeof cl,
                                         &w);
    sprintf(out, "id%d t%d s%d k%d r%d w%d c%d i%u cl%u", id, tile, st, sk, red, sw, cu, inner, cl);
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 15;
    size_t wsz = argc > 2 ? (size_t)atol(argv[2]) << 10 : 32u << 20;
    CK(cudaMalloc(&flushbuf, flushsz));
    ctx c = {0};
    CK(cublasLtCreate(&c.lt));
    cublasHandle_t bh;
    CK(cublasCreate(&bh));
    CK(cudaStreamCreate(&c.s));
    cudaEventCreate(&c.e0);
    cudaEventCreate(&c.e1);
    c.wsz = wsz;
    CK(cudaMalloc(&c.ws, wsz ? wsz : 1));
    cublasSetStream(bh, c.s);
    cublasSetWorkspace(bh, c.ws, wsz);
    printf("cublasLt version %zu, workspace %zu KiB\n", cublasLtGetVersion(), wsz >> 10);
    // torch F.linear(x[M,K], W[N,K]) -> cublas(T,N, m=N, n=M, k=K)
    int shapes[][3] = {
        {1, 4096, 4096},      {1, 11008, 4096},   {1, 4096, 11008},    {16, 4096, 4096},
        {16, 14336, 4096},    {16, 4096, 14336},  {64, 4096, 4096},    {64, 14336, 4096},
        {64, 4096, 14336},    {128, 4096, 4096},  {256, 4096, 4096},   {512, 4096, 4096},
        {512, 14336, 4096},   {2048, 4096, 4096}, {2048, 14336, 4096}, {2048, 4096, 14336},
        {4096, 4096, 4096},   {8192, 1024, 4096}, {1000, 4096, 4096},  {33, 4096, 4096},
        {4096, 128256, 4096}, {1, 128256, 4096},  {64, 128256, 4096},  {777, 3000, 5000}};
    int nshapes = sizeof shapes / sizeof *shapes;
    for (int dt = 0; dt < 2; dt++) {
        cudaDataType_t ty = dt ? CUDA_R_16F : CUDA_R_16BF;
        double geo_top = 0, geo_ext = 0, geo_gemmex = 0;
        for (int si = 0; si < nshapes; si++) {
            int M = shapes[si][0], N = shapes[si][1], K = shapes[si][2];
            int m = N, n = M, k = K;
            size_t esz = 2;
            CK(cudaMalloc(&c.A, (size_t)m * k * esz));
            CK(cudaMalloc(&c.B, (size_t)k * n * esz));
            CK(cudaMalloc(&c.C, (size_t)m * n * esz));
            cudaMemset(c.A, 0x3c, (size_t)m * k * esz);
            cudaMemset(c.B, 0x3c, (size_t)k * n * esz);
            CK(cublasLtMatmulDescCreate(&c.op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
            cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
            cublasLtMatmulDescSetAttribute(c.op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta);
            cublasLtMatmulDescSetAttribute(c.op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb);
            CK(cublasLtMatrixLayoutCreate(&c.la, ty, k, m, k));
            CK(cublasLtMatrixLayoutCreate(&c.lb, ty, k, n, k));
            CK(cublasLtMatrixLayoutCreate(&c.lc, ty, m, n, m));
            cublasLtMatmulPreference_t pref;
            cublasLtMatmulPreferenceCreate(&pref);
            cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                 &wsz, sizeof wsz);
            cublasLtMatmulHeuristicResult_t res[64];
            int nres = 0;
            // host cost of a one-algorithm heuristic (as PyTorch asks)
            double h0 = now();
            for (int i = 0; i < 200; i++)
                cublasLtMatmulAlgoGetHeuristic(c.lt, c.op, c.la, c.lb, c.lc, c.lc, pref, 1, res,
                                               &nres);
            double heur_us = (now() - h0) / 200 * 1e6;
            CK(cublasLtMatmulAlgoGetHeuristic(c.lt, c.op, c.la, c.lb, c.lc, c.lc, pref, 64, res,
                                              &nres));
            double t_def = time_algo(&c, &res[0].algo, reps);
            double best = t_def;
            int bi = 0;
            for (int i = 1; i < nres; i++) {
                double t = time_algo(&c, &res[i].algo, reps);
                if (t > 0 && t < best) best = t, bi = i;
            }
            // neighbourhood: split-K and swizzle variants of the top 8
            double ext = best;
            char extcfg[128] = "";
            cfg(&res[bi].algo, extcfg);
            int tried = 0;
            for (int i = 0; i < nres && i < 8; i++) {
                int sks[] = {1, 2, 3, 4, 6, 8, 16};
                for (int a = 0; a < 7; a++)
                    for (int sw = 0; sw < 2; sw++) {
                        cublasLtMatmulAlgo_t al = res[i].algo;
                        cublasLtMatmulAlgoConfigSetAttribute(&al, CUBLASLT_ALGO_CONFIG_SPLITK_NUM,
                                                             &sks[a], sizeof sks[a]);
                        cublasLtMatmulAlgoConfigSetAttribute(
                            &al, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &sw, sizeof sw);
                        if (sks[a] > 1) {
                            int rs = CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE;
                            cublasLtMatmulAlgoConfigSetAttribute(
                                &al, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &rs, sizeof rs);
                        }
                        cublasLtMatmulHeuristicResult_t chk;
                        if (cublasLtMatmulAlgoCheck(c.lt, c.op, c.la, c.lb, c.lc, c.lc, &al, &chk))
                            continue;
                        if (chk.workspaceSize > wsz) continue;
                        tried++;
                        double t = time_algo(&c, &al, reps);
                        if (t > 0 && t < ext) ext = t, cfg(&al, extcfg);
                    }
            }
            // cublasGemmEx on the same operation
            float alpha = 1, beta = 0;
            double tg[64];
            for (int r = 0; r < reps + 2; r++) {
                cudaMemsetAsync(flushbuf, r, flushsz, c.s);
                cudaEventRecord(c.e0, c.s);
                cublasGemmEx(bh, ta, tb, m, n, k, &alpha, c.A, ty, k, c.B, ty, k, &beta, c.C, ty, m,
                             CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP);
                cudaEventRecord(c.e1, c.s);
                cudaEventSynchronize(c.e1);
                float ms;
                cudaEventElapsedTime(&ms, c.e0, c.e1);
                tg[r] = ms * 1000;
            }
            qsort(tg + 2, reps, sizeof *tg, cmpd);
            double t_gx = tg[2 + reps / 2];
            char dcfg[128];
            cfg(&res[0].algo, dcfg);
            printf("%s M=%d N=%d K=%d: gemmex %.1f us, lt-default %.1f us [%s], top%d best %.3fx, "
                   "ext(%d) best %.3fx [%s], vs gemmex %.3fx; heuristic %.2f us/call\n",
                   dt ? "fp16" : "bf16", M, N, K, t_gx, t_def, dcfg, nres, t_def / best, tried,
                   t_def / ext, extcfg, t_gx / ext, heur_us);
            fflush(stdout);
            geo_top += __builtin_log(t_def / best);
            geo_ext += __builtin_log(t_def / ext);
            geo_gemmex += __builtin_log(t_gx / ext);
            cublasLtMatmulPreferenceDestroy(pref);
            cublasLtMatrixLayoutDestroy(c.la);
            cublasLtMatrixLayoutDestroy(c.lb);
            cublasLtMatrixLayoutDestroy(c.lc);
            cublasLtMatmulDescDestroy(c.op);
            cudaFree(c.A);
            cudaFree(c.B);
            cudaFree(c.C);
        }
        printf("geomean %s: top-N %.3f, ext %.3f, ext vs gemmex %.3f\n", dt ? "fp16" : "bf16",
               __builtin_exp(geo_top / nshapes), __builtin_exp(geo_ext / nshapes),
               __builtin_exp(geo_gemmex / nshapes));
    }
    return 0;
}
