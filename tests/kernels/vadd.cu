// c = a + b * SCALE over n elements, one thread each: a CUDA kernel no
// tunables declaration names (tests/integration/cuda_tune.sh: nothing to
// tune unless auto-defines are on). The fake driver runs
// tests/fakecuda/fcu_kernels.c's vadd for it.
#ifndef SCALE
#define SCALE 1
#endif

extern "C" __global__ void vadd(float *c, const float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i] * SCALE;
}
