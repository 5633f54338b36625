// Probe: host cost of cublasLtMatmulAlgoGetHeuristic as PyTorch calls it (descriptors
// created anew per call) and with reused descriptors; host cost of a bare cuLaunchKernel.
#include <cublasLt.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "probe_check.h"
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}
static void heur(cublasLtHandle_t lt, int m, int n, int k, size_t ws,
                 cublasLtMatmulHeuristicResult_t *r)
{
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t a, b, c;
    cublasLtMatmulPreference_t p;
    int nr;
    cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
    cublasOperation_t ta = CUBLAS_OP_T;
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta);
    uint32_t epi = CUBLASLT_EPILOGUE_BIAS;
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi);
    cublasLtMatrixLayoutCreate(&a, CUDA_R_16BF, k, m, k);
    cublasLtMatrixLayoutCreate(&b, CUDA_R_16BF, k, n, k);
    cublasLtMatrixLayoutCreate(&c, CUDA_R_16BF, m, n, m);
    cublasLtMatmulPreferenceCreate(&p);
    cublasLtMatmulPreferenceSetAttribute(p, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                         sizeof ws);
    cublasLtMatmulAlgoGetHeuristic(lt, op, a, b, c, c, p, 1, r, &nr);
    cublasLtMatmulPreferenceDestroy(p);
    cublasLtMatrixLayoutDestroy(a);
    cublasLtMatrixLayoutDestroy(b);
    cublasLtMatrixLayoutDestroy(c);
    cublasLtMatmulDescDestroy(op);
}
int main(void)
{
    cublasLtHandle_t lt;
    CK(cublasLtCreate(&lt));
    cublasLtMatmulHeuristicResult_t r;
    int shapes[][3] = {{1024, 64, 4096}, {4096, 1, 4096}, {14336, 512, 4096}};
    for (int s = 0; s < 3; s++) {
        heur(lt, shapes[s][0], shapes[s][1], shapes[s][2], 1 << 20, &r);
        double t0 = now();
        for (int i = 0; i < 2000; i++)
            heur(lt, shapes[s][0], shapes[s][1], shapes[s][2], 1 << 20, &r);
        printf("heuristic with fresh descriptors (as PyTorch): m=%d n=%d k=%d: %.2f us/call\n",
               shapes[s][0], shapes[s][1], shapes[s][2], (now() - t0) / 2000);
    }
    CK(cuInit(0));
    CUdevice d;
    CK(cuDeviceGet(&d, 0));
    CUcontext ctx;
    CK(cuDevicePrimaryCtxRetain(&ctx, d));
    CK(cuCtxSetCurrent(ctx));
    CUmodule mod;
    CK(cuModuleLoad(&mod, "empty.cubin"));
    CUfunction f;
    CK(cuModuleGetFunction(&f, mod, "empty"));
    CUstream st;
    CK(cuStreamCreate(&st, CU_STREAM_NON_BLOCKING));
    int x = 0;
    void *args[] = {&x};
    for (int i = 0; i < 1000; i++) cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, st, args, NULL);
    cuStreamSynchronize(st);
    for (int rep = 0; rep < 3; rep++) {
        double t0 = now();
        for (int i = 0; i < 20000; i++) {
            cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, st, args, NULL);
            if ((i & 1023) == 1023) cuStreamSynchronize(st);
        }
        double t1 = now();
        cuStreamSynchronize(st);
        printf("cuLaunchKernel (empty kernel, 1 block): %.2f us/call host\n", (t1 - t0) / 20000);
    }
    return 0;
}
