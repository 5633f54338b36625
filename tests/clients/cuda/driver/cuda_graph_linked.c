/* Linked with -lcuda: two vadd launches captured on a stream into a graph
 * (d = a + SCALE*b, then e = d + SCALE*b), instantiated once and replayed
 * five times, each after new inputs, its output checked: twice through
 * cuGraphLaunch as linked, twice through the per-thread entry point from
 * cuGetProcAddress_v2, once through dlsym("cuGraphLaunch_ptsz") on the
 * driver's handle. Prints results and what the fake driver ran. */
#include "cuda_driver_common.h"

#include "fakecuda.h"

#include <cuda.h>

typedef CUresult (*graph_launch_fn)(CUgraphExec, CUstream);
enum { N = 256 };

int main(void)
{
    CHECK(cuInit(0));
    CUcontext ctx;
    CHECK(cuDevicePrimaryCtxRetain(&ctx, 0));
    CHECK(cuCtxSetCurrent(ctx));
    CUmodule mod;
    CUfunction vadd;
    CHECK(cuModuleLoadData(&mod, fake_image));
    CHECK(cuModuleGetFunction(&vadd, mod, "vadd"));

    float a[N], b[N], e[N];
    for (int i = 0; i < N; i++) b[i] = 0.25f * (float)i;
    CUdeviceptr da, db, dd, de;
    CHECK(cuMemAlloc(&da, sizeof a));
    CHECK(cuMemAlloc(&db, sizeof b));
    CHECK(cuMemAlloc(&dd, sizeof a));
    CHECK(cuMemAlloc(&de, sizeof e));
    CHECK(cuMemcpyHtoD(db, b, sizeof b));

    CUstream s;
    CHECK(cuStreamCreate(&s, 0));
    CHECK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    int n = N;
    void *first[] = {&dd, &da, &db, &n}, *second[] = {&de, &dd, &db, &n};
    CHECK(cuLaunchKernel(vadd, N / 64, 1, 1, 64, 1, 1, 0, s, first, NULL));
    CHECK(cuLaunchKernel(vadd, N / 64, 1, 1, 64, 1, 1, 0, s, second, NULL));
    CUgraph g;
    CHECK(cuStreamEndCapture(s, &g));
    size_t nodes = 0;
    CHECK(cuGraphGetNodes(g, NULL, &nodes));
    CUgraphExec x;
    CHECK(cuGraphInstantiate(&x, g, 0));
    CHECK(cuGraphDestroy(g)); /* the executable graph keeps its own copy */
    n = 1;                    /* captured values are kept: the replays still cover N */
    printf("captured: %zu node(s), ran %s\n", nodes, fakecuda_last_launch());

    /* the three ways to the replay entry point */
    CUdriverProcAddressQueryResult st;
    graph_launch_fn per_thread = NULL, from_dlsym = NULL;
    CHECK(cuGetProcAddress_v2("cuGraphLaunch", (void **)&per_thread, 12000,
                              CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st));
    void *drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!drv || !per_thread) return 1;
    from_dlsym = (graph_launch_fn)dlsym(drv, "cuGraphLaunch_ptsz");
    if (!from_dlsym) return 1;
    print_owner("cuGraphLaunch", (void *)cuGraphLaunch);
    print_owner("cuGraphLaunch per-thread", (void *)per_thread);
    print_owner("dlsym cuGraphLaunch_ptsz", (void *)from_dlsym);

    int bad = 0;
    for (int r = 0; r < 5; r++) {
        for (int i = 0; i < N; i++) a[i] = (float)(i + 100 * r);
        CHECK(cuMemcpyHtoD(da, a, sizeof a));
        if (r < 2)
            CHECK(cuGraphLaunch(x, s));
        else if (r < 4)
            CHECK(per_thread(x, s));
        else
            CHECK(from_dlsym(x, s));
        CHECK(cuStreamSynchronize(s));
        CHECK(cuMemcpyDtoH(e, de, sizeof e));
        for (int i = 0; i < N; i++) bad += e[i] != a[i] + 4.0f * b[i]; /* SCALE 2, twice */
        printf("replay %d: %g %g (ran %s)\n", r, e[0], e[N - 1], fakecuda_last_launch());
    }
    printf("replays: cuGraphLaunch %lu, cuGraphLaunch_ptsz %lu, wrong outputs %d\n",
           fakecuda_launches("cuGraphLaunch"), fakecuda_launches("cuGraphLaunch_ptsz"), bad);
    dlclose(drv);
    CHECK(cuGraphExecDestroy(x));
    CHECK(cuStreamDestroy(s));
    CHECK(cuModuleUnload(mod));
    return bad != 0;
}
