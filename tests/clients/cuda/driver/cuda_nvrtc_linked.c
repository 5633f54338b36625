/* NVRTC then the driver, as CuPy's RawModule does: a program compiled with
 * NVRTC (-DSCALE=2), its CUBIN loaded as a module, its kernel launched
 * twice. Linked with -lcuda and -lnvrtc (the fakes in tests). Prints the
 * result; exit status 1 on an error. */
#include "cuda_driver_common.h"

#include <cuda.h>
#include <nvrtc.h>
#include <stdlib.h>

static const char source[] =
    "extern \"C\" __global__ void vadd(float* c, const float* a, const float* b, int n)\n"
    "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] + b[i] * SCALE; }\n";

int main(void)
{
    nvrtcProgram prog;
    if (nvrtcCreateProgram(&prog, source, "vadd.cu", 0, NULL, NULL) != NVRTC_SUCCESS) return 1;
    const char *opts[] = {"-DSCALE=2", "--gpu-architecture=sm_90"};
    if (nvrtcCompileProgram(prog, 2, opts) != NVRTC_SUCCESS) return 1;
    size_t size = 0;
    if (nvrtcGetCUBINSize(prog, &size) != NVRTC_SUCCESS || !size) return 1;
    char *cubin = malloc(size);
    if (!cubin || nvrtcGetCUBIN(prog, cubin) != NVRTC_SUCCESS) return 1;
    nvrtcDestroyProgram(&prog);

    CHECK(cuInit(0));
    CUcontext ctx;
    CHECK(cuDevicePrimaryCtxRetain(&ctx, 0));
    CHECK(cuCtxSetCurrent(ctx));
    CUmodule mod;
    CUfunction vadd;
    CHECK(cuModuleLoadData(&mod, cubin));
    CHECK(cuModuleGetFunction(&vadd, mod, "vadd"));
    enum { N = 128 };
    float a[N], b[N], c[N];
    for (int i = 0; i < N; i++) a[i] = (float)i, b[i] = 1.0f;
    CUdeviceptr da, db, dc;
    CHECK(cuMemAlloc(&da, sizeof a));
    CHECK(cuMemAlloc(&db, sizeof b));
    CHECK(cuMemAlloc(&dc, sizeof c));
    CHECK(cuMemcpyHtoD(da, a, sizeof a));
    CHECK(cuMemcpyHtoD(db, b, sizeof b));
    int n = N;
    void *args[] = {&dc, &da, &db, &n};
    for (int rep = 0; rep < 2; rep++)
        CHECK(cuLaunchKernel(vadd, N / 32, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
    CHECK(cuMemcpyDtoH(c, dc, sizeof c));
    printf("vadd (NVRTC, SCALE=2): %g %g %g\n", c[0], c[1], c[N - 1]);
    CHECK(cuModuleUnload(mod));
    free(cubin);
    return 0;
}
