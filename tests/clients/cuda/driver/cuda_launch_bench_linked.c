/* Launch overhead on the fake driver (scripts/bench/cuda-overhead): N
 * cuLaunchKernel calls of a function without host code (the fake does its
 * checks and returns), timed with CLOCK_MONOTONIC; prints ns per launch.
 * Linked with -lcuda, so with the shim preloaded every call goes through
 * its wrapper (past the first sight: lookup, count, tail call). */
#include "cuda_driver_common.h"

#include <cuda.h>
#include <time.h>

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    CHECK(cuInit(0));
    CUcontext ctx;
    CHECK(cuDevicePrimaryCtxRetain(&ctx, 0));
    CHECK(cuCtxSetCurrent(ctx));
    static const char image[] = "not a fake image: a module without host code";
    CUmodule mod;
    CUfunction f;
    CHECK(cuModuleLoadData(&mod, image));
    CHECK(cuModuleGetFunction(&f, mod, "empty"));
    CHECK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL)); /* first sight */
    double best = 1e30;
    for (int round = 0; round < 5; round++) {
        double t0 = now_ns();
        for (long i = 0; i < n; i++) cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL);
        double ns = (now_ns() - t0) / (double)n;
        if (ns < best) best = ns;
    }
    printf("%.2f\n", best);
    return 0;
}
