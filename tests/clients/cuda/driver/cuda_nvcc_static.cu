// A real nvcc-built program (static CUDA runtime, the default): cudart
// dlopens libcuda.so.1, takes cuGetProcAddress_v2 with dlsym and every
// driver function through it (tests/integration/shim_cuda_nvcc.sh). On the
// fake driver cudart stops at its private export tables (cuGetExportTable),
// so its calls fail; its look-ups are what the test checks.
#include <cstdio>

__global__ void scale(float *p, float f) { p[threadIdx.x] *= f; }

int main()
{
    float *d = nullptr;
    cudaError_t e = cudaMalloc(&d, 64 * sizeof(float));
    std::printf("cudaMalloc: %d\n", (int)e);
    scale<<<1, 64>>>(d, 2.0f);
    std::printf("launch: %d\n", (int)cudaGetLastError());
    return 0;
}
