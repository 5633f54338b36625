/* A CUDA program whose kernel the shim tunes (tests/integration/
 * shim_cuda_tune.sh, scripts/bench/cuda-overhead): an NVRTC program with a
 * header and #ifndef WPT, its CUBIN loaded with cuModuleLoadData, tscale
 * (declared in tests/tunables/cuda_tscale.json) and vcopy (undeclared)
 * launched on cuMemAlloc'd buffers. Linked with -lcuda and -lnvrtc (the
 * fakes). Modes:
 *   (none)     tscale twice, vcopy once; prints the results
 *   save FILE  the same, after writing the CUBIN to FILE (the warm run of
 *              cuda_module_file_linked loads it as a kernel cache would)
 *   saveptx FILE the same with the PTX (loaded instead of the CUBIN)
 *   graph      tscale first launched into a stream capture, then on the stream
 *   graph-elsewhere  tscale first launched (its buffers read back for the
 *              job) while another thread captures a stream of its own in
 *              global mode; prints whether that capture ended intact
 *   hit SECS   tscale until the variant ran (fakecuda_tscale_last_wpt != 1) or
 *              SECS passed; prints the WPT seen and whether out is right
 *   bench N    tbench (no host code: the fake only checks) N times after its
 *              first launch; prints the best-of-5 ns per launch
 *   race T L   T threads, each with its own buffers, launch tscale at least L
 *              times (then until the variant ran), alternating two shapes
 *              (block 128 and 64); prints "ok: ..." when every thread's
 *              output is right, with the launches made
 * Exit status 1 on a driver or NVRTC error. */
#include "cuda_driver_common.h"
#include "fakecuda.h"

#include <cuda.h>
#include <nvrtc.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern atomic_int fakecuda_tscale_last_wpt; /* libfakecuda_kernels.so */

static const char header[] = "#define TSCALE_HEADER 1\n";
static const char source[] =
    "#include \"tscale_util.h\"\n"
    "#ifndef WPT\n"
    "#define WPT 1\n"
    "#endif\n"
    "// out[i] = a * in[i], WPT elements per thread\n"
    "extern \"C\" __global__ void __launch_bounds__(1024)\n"
    "tscale(float *__restrict__ out, const float *__restrict__ in, float a, int n)\n"
    "{\n"
    "    int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    for (int k = 0; k < WPT; k++) {\n"
    "        int i = t * WPT + k;\n"
    "        if (i < n) out[i] = a * in[i];\n"
    "    }\n"
    "}\n"
    "extern \"C\" __global__ void vcopy(float *out, const float *in, int n)\n"
    "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = in[i]; }\n"
    "extern \"C\" __global__ void tbench(float *out, int n) { }\n";

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

typedef struct {
    CUcontext ctx;
    CUfunction fn;
    long launches;
    int ok;
} racer;

static void *race_thread(void *arg)
{
    racer *r = arg;
    float in[N];
    float out[N];
    for (int i = 0; i < N; i++) in[i] = (float)i * 0.25f; /* contents: not in the key */
    CUdeviceptr din, dout;
    float a = 3.0f; /* the captured launch's: the same operator */
    int n = N;
    void *args[] = {&dout, &din, &a, &n};
    if (cuCtxSetCurrent(r->ctx) || cuMemAlloc(&din, sizeof in) || cuMemAlloc(&dout, sizeof out) ||
        cuMemcpyHtoD(din, in, sizeof in))
        return NULL;
    r->ok = 1;
    /* at least `launches`, then on until the variant ran (built on the poller) */
    double t0 = now_s();
    long i = 0;
    for (; r->ok &&
           (i < r->launches || (atomic_load(&fakecuda_tscale_last_wpt) != 2 && now_s() - t0 < 20));
         i++) {
        unsigned block = i % 2 ? 64 : BLOCK;
        r->ok = !cuLaunchKernel(r->fn, N / block, 1, 1, block, 1, 1, 0, NULL, args, NULL) &&
                !cuMemcpyDtoH(out, dout, sizeof out) && right(out, in, a);
    }
    r->launches = i;
    cuMemFree(din);
    cuMemFree(dout);
    return NULL;
}

/* A thread capturing its own stream in global mode (torch.cuda.graph's
 * default) until told to end. */
typedef struct {
    CUcontext ctx;
    CUstream s;
    atomic_int begun, end;
    CUresult result; /* cuStreamEndCapture's */
} capturer;

static void *capture_thread(void *arg)
{
    capturer *c = arg;
    CUgraph g = NULL;
    cuCtxSetCurrent(c->ctx);
    c->result = cuStreamBeginCapture(c->s, CU_STREAM_CAPTURE_MODE_GLOBAL);
    atomic_store(&c->begun, 1);
    while (!atomic_load(&c->end)) sched_yield();
    if (c->result == CUDA_SUCCESS) c->result = cuStreamEndCapture(c->s, &g);
    if (g) cuGraphDestroy(g);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    nvrtcProgram prog;
    const char *headers[] = {header}, *names[] = {"tscale_util.h"};
    if (nvrtcCreateProgram(&prog, source, "tscale.cu", 1, headers, names) != NVRTC_SUCCESS)
        return 1;
    const char *opts[] = {"--gpu-architecture=sm_90", "-DUNUSED=7"};
    if (nvrtcCompileProgram(prog, 2, opts) != NVRTC_SUCCESS) return 1;
    size_t size = 0;
    int ptx = !strcmp(mode, "saveptx"); /* the PTX loaded instead */
    if ((ptx ? nvrtcGetPTXSize(prog, &size) : nvrtcGetCUBINSize(prog, &size)) != NVRTC_SUCCESS ||
        !size)
        return 1;
    char *cubin = malloc(size);
    if (!cubin || (ptx ? nvrtcGetPTX(prog, cubin) : nvrtcGetCUBIN(prog, cubin)) != NVRTC_SUCCESS)
        return 1;
    nvrtcDestroyProgram(&prog);
    if ((!strcmp(mode, "save") || ptx) && argc > 2) {
        FILE *f = fopen(argv[2], "wb");
        if (!f || fwrite(cubin, 1, size, f) != size || fclose(f)) return 1;
        mode = "";
    }

    CHECK(cuInit(0));
    CUcontext ctx;
    CHECK(cuDevicePrimaryCtxRetain(&ctx, 0));
    CHECK(cuCtxSetCurrent(ctx));
    CUmodule mod;
    CUfunction tscale, vcopy, tbench;
    CHECK(cuModuleLoadData(&mod, cubin));
    CHECK(cuModuleGetFunction(&tscale, mod, "tscale"));
    CHECK(cuModuleGetFunction(&vcopy, mod, "vcopy"));
    CHECK(cuModuleGetFunction(&tbench, mod, "tbench"));
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

    if (!strcmp(mode, "bench")) {
        long reps = argc > 2 ? atol(argv[2]) : 1000000;
        void *bargs[] = {&dout, &n};
        CHECK(cuLaunchKernel(tbench, 1, 1, 1, 32, 1, 1, 0, NULL, bargs, NULL)); /* first sight */
        double best = 1e30;
        for (int round = 0; round < 5; round++) {
            double t0 = now_s();
            for (long i = 0; i < reps; i++)
                cuLaunchKernel(tbench, 1, 1, 1, 32, 1, 1, 0, NULL, bargs, NULL);
            double ns = (now_s() - t0) * 1e9 / (double)reps;
            if (ns < best) best = ns;
        }
        printf("%.2f\n", best);
        goto done;
    }
    if (!strcmp(mode, "race")) {
        int nt = argc > 2 ? atoi(argv[2]) : 4, all = 1;
        long launches = argc > 3 ? atol(argv[3]) : 200;
        if (nt < 1 || nt > 64) return 1;
        racer r[64];
        pthread_t th[64];
        for (int i = 0; i < nt; i++) {
            r[i] = (racer){ctx, tscale, launches, 0};
            if (pthread_create(&th[i], NULL, race_thread, &r[i])) return 1;
        }
        for (int i = 0; i < nt; i++) {
            pthread_join(th[i], NULL);
            all &= r[i].ok;
        }
        long made = 0;
        for (int i = 0; i < nt; i++) made += r[i].launches;
        printf("%s: %d threads, %ld launches, wpt %d\n", all ? "ok" : "WRONG", nt, made,
               atomic_load(&fakecuda_tscale_last_wpt));
        goto done;
    }
    if (!strcmp(mode, "graph")) {
        CUstream s;
        CUgraph g;
        size_t nodes = 0;
        CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
        CHECK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
        CHECK(cuLaunchKernel(tscale, N / BLOCK, 1, 1, BLOCK, 1, 1, 0, s, args, NULL));
        CHECK(cuStreamEndCapture(s, &g));
        CHECK(cuGraphGetNodes(g, NULL, &nodes));
        CHECK(cuGraphDestroy(g));
        CHECK(cuLaunchKernel(tscale, N / BLOCK, 1, 1, BLOCK, 1, 1, 0, s, args, NULL));
        CHECK(cuStreamSynchronize(s));
        CHECK(cuMemcpyDtoH(out, dout, sizeof out));
        printf("graph: %zu node(s) captured; after it: %s\n", nodes,
               right(out, in, a) ? "ok" : "wrong");
        CHECK(cuStreamDestroy(s));
        goto done;
    }
    if (!strcmp(mode, "graph-elsewhere")) {
        CUstream s;
        CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
        capturer c = {.ctx = ctx, .s = s};
        pthread_t th;
        if (pthread_create(&th, NULL, capture_thread, &c)) return 1;
        while (!atomic_load(&c.begun)) sched_yield();
        CHECK(cuLaunchKernel(tscale, N / BLOCK, 1, 1, BLOCK, 1, 1, 0, NULL, args, NULL));
        CHECK(cuCtxSynchronize());
        atomic_store(&c.end, 1);
        pthread_join(th, NULL);
        CHECK(cuMemcpyDtoH(out, dout, sizeof out));
        printf("graph-elsewhere: the other thread's capture %s; tscale %s\n",
               c.result == CUDA_SUCCESS ? "intact" : "broken", right(out, in, a) ? "ok" : "wrong");
        CHECK(cuStreamDestroy(s));
        goto done;
    }
    if (!strcmp(mode, "hit")) {
        double limit = argc > 2 ? atof(argv[2]) : 10, t0 = now_s();
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
        printf("hit: wpt %d after %ld launches, output %s\n", wpt, launches,
               right(got, in, a) ? "right" : "wrong");
        /* the other entry points: Ex without attributes is tuned too; with
         * an attribute, and a cooperative launch, pass through */
        CUlaunchConfig cfg = {N / BLOCK, 1, 1, BLOCK, 1, 1, 0, NULL, NULL, 0};
        CHECK(cuLaunchKernelEx(&cfg, tscale, args, NULL));
        printf("%s: wpt %d\n", fakecuda_last_launch(), atomic_load(&fakecuda_tscale_last_wpt));
        CUlaunchAttribute attr;
        memset(&attr, 0, sizeof attr);
        attr.id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
        cfg.attrs = &attr;
        cfg.numAttrs = 1;
        CHECK(cuLaunchKernelEx(&cfg, tscale, args, NULL));
        printf("%s with an attribute: wpt %d\n", fakecuda_last_launch(),
               atomic_load(&fakecuda_tscale_last_wpt));
        CHECK(cuLaunchCooperativeKernel(tscale, N / BLOCK, 1, 1, BLOCK, 1, 1, 0, NULL, args));
        printf("%s: wpt %d\n", fakecuda_last_launch(), atomic_load(&fakecuda_tscale_last_wpt));
        goto done;
    }
    for (int rep = 0; rep < 2; rep++)
        CHECK(cuLaunchKernel(tscale, N / BLOCK, 1, 1, BLOCK, 1, 1, 0, NULL, args, NULL));
    void *cargs[] = {&dcopy, &dout, &n};
    CHECK(cuLaunchKernel(vcopy, N / BLOCK, 1, 1, BLOCK, 1, 1, 0, NULL, cargs, NULL));
    CHECK(cuMemcpyDtoH(copy, dcopy, sizeof copy));
    printf("tscale then vcopy: %g %g %g, %s\n", copy[0], copy[1], copy[N - 1],
           right(copy, in, a) ? "right" : "wrong");
done:
    CHECK(cuMemFree(din));
    CHECK(cuMemFree(dout));
    CHECK(cuMemFree(dcopy));
    CHECK(cuModuleUnload(mod));
    free(cubin);
    return 0;
}
