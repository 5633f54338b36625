// Probe: exhaustive-ish cuBLASLt config enumeration for a few shapes.
#include <cublasLt.h>
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
static void *fl;
static size_t flsz = 256u << 20;
static cublasLtHandle_t lt;
static cublasLtMatmulDesc_t op;
static cublasLtMatrixLayout_t la, lb, lc;
static void *A, *B, *C, *ws;
static size_t wsz = 32u << 20;
static cudaStream_t s;
static cudaEvent_t e0, e1;
static double tm(const cublasLtMatmulAlgo_t *al, int reps)
{
    float one = 1, zero = 0;
    double t[64];
    if (cublasLtMatmul(lt, op, &one, A, la, B, lb, &zero, C, lc, C, lc, al, ws, wsz, s)) return -1;
    for (int r = 0; r < reps; r++) {
        cudaMemsetAsync(fl, r, flsz, s);
        cudaEventRecord(e0, s);
        cublasLtMatmul(lt, op, &one, A, la, B, lb, &zero, C, lc, C, lc, al, ws, wsz, s);
        cudaEventRecord(e1, s);
        cudaEventSynchronize(e1);
        float ms;
        cudaEventElapsedTime(&ms, e0, e1);
        t[r] = ms * 1000;
    }
    if (cudaGetLastError()) return -1;
    qsort(t, reps, sizeof *t, cmpd);
    return t[reps / 2];
}
int main(void)
{
    CK(cudaMalloc(&fl, flsz));
    CK(cublasLtCreate(&lt));
    CK(cudaStreamCreate(&s));
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    CK(cudaMalloc(&ws, wsz));
    int shapes[][3] = {{1, 4096, 4096},   {16, 4096, 4096},   {33, 4096, 4096},
                       {256, 4096, 4096}, {1000, 4096, 4096}, {2048, 4096, 4096},
                       {64, 14336, 4096}, {16, 4096, 14336}};
    cudaDataType_t ty = CUDA_R_16BF;
    int ids[256], nids = 0;
    for (int si = 0; si < 8; si++) {
        int M = shapes[si][0], N = shapes[si][1], K = shapes[si][2], m = N, n = M, k = K;
        CK(cudaMalloc(&A, (size_t)m * k * 2));
        CK(cudaMalloc(&B, (size_t)k * n * 2));
        CK(cudaMalloc(&C, (size_t)m * n * 2));
        cudaMemset(A, 0x3c, (size_t)m * k * 2);
        cudaMemset(B, 0x3c, (size_t)k * n * 2);
        CK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
        cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta);
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb);
        CK(cublasLtMatrixLayoutCreate(&la, ty, k, m, k));
        CK(cublasLtMatrixLayoutCreate(&lb, ty, k, n, k));
        CK(cublasLtMatrixLayoutCreate(&lc, ty, m, n, m));
        cublasLtMatmulPreference_t pref;
        cublasLtMatmulPreferenceCreate(&pref);
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsz,
                                             sizeof wsz);
        cublasLtMatmulHeuristicResult_t res[8];
        int nres = 0;
        CK(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 8, res, &nres));
        double tdef = tm(&res[0].algo, 15);
        CK(cublasLtMatmulAlgoGetIds(lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, ty, ty, ty, ty, 256, ids,
                                    &nids));
        if (si == 0) {
            printf("algo ids (%d):", nids);
            for (int i = 0; i < nids; i++) printf(" %d", ids[i]);
            printf("\n");
        }
        double t0 = now();
        long checked = 0, valid = 0, timed = 0;
        double best = tdef;
        char bcfg[160] = "default";
        for (int ii = 0; ii < nids; ii++) {
            cublasLtMatmulAlgo_t base;
            if (cublasLtMatmulAlgoInit(lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, ty, ty, ty, ty, ids[ii],
                                       &base))
                continue;
            size_t w;
            uint32_t tiles[512], stages[128];
            int ntile = 0, nst = 0, splitk = 0, swz = 0, cmax = 0;
            if (!cublasLtMatmulAlgoCapGetAttribute(&base, CUBLASLT_ALGO_CAP_TILE_IDS, tiles,
                                                   sizeof tiles, &w))
                ntile = (int)(w / 4);
            if (!cublasLtMatmulAlgoCapGetAttribute(&base, CUBLASLT_ALGO_CAP_STAGES_IDS, stages,
                                                   sizeof stages, &w))
                nst = (int)(w / 4);
            cublasLtMatmulAlgoCapGetAttribute(&base, CUBLASLT_ALGO_CAP_SPLITK_SUPPORT, &splitk,
                                              sizeof splitk, &w);
            cublasLtMatmulAlgoCapGetAttribute(&base, CUBLASLT_ALGO_CAP_CTA_SWIZZLING_SUPPORT, &swz,
                                              sizeof swz, &w);
            cublasLtMatmulAlgoCapGetAttribute(&base, CUBLASLT_ALGO_CAP_CUSTOM_OPTION_MAX, &cmax,
                                              sizeof cmax, &w);
            if (si == 0)
                printf("id %d: %d tiles, %d stages, splitk %d swizzle %d custom<=%d\n", ids[ii],
                       ntile, nst, splitk, swz, cmax);
            if (!ntile) {
                tiles[0] = 0;
                ntile = 1;
            }
            if (!nst) {
                stages[0] = 0;
                nst = 1;
            }
            uint16_t clusters[] = {0, 2, 3, 5, 6, 4, 8};
            for (int a = 0; a < ntile; a++)
                for (int b = 0; b < nst; b++)
                    for (int cu = 0; cu <= cmax && cu < 8; cu++)
                        for (int cl = 0; cl < 7; cl++)
                            for (int sk = 1; sk <= (splitk ? 4 : 1); sk *= 2)
                                for (int sw = 0; sw <= swz; sw++) {
                                    cublasLtMatmulAlgo_t al = base;
                                    cublasLtMatmulAlgoConfigSetAttribute(
                                        &al, CUBLASLT_ALGO_CONFIG_TILE_ID, &tiles[a], 4);
                                    cublasLtMatmulAlgoConfigSetAttribute(
                                        &al, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages[b], 4);
                                    cublasLtMatmulAlgoConfigSetAttribute(
                                        &al, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, &cu, 4);
                                    cublasLtMatmulAlgoConfigSetAttribute(
                                        &al, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &clusters[cl],
                                        2);
                                    cublasLtMatmulAlgoConfigSetAttribute(
                                        &al, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &sk, 4);
                                    if (sk > 1) {
                                        int rs = CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE;
                                        cublasLtMatmulAlgoConfigSetAttribute(
                                            &al, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &rs, 4);
                                    }
                                    cublasLtMatmulAlgoConfigSetAttribute(
                                        &al, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &sw, 4);
                                    cublasLtMatmulHeuristicResult_t chk;
                                    checked++;
                                    if (cublasLtMatmulAlgoCheck(lt, op, la, lb, lc, lc, &al,
                                                                &chk) ||
                                        chk.workspaceSize > wsz)
                                        continue;
                                    valid++;
                                    if (now() - t0 > 25) continue;
                                    timed++;
                                    double t = tm(&al, 5);
                                    if (t > 0 && t < best * 0.995) {
                                        double t2 = tm(&al, 15);
                                        if (t2 > 0 && t2 < best) {
                                            best = t2;
                                            sprintf(bcfg, "id%d tile%u st%u cu%d cl%u sk%d sw%d",
                                                    ids[ii], tiles[a], stages[b], cu, clusters[cl],
                                                    sk, sw);
                                        }
                                    }
                                }
        }
        printf("M=%d N=%d K=%d: default %.1f us, checked %ld valid %ld timed %ld in %.1f s: best "
               "%.3fx [%s]\n",
               M, N, K, tdef, checked, valid, timed, now() - t0, tdef / best, bcfg);
        fflush(stdout);
        cublasLtMatmulPreferenceDestroy(pref);
        cublasLtMatrixLayoutDestroy(la);
        cublasLtMatrixLayoutDestroy(lb);
        cublasLtMatrixLayoutDestroy(lc);
        cublasLtMatmulDescDestroy(op);
        cudaFree(A);
        cudaFree(B);
        cudaFree(C);
    }
    return 0;
}
