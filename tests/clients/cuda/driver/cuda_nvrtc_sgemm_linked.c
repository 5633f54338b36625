/* A CUDA program as a CuPy RawModule user writes one, for the end-to-end
 * test (tests/integration/shim_cuda_e2e.sh): NVRTC compiles
 * tests/kernels/sgemm_tiled.cu (its tile sizes are #ifndef defaults;
 * etc/tunables/cuda_sgemm.json declares it), the CUBIN is loaded with
 * cuModuleLoadData, and C = A x B (M = N = K = 128) is launched with the
 * default's grid (N/16, M/16) and block (16, 16) on cuMemAlloc'd buffers.
 * Linked with -lcuda and -lnvrtc (the fakes).
 * Usage: cuda_nvrtc_sgemm_linked SOURCE LAUNCHES [SECS]
 * Launches LAUNCHES times; with SECS, then keeps launching until the fake
 * kernel ran with tile sizes other than the default's (a tuned variant) or
 * SECS passed. Prints "checksum=HEX" of C (FNV-1a of its bytes) and "ran
 * TS=.. WPT=.." of the last launch. Exit status 1 on a driver or NVRTC
 * error or a wrong product. */
#include "cuda_driver_common.h"

#include <cuda.h>
#include <nvrtc.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

extern atomic_long fakecuda_sgemm_last_ts, fakecuda_sgemm_last_wpt; /* libfakecuda_kernels.so */

enum { M = 128, N = 128, K = 128 };

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = calloc(1, 1 << 16);
    size_t n = buf ? fread(buf, 1, (1 << 16) - 1, f) : 0;
    fclose(f);
    if (buf && !n) {
        free(buf);
        return NULL;
    }
    return buf;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static char *compile(const char *source)
{
    nvrtcProgram prog;
    CHECK(nvrtcCreateProgram(&prog, source, "sgemm_tiled.cu", 0, NULL, NULL));
    const char *opts[] = {"--gpu-architecture=sm_90", "-std=c++17"};
    CHECK(nvrtcCompileProgram(prog, 2, opts));
    size_t size = 0;
    CHECK(nvrtcGetCUBINSize(prog, &size));
    char *cubin = malloc(size);
    if (!cubin) exit(1);
    CHECK(nvrtcGetCUBIN(prog, cubin));
    CHECK(nvrtcDestroyProgram(&prog));
    return cubin;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s SOURCE LAUNCHES [SECS]\n", argv[0]);
        return 2;
    }
    char *source = read_file(argv[1]);
    if (!source) {
        fprintf(stderr, "%s: cannot read %s\n", argv[0], argv[1]);
        return 1;
    }
    long launches = atol(argv[2]);
    double secs = argc > 3 ? atof(argv[3]) : 0;
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction fn;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    char *cubin = compile(source);
    CHECK(cuModuleLoadData(&mod, cubin));
    CHECK(cuModuleGetFunction(&fn, mod, "sgemm_tiled"));

    static float a[M * K], b[K * N], c[M * N], want[M * N];
    for (int i = 0; i < M * K; i++) a[i] = (float)((i * 7) % 13) - 6.0f;
    for (int i = 0; i < K * N; i++) b[i] = (float)((i * 5) % 11) - 5.0f;
    for (int i = 0; i < M; i++) /* small integers: exact in float in any order */
        for (int j = 0; j < N; j++) {
            float s = 0;
            for (int k = 0; k < K; k++) s += a[i * K + k] * b[k * N + j];
            want[i * N + j] = s;
        }
    CUdeviceptr da, db, dc;
    CHECK(cuMemAlloc(&da, sizeof a));
    CHECK(cuMemAlloc(&db, sizeof b));
    CHECK(cuMemAlloc(&dc, sizeof c));
    CHECK(cuMemcpyHtoD(da, a, sizeof a));
    CHECK(cuMemcpyHtoD(db, b, sizeof b));
    int m = M, n = N, k = K;
    void *params[] = {&m, &n, &k, &da, &db, &dc};
    double t0 = now_s();
    for (long i = 0;; i++) {
        CHECK(cuMemsetD8(dc, 0, sizeof c));
        CHECK(cuLaunchKernel(fn, N / 16, M / 16, 1, 16, 16, 1, 0, NULL, params, NULL));
        CHECK(cuCtxSynchronize());
        if (i + 1 < launches) continue;
        int tuned = atomic_load(&fakecuda_sgemm_last_ts) != 16 ||
                    atomic_load(&fakecuda_sgemm_last_wpt) != 1;
        if (!secs || tuned || now_s() - t0 > secs) break;
        struct timespec pause = {0, 20 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    CHECK(cuMemcpyDtoH(c, dc, sizeof c));
    if (memcmp(c, want, sizeof c)) {
        fprintf(stderr, "%s: wrong product\n", argv[0]);
        return 1;
    }
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < sizeof c; i++) h = (h ^ ((unsigned char *)c)[i]) * 0x100000001b3ull;
    printf("checksum=%016llx\n", (unsigned long long)h);
    printf("ran TS=%ld WPT=%ld\n", atomic_load(&fakecuda_sgemm_last_ts),
           atomic_load(&fakecuda_sgemm_last_wpt));
    CHECK(cuMemFree(da));
    CHECK(cuMemFree(db));
    CHECK(cuMemFree(dc));
    CHECK(cuModuleUnload(mod));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    free(cubin);
    free(source);
    return 0;
}
