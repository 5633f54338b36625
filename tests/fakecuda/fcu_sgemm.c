/* The fake of tests/kernels/sgemm_tiled.cu (libfakecuda_kernels.so), the
 * kernel etc/tunables/cuda_sgemm.json declares: C = A x B for row-major float
 * matrices, A M x K, B K x N, C M x N. It runs exactly as the CUDA kernel
 * does, block by block: each block of (TS, TS/WPT) threads stages TS x TS
 * tiles of A and B in "shared memory" (a tile entry no thread loads stays
 * NaN), then each thread accumulates its WPT outputs over k in order 0..K-1,
 * so every correct TS/WPT gives bit-identical results. An access outside A,
 * B, C or a tile faults the context (CUDA_ERROR_ILLEGAL_ADDRESS), as on a
 * GPU. The simulated clock advances by a cost model with one optimum,
 * TS=32 WPT=4. Planted for the tuner's tests: TS=8 WPT=2 leaves out the last
 * k (a wrong result, "faster" than the optimum) and TS=32 WPT=2 faults with
 * an illegal address (also "faster"). */
#include "fakecuda.h"

#include <stdatomic.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define EXPORT __attribute__((visibility("default")))
#define ILLEGAL_ADDRESS 700 /* CUDA_ERROR_ILLEGAL_ADDRESS (cuda.h) */
#define TS_MAX 64

/* sgemm_tiled(int M, int N, int K, const float *A, const float *B, float *C) */
EXPORT const fakecuda_params fakecuda_params_sgemm_tiled = {6, {4, 4, 4, 8, 8, 8}};

/* Microseconds one launch "takes": 2MNK flops at 1e5 flops/us, times a
 * penalty growing with the distance of log2 TS from 5 and of log2 WPT from 2. */
static double cost_us(int M, int N, int K, long ts, long wpt, int planted)
{
    double work = 2.0 * M * N * K / 1e5;
    double p = 1.0 + 0.6 * fabs(log2((double)ts) - 5) + 0.35 * fabs(log2((double)wpt) - 2);
    return work * (planted ? 0.7 : p);
}

/* One block (bx, by) of block dimensions bdx x bdy: 0, or -1 on a fault. */
static int run_block(int M, int N, int K, const float *A, const float *B, float *C, long ts,
                     long wpt, unsigned bx, unsigned by, unsigned bdx, unsigned bdy, int drop_last)
{
    static float As[TS_MAX][TS_MAX], Bs[TS_MAX][TS_MAX];
    float acc[TS_MAX * TS_MAX];
    long rts = ts / wpt;
    for (size_t i = 0; i < (size_t)bdx * bdy * wpt; i++) acc[i] = 0.0f;
    for (long t = 0; t < K / ts; t++) {
        for (long i = 0; i < ts; i++)
            for (long j = 0; j < ts; j++) As[i][j] = Bs[i][j] = NAN;
        for (unsigned ty = 0; ty < bdy; ty++) /* every thread loads its WPT entries */
            for (unsigned tx = 0; tx < bdx; tx++)
                for (long w = 0; w < wpt; w++) {
                    long r = ty + w * rts, col = (long)bx * ts + tx, row = (long)by * ts + r;
                    long k = t * ts + (long)tx, kb = t * ts + r;
                    if (r >= ts || (long)tx >= ts || row >= M || k >= K || kb >= K || col >= N)
                        return -1;
                    As[r][tx] = A[row * K + k];
                    Bs[r][tx] = B[kb * N + col];
                }
        for (unsigned ty = 0; ty < bdy; ty++) /* __syncthreads(); then the products */
            for (unsigned tx = 0; tx < bdx; tx++)
                for (long k = 0; k < ts; k++) {
                    if (drop_last && t == K / ts - 1 && k == ts - 1) continue;
                    for (long w = 0; w < wpt; w++)
                        acc[((size_t)ty * bdx + tx) * wpt + w] += As[ty + w * rts][k] * Bs[k][tx];
                }
    }
    for (unsigned ty = 0; ty < bdy; ty++)
        for (unsigned tx = 0; tx < bdx; tx++)
            for (long w = 0; w < wpt; w++) {
                long row = (long)by * ts + ty + w * rts, col = (long)bx * ts + tx;
                if (row >= M || col >= N) return -1;
                C[row * N + col] = acc[((size_t)ty * bdx + tx) * wpt + w];
            }
    return 0;
}

/* The TS and WPT of the last launch (the end-to-end test asks whether the
 * shim launched a tuned variant). */
EXPORT atomic_long fakecuda_sgemm_last_ts, fakecuda_sgemm_last_wpt;

EXPORT void fakecuda_kernel_sgemm_tiled(const fakecuda_launch *l)
{
    int M = *(const int *)l->params[0], N = *(const int *)l->params[1],
        K = *(const int *)l->params[2];
    const float *A = *(const float **)l->params[3], *B = *(const float **)l->params[4];
    float *C = *(float **)l->params[5];
    long ts = fakecuda_define(l, "TS", 16), wpt = fakecuda_define(l, "WPT", 1);
    atomic_store(&fakecuda_sgemm_last_ts, ts);
    atomic_store(&fakecuda_sgemm_last_wpt, wpt);
    int wrong = ts == 8 && wpt == 2, faults = ts == 32 && wpt == 2;
    /* what the CUDA compiler would reject, or a block too big for the tile */
    if (ts < 1 || ts > TS_MAX || wpt < 1 || ts % wpt || l->block[2] != 1 ||
        (size_t)l->block[0] * l->block[1] * wpt > (size_t)TS_MAX * TS_MAX || M < 0 || N < 0 ||
        K < 0 || faults) {
        fakecuda_fault(l, ILLEGAL_ADDRESS);
        return;
    }
    for (unsigned by = 0; by < l->grid[1]; by++)
        for (unsigned bx = 0; bx < l->grid[0]; bx++)
            if (run_block(M, N, K, A, B, C, ts, wpt, bx, by, l->block[0], l->block[1], wrong)) {
                fakecuda_fault(l, ILLEGAL_ADDRESS);
                return;
            }
    fakecuda_advance(l, cost_us(M, N, K, ts, wpt, wrong || faults));
}
