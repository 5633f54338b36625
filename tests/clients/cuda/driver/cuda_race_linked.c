/* Threads launching at once (tests/integration/shim_cuda_race.sh, also under
 * ThreadSanitizer): every thread loads its own module and launches its vadd,
 * and all launch the one shared fill function, starting together, so the
 * shim's first sight of the shared function, its tables' inserts and its
 * counters race. Each thread checks its own results; the last line says
 * how many launches there were. Usage: cuda_race_linked [THREADS] [LAUNCHES] */
#include "cuda_driver_common.h"

#include <cuda.h>
#include <pthread.h>

static pthread_barrier_t g_start;
static CUfunction g_fill;
static CUcontext g_ctx;
static int g_launches;

static void *worker(void *arg)
{
    long id = (long)arg;
    CHECK(cuCtxSetCurrent(g_ctx));
    CUmodule mod;
    CUfunction vadd;
    CHECK(cuModuleLoadData(&mod, fake_image));
    CHECK(cuModuleGetFunction(&vadd, mod, "vadd"));
    enum { N = 64 };
    float a[N], b[N], c[N];
    for (int i = 0; i < N; i++) a[i] = (float)(i + id), b[i] = 1.0f;
    CUdeviceptr da, db, dc, du;
    CHECK(cuMemAlloc(&da, sizeof a));
    CHECK(cuMemAlloc(&db, sizeof b));
    CHECK(cuMemAlloc(&dc, sizeof c));
    CHECK(cuMemAlloc(&du, N * sizeof(unsigned)));
    CHECK(cuMemcpyHtoD(da, a, sizeof a));
    CHECK(cuMemcpyHtoD(db, b, sizeof b));
    int n = N;
    unsigned base = (unsigned)id * 1000;
    void *vargs[] = {&dc, &da, &db, &n}, *fargs[] = {&du, &base};
    pthread_barrier_wait(&g_start);
    for (int i = 0; i < g_launches; i++) {
        CHECK(cuLaunchKernel(g_fill, 1, 1, 1, N, 1, 1, 0, NULL, fargs, NULL));
        CHECK(cuLaunchKernel(vadd, 1, 1, 1, N, 1, 1, 0, NULL, vargs, NULL));
    }
    unsigned u[N];
    CHECK(cuMemcpyDtoH(c, dc, sizeof c));
    CHECK(cuMemcpyDtoH(u, du, sizeof u));
    for (int i = 0; i < N; i++)
        if (c[i] != (float)(i + id) + 2.0f || u[i] != base + (unsigned)i) {
            fprintf(stderr, "thread %ld: wrong result at %d\n", id, i);
            exit(1);
        }
    CHECK(cuModuleUnload(mod));
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 8;
    g_launches = argc > 2 ? atoi(argv[2]) : 1000;
    if (threads < 1 || threads > 64 || g_launches < 1) return fprintf(stderr, "bad arguments\n"), 2;
    CHECK(cuInit(0));
    CHECK(cuDevicePrimaryCtxRetain(&g_ctx, 0));
    CHECK(cuCtxSetCurrent(g_ctx));
    CUmodule shared;
    CHECK(cuModuleLoadData(&shared, fake_image));
    CHECK(cuModuleGetFunction(&g_fill, shared, "fill"));
    pthread_barrier_init(&g_start, NULL, (unsigned)threads);
    pthread_t t[64];
    for (long i = 0; i < threads; i++) pthread_create(&t[i], NULL, worker, (void *)i);
    for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
    printf("ok: %d threads, %d launches each of fill and vadd\n", threads, g_launches);
    return 0;
}
