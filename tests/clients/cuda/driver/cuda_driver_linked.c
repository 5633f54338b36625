/* Linked with -lcuda, like Triton's launcher module: modules and libraries,
 * functions and kernels, every legacy launch entry point, a launch captured
 * into a graph, unload. Prints results and what the fake driver ran.
 *   cuda_driver_linked ctx-reload   twice: a context, a module (SCALE 2, then
 *                                   3) and vadd launched, the context destroyed
 *                                   without unloading the module */
#include "cuda_driver_common.h"

#include "fakecuda.h"

#include <cuda.h>

/* The module goes with its context; the fake driver hands its handle
 * values to the next load, as a real driver may. */
static int ctx_reload(void)
{
    static const char image3[] = "AOEFAKECUBIN 1\narch sm_90\ndefine SCALE 3\nkernel vadd\n"
                                 "hash 00000000000000bb\n";
    const void *first[2] = {NULL, NULL};
    CHECK(cuInit(0));
    for (int round = 0; round < 2; round++) {
        CUcontext ctx;
        CUmodule mod;
        CUfunction vadd;
        CHECK(cuCtxCreate(&ctx, NULL, 0, 0));
        CHECK(cuModuleLoadData(&mod, round ? image3 : fake_image));
        CHECK(cuModuleGetFunction(&vadd, mod, "vadd"));
        float a[64], b[64], c[64];
        for (int i = 0; i < 64; i++) a[i] = (float)i, b[i] = 1.0f;
        CUdeviceptr da, db, dc;
        CHECK(cuMemAlloc(&da, sizeof a));
        CHECK(cuMemAlloc(&db, sizeof b));
        CHECK(cuMemAlloc(&dc, sizeof c));
        CHECK(cuMemcpyHtoD(da, a, sizeof a));
        CHECK(cuMemcpyHtoD(db, b, sizeof b));
        int n = 64;
        void *args[] = {&dc, &da, &db, &n};
        CHECK(cuLaunchKernel(vadd, 1, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
        CHECK(cuMemcpyDtoH(c, dc, sizeof c));
        printf("round %d: vadd c[1] = %g%s\n", round, c[1],
               round && (void *)mod == first[0] && (void *)vadd == first[1]
                   ? ", the module and function handles of round 0 again"
                   : "");
        first[0] = mod, first[1] = vadd;
        CHECK(cuMemFree(da));
        CHECK(cuMemFree(db));
        CHECK(cuMemFree(dc));
        CHECK(cuCtxDestroy(ctx)); /* the module with it, never unloaded */
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "ctx-reload")) return ctx_reload();
    CHECK(cuInit(0));
    CUcontext ctx;
    CHECK(cuDevicePrimaryCtxRetain(&ctx, 0));
    CHECK(cuCtxSetCurrent(ctx));
    /* launches of no function, which the driver refuses: more of them than
     * the shim has function records (they used to take one each, and the
     * program's own kernels below then went unlisted) */
    CUresult null_rc = CUDA_SUCCESS;
    for (int i = 0; i < 20000; i++)
        null_rc = cuLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL);
    printf("NULL launches: rc %d\n", (int)null_rc);
    CUmodule mod;
    CUfunction vadd, fill;
    CHECK(cuModuleLoadDataEx(&mod, fake_image, 0, NULL, NULL));
    CHECK(cuModuleGetFunction(&vadd, mod, "vadd"));
    CHECK(cuModuleGetFunction(&fill, mod, "fill"));
    size_t off = 0, size = 0;
    CUresult r = cuFuncGetParamInfo(vadd, 3, &off, &size);
    printf("param info vadd 3: rc %d offset %zu size %zu\n", (int)r, off, size);
    printf("param info fill 0: rc %d\n", (int)cuFuncGetParamInfo(fill, 0, &off, &size));

    enum { N = 256 };
    float a[N], b[N], c[N];
    for (int i = 0; i < N; i++) a[i] = (float)i, b[i] = 0.5f * (float)i;
    CUdeviceptr da, db, dc;
    CHECK(cuMemAlloc(&da, sizeof a));
    CHECK(cuMemAlloc(&db, sizeof b));
    CHECK(cuMemAlloc(&dc, sizeof c));
    CHECK(cuMemcpyHtoD(da, a, sizeof a));
    CHECK(cuMemcpyHtoD(db, b, sizeof b));
    int n = N;
    void *args[] = {&dc, &da, &db, &n};
    for (int rep = 0; rep < 5; rep++)
        CHECK(cuLaunchKernel(vadd, N / 64, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
    CHECK(cuMemcpyDtoH(c, dc, sizeof c));
    printf("vadd: %g %g %g (ran %s)\n", c[0], c[1], c[N - 1], fakecuda_last_launch());

    /* a library's kernel, launched as a CUkernel cast and as its function */
    CUlibrary lib;
    CUkernel k;
    CUfunction kf;
    CHECK(cuLibraryLoadData(&lib, fake_image, NULL, NULL, 0, NULL, NULL, 0));
    CHECK(cuLibraryGetKernel(&k, lib, "fill"));
    CHECK(cuKernelGetFunction(&kf, k));
    unsigned base = 7;
    void *fargs[] = {&dc, &base};
    CHECK(cuLaunchKernel((CUfunction)k, 1, 1, 1, 32, 1, 1, 0, NULL, fargs, NULL));
    CUlaunchConfig cfg = {.gridDimX = 2,
                          .gridDimY = 1,
                          .gridDimZ = 1,
                          .blockDimX = 32,
                          .blockDimY = 1,
                          .blockDimZ = 1,
                          .sharedMemBytes = 128};
    CHECK(cuLaunchKernelEx(&cfg, kf, fargs, NULL));
    CHECK(cuLaunchCooperativeKernel(kf, 1, 1, 1, 16, 1, 1, 0, NULL, fargs));
    unsigned u[64];
    CHECK(cuMemcpyDtoH(u, dc, sizeof u));
    printf("fill: %u %u %u (ran %s)\n", u[0], u[31], u[63], fakecuda_last_launch());

    /* a stream captured into a graph: the launch is recorded, not run */
    CUmodule mod2;
    CUfunction cap;
    CHECK(cuModuleLoadData(&mod2, fake_image));
    CHECK(cuModuleGetFunction(&cap, mod2, "fill"));
    CUstream s;
    CHECK(cuStreamCreate(&s, 0));
    CHECK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    base = 1000;
    CHECK(cuLaunchKernel(cap, 1, 1, 1, 4, 1, 1, 0, s, fargs, NULL));
    CUgraph g;
    CHECK(cuStreamEndCapture(s, &g));
    size_t nodes = 0;
    CHECK(cuGraphGetNodes(g, NULL, &nodes));
    CHECK(cuMemcpyDtoH(u, dc, sizeof u));
    printf("captured: %zu node(s), buffer still %u\n", nodes, u[0]);
    CHECK(cuGraphDestroy(g));
    CHECK(cuStreamDestroy(s));

    CHECK(cuModuleUnload(mod));
    CHECK(cuModuleUnload(mod2));
    CHECK(cuLibraryUnload(lib));
    printf("launches: cuLaunchKernel %lu, cuLaunchKernelEx %lu, cuLaunchCooperativeKernel %lu\n",
           fakecuda_launches("cuLaunchKernel"), fakecuda_launches("cuLaunchKernelEx"),
           fakecuda_launches("cuLaunchCooperativeKernel"));
    return 0;
}
