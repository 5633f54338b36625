// Tiled GEMM with local memory: C = A * B, row-major, A is MxK, B is KxN.
// Launch: global (M, N / WPT), local (TS, TS / WPT); M, N, K multiples of TS.
// Tunables (etc/tunables/gemm.json): TS tile size, WPT outputs per work-item
// along N, WIDTH vector width of the inner product.
#ifndef TS
#define TS 16
#endif
#ifndef WPT
#define WPT 1
#endif
#ifndef WIDTH
#define WIDTH 1
#endif
#define RTS (TS / WPT)

#if WIDTH == 1
typedef float floatX;
#define VLOAD(p) (*(p))
#define HSUM(v) (v)
#elif WIDTH == 2
typedef float2 floatX;
#define VLOAD(p) vload2(0, (p))
#define HSUM(v) ((v).s0 + (v).s1)
#elif WIDTH == 4
typedef float4 floatX;
#define VLOAD(p) vload4(0, (p))
#define HSUM(v) (((v).s0 + (v).s1) + ((v).s2 + (v).s3))
#elif WIDTH == 8
typedef float8 floatX;
#define VLOAD(p) vload8(0, (p))
#define HSUM(v) ((((v).s0 + (v).s1) + ((v).s2 + (v).s3)) + (((v).s4 + (v).s5) + ((v).s6 + (v).s7)))
#else
#error "WIDTH must be 1, 2, 4 or 8"
#endif

__kernel void gemm_tiled(const int M, const int N, const int K, const __global float *A,
                         const __global float *B, __global float *C)
{
    const int row = get_local_id(0); // 0..TS-1
    const int col = get_local_id(1); // 0..RTS-1
    const int globalRow = TS * get_group_id(0) + row;
    const int globalCol = TS * get_group_id(1) + col;
    __local float Asub[TS][TS];
    __local float BsubT[TS][TS]; // transposed: the inner product reads both contiguously
    float acc[WPT];
    for (int w = 0; w < WPT; w++) acc[w] = 0.0f;
    const int numTiles = K / TS;
    for (int t = 0; t < numTiles; t++) {
        for (int w = 0; w < WPT; w++) {
            const int c = col + w * RTS;
            Asub[row][c] = A[globalRow * K + TS * t + c];
            BsubT[c][row] = B[(TS * t + row) * N + TS * get_group_id(1) + c];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TS; k += WIDTH) {
            const floatX a = VLOAD(&Asub[row][k]);
            for (int w = 0; w < WPT; w++) acc[w] += HSUM(a * VLOAD(&BsubT[col + w * RTS][k]));
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int w = 0; w < WPT; w++) C[globalRow * N + globalCol + w * RTS] = acc[w];
}
