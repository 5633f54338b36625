// C = A x B for row-major float matrices (A: M x K, B: K x N, C: M x N),
// the kernel etc/tunables/cuda_sgemm.json declares. Each block computes a
// TS x TS tile of C with (TS, TS / WPT) threads, each thread WPT outputs of
// one column, WPT rows apart by TS / WPT; A and B pass through shared memory
// in TS x TS tiles. M and N are multiples of TS, K of TS (the declaration's
// constraints check M and N through the launch size). Launch:
// grid (N / TS, M / TS), block (TS, TS / WPT). The fake driver runs
// tests/fakecuda/fcu_sgemm.c for it; a real GPU runs this.
#ifndef TS
#define TS 16
#endif
#ifndef WPT
#define WPT 1
#endif
#define RTS (TS / WPT)
#if WPT == 8
#error WPT 8 needs more registers than this kernel is written for
#endif

extern "C" __global__ void sgemm_tiled(int M, int N, int K, const float *A, const float *B,
                                       float *C)
{
    __shared__ float As[TS][TS];
    __shared__ float Bs[TS][TS];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int col = blockIdx.x * TS + tx;
    const int row0 = blockIdx.y * TS + ty;
    float acc[WPT];
    for (int w = 0; w < WPT; w++) acc[w] = 0.0f;
    for (int t = 0; t < K / TS; t++) {
        for (int w = 0; w < WPT; w++) {
            As[ty + w * RTS][tx] = A[(row0 + w * RTS) * K + t * TS + tx];
            Bs[ty + w * RTS][tx] = B[(t * TS + ty + w * RTS) * N + col];
        }
        __syncthreads();
        for (int k = 0; k < TS; k++)
            for (int w = 0; w < WPT; w++) acc[w] += As[ty + w * RTS][k] * Bs[k][tx];
        __syncthreads();
    }
    for (int w = 0; w < WPT; w++) C[(row0 + w * RTS) * N + col] = acc[w];
}
