/* A warm run of a program with a kernel cache (CuPy, PyTorch's jiterator):
 * the CUBIN an earlier run compiled with NVRTC (cuda_nvrtc_tune_linked save
 * FILE) is read from FILE and loaded with cuModuleLoadData; NVRTC is never
 * called (this client does not link it). tests/integration/
 * shim_cuda_warm.sh. Modes:
 *   FILE           tscale twice, vcopy once; prints the results (as
 *                  cuda_nvrtc_tune_linked does)
 *   FILE hit SECS  tscale until the variant ran (fakecuda_tscale_last_wpt
 *                  != 1) or SECS passed; prints the WPT seen, whether out
 *                  is right and the entry point the fake driver last saw
 * Exit status 1 on a driver error or an unreadable FILE. */
#include "cuda_driver_common.h"
#include "fakecuda.h"

#include <cuda.h>
#include <stdatomic.h>
#include <time.h>

extern atomic_int fakecuda_tscale_last_wpt; /* libfakecuda_kernels.so */

enum { N = 1024, BLOCK = 128 };

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int right(const float *out, const float *in, float a)
{
    for (int i = 0; i < N; i++)
        if (out[i] != a * in[i]) return 0;
    return 1;
}

/* FILE's bytes (at most 1 MiB), or NULL. */
static char *read_image(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = calloc(1, 1 << 20); /* a text image ends at its NUL */
    size_t n = f && buf ? fread(buf, 1, 1 << 20, f) : 0;
    if (f) fclose(f);
    if (!n || n == 1 << 20) {
        free(buf);
        return NULL;
    }
    return buf;
}

int main(int argc, char **argv)
{
    if (argc < 2) return 1;
    const char *mode = argc > 2 ? argv[2] : "";
    char *image = read_image(argv[1]);
    if (!image) return 1;
    CHECK(cuInit(0));
    CUcontext ctx;
    CHECK(cuDevicePrimaryCtxRetain(&ctx, 0));
    CHECK(cuCtxSetCurrent(ctx));
    CUmodule mod;
    CUfunction tscale, vcopy;
    CHECK(cuModuleLoadData(&mod, image));
    CHECK(cuModuleGetFunction(&tscale, mod, "tscale"));
    CHECK(cuModuleGetFunction(&vcopy, mod, "vcopy"));
    static float in[N], out[N], copy[N];
    for (int i = 0; i < N; i++) in[i] = (float)i * 0.5f, out[i] = -1.0f;
    CUdeviceptr din, dout, dcopy;
    CHECK(cuMemAlloc(&din, sizeof in));
    CHECK(cuMemAlloc(&dout, sizeof out));
    CHECK(cuMemAlloc(&dcopy, sizeof copy));
    CHECK(cuMemcpyHtoD(din, in, sizeof in));
    CHECK(cuMemcpyHtoD(dout, out, sizeof out));
    float a = 3.0f;
    int n = N;
    void *args[] = {&dout, &din, &a, &n};
    if (!strcmp(mode, "hit")) {
        double limit = argc > 3 ? atof(argv[3]) : 10, t0 = now_s();
        long launches = 0;
        int wpt = 0;
        do {
            CHECK(cuMemcpyHtoD(dout, out, sizeof out)); /* -1 everywhere again */
            CHECK(cuLaunchKernel(tscale, N / BLOCK, 1, 1, BLOCK, 1, 1, 0, NULL, args, NULL));
            launches++;
            wpt = atomic_load(&fakecuda_tscale_last_wpt);
            if (wpt == 1) {
                struct timespec ms = {0, 10000000};
                nanosleep(&ms, NULL);
            }
        } while (wpt == 1 && now_s() - t0 < limit);
        float got[N];
        CHECK(cuMemcpyDtoH(got, dout, sizeof got));
        printf("hit: wpt %d after %ld launches, output %s, last launch %s\n", wpt, launches,
               right(got, in, a) ? "right" : "wrong", fakecuda_last_launch());
    } else {
        for (int rep = 0; rep < 2; rep++)
            CHECK(cuLaunchKernel(tscale, N / BLOCK, 1, 1, BLOCK, 1, 1, 0, NULL, args, NULL));
        void *cargs[] = {&dcopy, &dout, &n};
        CHECK(cuLaunchKernel(vcopy, N / BLOCK, 1, 1, BLOCK, 1, 1, 0, NULL, cargs, NULL));
        CHECK(cuMemcpyDtoH(copy, dcopy, sizeof copy));
        printf("tscale then vcopy: %g %g %g, %s\n", copy[0], copy[1], copy[N - 1],
               right(copy, in, a) ? "right" : "wrong");
    }
    CHECK(cuMemFree(din));
    CHECK(cuMemFree(dout));
    CHECK(cuMemFree(dcopy));
    CHECK(cuModuleUnload(mod));
    free(image);
    return 0;
}
