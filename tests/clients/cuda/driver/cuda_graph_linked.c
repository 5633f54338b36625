/* Linked with -lcuda: two vadd launches captured on a stream into a graph
 * (d = a + SCALE*b, then e = d + SCALE*b), instantiated once and replayed
 * five times, each after new inputs, its output checked: twice through
 * cuGraphLaunch as linked, twice through the per-thread entry point from
 * cuGetProcAddress_v2, once through dlsym("cuGraphLaunch_ptsz") on the
 * driver's handle. Then a graph the fake cannot instantiate (fill has no
 * parameter table). Prints results and what the fake driver ran.
 * `cuda_graph_linked race THREADS REPLAYS`: each thread replays a graph of
 * its own REPLAYS times, all starting together (the shim's per-thread
 * counting; also under ThreadSanitizer), and checks its outputs. */
#include "cuda_driver_common.h"

#include "fakecuda.h"

#include <cuda.h>
#include <pthread.h>

typedef CUresult (*graph_launch_fn)(CUgraphExec, CUstream);
enum { N = 256 };

/* A graph of two vadd launches on s over the buffers dd = da + 2 db, de =
 * dd + 2 db (n elements), instantiated into *x; its node count. */
static size_t capture(CUfunction vadd, CUstream s, CUdeviceptr *da, CUdeviceptr *db,
                      CUdeviceptr *dd, CUdeviceptr *de, CUgraphExec *x)
{
    CHECK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    int n = N;
    void *first[] = {dd, da, db, &n}, *second[] = {de, dd, db, &n};
    CHECK(cuLaunchKernel(vadd, N / 64, 1, 1, 64, 1, 1, 0, s, first, NULL));
    CHECK(cuLaunchKernel(vadd, N / 64, 1, 1, 64, 1, 1, 0, s, second, NULL));
    CUgraph g;
    CHECK(cuStreamEndCapture(s, &g));
    size_t nodes = 0;
    CHECK(cuGraphGetNodes(g, NULL, &nodes));
    CHECK(cuGraphInstantiate(x, g, 0));
    CHECK(cuGraphDestroy(g)); /* the executable graph keeps its own copy */
    n = 1;                    /* and the values captured: its replays still cover N */
    return nodes;
}

static CUcontext g_ctx;
static pthread_barrier_t g_start;
static graph_launch_fn g_per_thread;
static int g_replays;

typedef struct {
    int id;
    CUstream s;
    CUgraphExec x;
    CUdeviceptr de;
    float a[N], b[N];
} racer;

static void *race(void *arg)
{
    racer *r = arg;
    CHECK(cuCtxSetCurrent(g_ctx));
    pthread_barrier_wait(&g_start);
    for (int i = 0; i < g_replays; i++)
        CHECK(r->id % 2 ? g_per_thread(r->x, r->s) : cuGraphLaunch(r->x, r->s));
    float e[N];
    CHECK(cuMemcpyDtoH(e, r->de, sizeof e));
    for (int i = 0; i < N; i++)
        if (e[i] != r->a[i] + 4.0f * r->b[i]) {
            fprintf(stderr, "thread %d: wrong result at %d\n", r->id, i);
            exit(1);
        }
    return NULL;
}

static int race_main(CUfunction vadd, int threads, int replays)
{
    if (threads < 1 || threads > 32 || replays < 1) return fprintf(stderr, "bad arguments\n"), 2;
    CUdriverProcAddressQueryResult st;
    CHECK(cuGetProcAddress_v2("cuGraphLaunch", (void **)&g_per_thread, 12000,
                              CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st));
    if (!g_per_thread) return 1;
    g_replays = replays;
    static racer rs[32];
    pthread_t tid[32];
    pthread_barrier_init(&g_start, NULL, (unsigned)threads);
    for (int t = 0; t < threads; t++) {
        racer *r = &rs[t];
        r->id = t;
        CUdeviceptr da, db, dd;
        for (int i = 0; i < N; i++) r->a[i] = (float)(i + t), r->b[i] = 0.5f * (float)t;
        CHECK(cuMemAlloc(&da, sizeof r->a));
        CHECK(cuMemAlloc(&db, sizeof r->b));
        CHECK(cuMemAlloc(&dd, sizeof r->a));
        CHECK(cuMemAlloc(&r->de, sizeof r->a));
        CHECK(cuMemcpyHtoD(da, r->a, sizeof r->a));
        CHECK(cuMemcpyHtoD(db, r->b, sizeof r->b));
        CHECK(cuStreamCreate(&r->s, 0));
        capture(vadd, r->s, &da, &db, &dd, &r->de, &r->x);
    }
    for (int t = 0; t < threads; t++)
        if (pthread_create(&tid[t], NULL, race, &rs[t])) return 1;
    for (int t = 0; t < threads; t++) pthread_join(tid[t], NULL);
    printf("ok: %d threads, %d replays\n", threads, threads * replays);
    return 0;
}

int main(int argc, char **argv)
{
    CHECK(cuInit(0));
    CUcontext ctx;
    CHECK(cuDevicePrimaryCtxRetain(&ctx, 0));
    CHECK(cuCtxSetCurrent(ctx));
    g_ctx = ctx;
    CUmodule mod;
    CUfunction vadd;
    CHECK(cuModuleLoadData(&mod, fake_image));
    CHECK(cuModuleGetFunction(&vadd, mod, "vadd"));
    if (argc == 4 && !strcmp(argv[1], "race")) return race_main(vadd, atoi(argv[2]), atoi(argv[3]));

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
    CUgraphExec x;
    size_t nodes = capture(vadd, s, &da, &db, &dd, &de, &x);
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

    /* fill has no parameter table: the fake cannot copy its captured values */
    CUfunction fill;
    CHECK(cuModuleGetFunction(&fill, mod, "fill"));
    unsigned base = 7;
    void *fargs[] = {&dd, &base};
    CUgraph g;
    CHECK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CHECK(cuLaunchKernel(fill, 1, 1, 1, 4, 1, 1, 0, s, fargs, NULL));
    CHECK(cuStreamEndCapture(s, &g));
    CUDA_GRAPH_INSTANTIATE_PARAMS ip = {0};
    int rc = (int)cuGraphInstantiateWithParams(&x, g, &ip);
    printf("instantiate fill's graph: rc %d result %d\n", rc, (int)ip.result_out);
    CHECK(cuGraphDestroy(g));
    CHECK(cuStreamDestroy(s));
    CHECK(cuModuleUnload(mod));
    return bad != 0;
}
