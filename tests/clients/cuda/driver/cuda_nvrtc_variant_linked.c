/* Variants of an NVRTC kernel built by the shim (hooks/cuda_variant.c), on
 * the fake NVRTC and driver, asked for through the test build of the shim
 * (tests/fakecuda/variant_probe.c: libaoe_hook_cudaprobe.so, preloaded) as
 * the launch path asks. Linked with -lcuda and -lnvrtc (the fakes).
 *   cuda_nvrtc_variant_linked basic      the checks below, one line each
 *   cuda_nvrtc_variant_linked race N     N threads asking for the same and
 *                                        different variants at once
 *   cuda_nvrtc_variant_linked exit       asks for variants and exits at once
 *   cuda_nvrtc_variant_linked fork       a child builds a variant of its own
 *   cuda_nvrtc_variant_linked capture    a variant built while this thread
 *                                        captures a stream in global mode
 * Exit status 1 on a failed check (said on stderr). */
#include "cuda_driver_common.h"
#include "fakecuda.h"

#include <cuda.h>
#include <nvrtc.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

enum { VAR_PENDING = 0, VAR_READY = 1, VAR_FAILED = 2, N = 128, WAIT_MS = 20000 };

static const char source[] =
    "#ifndef SCALE\n#define SCALE 1\n#endif\n"
    "#if SCALE == 7\n#error SCALE 7 is not supported\n#endif\n"
    "extern \"C\" __global__ void vadd(float* c, const float* a, const float* b, int n)\n"
    "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] + b[i] * SCALE; }\n";

static void *(*probe_tunable)(CUfunction, CUcontext, const void *, size_t);
static CUfunction (*probe_variant)(void *, const char *, int, int *);
static CUcontext g_ctx;
static CUdeviceptr g_a, g_b;

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* The program compiled with one option besides the architecture (or none):
 * its cubin, or its PTX for a virtual architecture (malloc'd), and size. */
static char *compile_for(const char *name, const char *arch, const char *option, size_t *size)
{
    nvrtcProgram prog;
    int ptx = !strncmp(arch, "compute_", 8);
    CHECK(nvrtcCreateProgram(&prog, source, name, 0, NULL, NULL));
    char arch_opt[64];
    snprintf(arch_opt, sizeof arch_opt, "--gpu-architecture=%s", arch);
    const char *opts[] = {arch_opt, option};
    CHECK(nvrtcCompileProgram(prog, option ? 2 : 1, opts));
    CHECK(ptx ? nvrtcGetPTXSize(prog, size) : nvrtcGetCUBINSize(prog, size));
    char *image = malloc(*size);
    EXPECT(image, "out of memory");
    CHECK(ptx ? nvrtcGetPTX(prog, image) : nvrtcGetCUBIN(prog, image));
    CHECK(nvrtcDestroyProgram(&prog));
    return image;
}

static char *compile(const char *name, const char *option, size_t *size)
{
    return compile_for(name, "sm_90", option, size);
}

/* The program's vadd loaded in g_ctx and its tunable (from the probe). */
static CUfunction load(const char *cubin, size_t size, void **tunable)
{
    CUmodule mod;
    CUfunction f;
    CHECK(cuModuleLoadData(&mod, cubin));
    CHECK(cuModuleGetFunction(&f, mod, "vadd"));
    *tunable = probe_tunable(f, g_ctx, cubin, size);
    EXPECT(*tunable, "no tunable: the image's NVRTC program was not found");
    return f;
}

/* c = a + b * scale from launching f (b[i] = 1, a[i] = i), checked. */
static void check_launch(CUfunction f, int scale, const char *what)
{
    CUdeviceptr dc;
    float c[N];
    int n = N;
    CHECK(cuMemAlloc(&dc, sizeof c));
    void *args[] = {&dc, &g_a, &g_b, &n};
    CHECK(cuLaunchKernel(f, N / 32, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
    CHECK(cuMemcpyDtoH(c, dc, sizeof c));
    CHECK(cuMemFree(dc));
    for (int i = 0; i < N; i++)
        EXPECT(c[i] == (float)i + (float)scale, "%s: c[%d] = %g, want %d", what, i, c[i],
               i + scale);
}

static CUfunction ask(void *t, const char *defines, int *state)
{
    return probe_variant(t, defines, WAIT_MS, state);
}

static void setup(void)
{
    probe_tunable = (void *(*)(CUfunction, CUcontext, const void *, size_t))dlsym(
        RTLD_DEFAULT, "aoe_cu_probe_tunable");
    probe_variant = (CUfunction(*)(void *, const char *, int, int *))dlsym(RTLD_DEFAULT,
                                                                           "aoe_cu_probe_variant");
    EXPECT(probe_tunable && probe_variant, "no probe: run under libaoe_hook_cudaprobe.so");
    CHECK(cuInit(0));
    CHECK(cuDevicePrimaryCtxRetain(&g_ctx, 0));
    CHECK(cuCtxSetCurrent(g_ctx));
    float a[N], b[N];
    for (int i = 0; i < N; i++) a[i] = (float)i, b[i] = 1.0f;
    CHECK(cuMemAlloc(&g_a, sizeof a));
    CHECK(cuMemAlloc(&g_b, sizeof b));
    CHECK(cuMemcpyHtoD(g_a, a, sizeof a));
    CHECK(cuMemcpyHtoD(g_b, b, sizeof b));
}

static int basic(void)
{
    size_t size;
    char *cubin = compile("vadd.cu", NULL, &size);
    void *t;
    CUfunction own = load(cubin, size, &t);
    check_launch(own, 1, "own function");

    /* Asked from a thread whose current context is another one: the variant
     * is loaded into the kernel's context, by another thread (the poller). */
    CUcontext other, cur;
    CHECK(cuCtxCreate(&other, NULL, 0, 0));
    int st;
    CUfunction v3 = ask(t, " -DSCALE=3", &st);
    EXPECT(v3 && st == VAR_READY && v3 != own, "SCALE=3: state %d", st);
    CHECK(cuCtxGetCurrent(&cur));
    EXPECT(cur == other, "the caller's current context changed");
    EXPECT(fakecuda_module_context(v3) == (void *)g_ctx, "variant loaded into context %p, not %p",
           fakecuda_module_context(v3), (void *)g_ctx);
    EXPECT(fakecuda_module_loader(v3) != (unsigned long)pthread_self(),
           "variant loaded on the asking thread");
    CHECK(cuCtxSetCurrent(g_ctx));
    CHECK(cuCtxDestroy(other));
    check_launch(v3, 3, "variant SCALE=3");
    check_launch(own, 1, "own function after the variant");
    EXPECT(ask(t, " -DSCALE=3", &st) == v3, "asked again: another function");
    printf("variant -DSCALE=3: c = a + 3b, built into the kernel's context by another thread; "
           "the program's own function still c = a + b\n");

    /* #error under #if SCALE == 7: failed once, NULL forever. */
    CUfunction v7 = ask(t, " -DSCALE=7", &st);
    EXPECT(!v7 && st == VAR_FAILED, "SCALE=7: %p, state %d", (void *)v7, st);
    for (int i = 0; i < 100; i++) EXPECT(!ask(t, " -DSCALE=7", &st) && st == VAR_FAILED, "again");
    printf("variant -DSCALE=7 (#error): failed, NULL on every ask\n");

    /* A program that passes -DSCALE=2 itself: a SCALE variant is refused,
     * another macro builds with the program's own options kept. */
    size_t size2;
    char *cubin2 = compile("vadd2.cu", "-DSCALE=2", &size2);
    void *t2;
    CUfunction own2 = load(cubin2, size2, &t2);
    EXPECT(!ask(t2, " -DSCALE=3", &st) && st == VAR_FAILED, "override: state %d", st);
    CUfunction o = ask(t2, " -DOTHER=5", &st);
    EXPECT(o && st == VAR_READY, "OTHER=5: state %d", st);
    check_launch(o, 2, "variant OTHER=5 of the -DSCALE=2 program");
    check_launch(own2, 2, "own function of the -DSCALE=2 program");
    EXPECT(!ask(t2, " -DOTHER=5 --use_fast_math", &st) && st == VAR_FAILED, "not a -D: %d", st);
    size_t size4; /* NVRTC's long spelling */
    char *cubin4 = compile("vadd4.cu", "--define-macro=SCALE=2", &size4);
    void *t4;
    load(cubin4, size4, &t4);
    EXPECT(!ask(t4, " -DSCALE=3", &st) && st == VAR_FAILED, "--define-macro override: %d", st);
    free(cubin4);
    printf("program with -DSCALE=2: -DSCALE=3 refused (also after --define-macro=SCALE=2), "
           "-DOTHER=5 built keeping SCALE=2, a non -D option refused\n");

    /* A program loaded as PTX (a virtual architecture: no cubin): its
     * variant is PTX too. */
    size_t size3;
    char *ptx = compile_for("vadd3.cu", "compute_90", NULL, &size3);
    void *t3;
    load(ptx, size3, &t3);
    CUfunction p4 = ask(t3, " -DSCALE=4", &st);
    EXPECT(p4 && st == VAR_READY, "PTX SCALE=4: state %d", st);
    check_launch(p4, 4, "PTX variant SCALE=4");
    printf("program loaded as PTX: its variant -DSCALE=4 built from PTX, c = a + 4b\n");
    free(ptx);

    /* The bound: 16 variants per kernel (2 so far), the 17th not recorded. */
    int made = 2;
    for (int k = 0; k < 20; k++) {
        char d[32];
        snprintf(d, sizeof d, " -DSCALE=%d", 10 + k);
        CUfunction f = ask(t, d, &st);
        if (st == -1) {
            EXPECT(!f, "no state but a function");
            break;
        }
        EXPECT(f && st == VAR_READY, "%s: state %d", d, st);
        made++;
    }
    EXPECT(made == 16, "%d variants made before the bound", made);
    /* asked again past the bound (every launch of that shape asks):
     * VARIANT_PAST_BOUND_ASKS times, so a test can count allocations */
    const char *asks = getenv("VARIANT_PAST_BOUND_ASKS");
    for (long k = asks ? atol(asks) : 1; k > 0; k--) {
        CUfunction f = ask(t, " -DSCALE=99", &st);
        EXPECT(!f && st == -1, "past the bound: state %d", st);
    }
    printf("bound: 16 variants of a kernel, the 17th not built\n");
    free(cubin);
    free(cubin2);
    return 0;
}

typedef struct {
    void *t;
    int index;
    pthread_barrier_t *start;
} race_arg;

/* Each thread asks for the 4 shared values, in its own order, then its own. */
static void *race_thread(void *p)
{
    race_arg *a = p;
    CHECK(cuCtxSetCurrent(g_ctx));
    pthread_barrier_wait(a->start);
    char d[64];
    int st;
    for (int k = 0; k < 4; k++) {
        int scale = 2 + (a->index + k) % 4;
        snprintf(d, sizeof d, " -DSCALE=%d", scale);
        CUfunction f = ask(a->t, d, &st);
        EXPECT(f && st == VAR_READY, "thread %d %s: state %d", a->index, d, st);
        check_launch(f, scale, d);
    }
    snprintf(d, sizeof d, " -DSCALE=6 -DTHREAD%d=1", a->index);
    CUfunction f = ask(a->t, d, &st);
    EXPECT(f && st == VAR_READY, "thread %d %s: state %d", a->index, d, st);
    check_launch(f, 6, d);
    return NULL;
}

static int race(int threads)
{
    EXPECT(threads > 0 && threads <= 12, "1..12 threads");
    size_t size;
    char *cubin = compile("vadd.cu", NULL, &size);
    void *t;
    load(cubin, size, &t);
    pthread_t th[12];
    race_arg args[12];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)threads);
    for (int i = 0; i < threads; i++) {
        args[i] = (race_arg){t, i, &start};
        EXPECT(!pthread_create(&th[i], NULL, race_thread, &args[i]), "pthread_create");
    }
    for (int i = 0; i < threads; i++) pthread_join(th[i], NULL);
    pthread_barrier_destroy(&start);
    printf("race: %d threads, %d variants, every launch correct\n", threads, 4 + threads);
    free(cubin);
    return 0;
}

/* Asks for variants and returns at once: the exit stops the builds. */
static int exit_early(void)
{
    size_t size;
    char *cubin = compile("vadd.cu", NULL, &size);
    void *t;
    load(cubin, size, &t);
    int st;
    for (int k = 0; k < 12; k++) {
        char d[32];
        snprintf(d, sizeof d, " -DSCALE=%d", 20 + k);
        probe_variant(t, d, 0, &st);
    }
    printf("exit: 12 variants asked for, exiting\n");
    free(cubin);
    return 0;
}

/* A child forked right after asking for a variant builds one of its own. */
static int fork_child(void)
{
    size_t size;
    char *cubin = compile("vadd.cu", NULL, &size);
    void *t;
    load(cubin, size, &t);
    int st;
    EXPECT(ask(t, " -DSCALE=4", &st), "SCALE=4: state %d", st);
    probe_variant(t, " -DSCALE=5", 0, &st);
    fflush(stdout);
    pid_t pid = fork();
    EXPECT(pid >= 0, "fork");
    if (pid == 0) {
        CUfunction f = ask(t, " -DSCALE=6", &st);
        EXPECT(f && st == VAR_READY, "child: SCALE=6: state %d", st);
        check_launch(f, 6, "child's variant");
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child failed (status %d)", status);
    EXPECT(ask(t, " -DSCALE=5", &st) && st == VAR_READY, "parent: SCALE=5: state %d", st);
    printf("fork: the child built a variant of its own, the parent its pending one\n");
    free(cubin);
    return 0;
}

/* A variant built (on the poller thread) while this thread captures a
 * stream in global mode, torch.cuda.graph's default: the build's module load
 * is a potentially unsafe call, which under the thread's default mode fails
 * and breaks the program's capture. */
static int capture(void)
{
    size_t size;
    char *cubin = compile("vadd.cu", NULL, &size);
    void *t;
    CUfunction own = load(cubin, size, &t);
    CUstream s;
    CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CHECK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    int st;
    CUfunction v5 = ask(t, " -DSCALE=5", &st);
    CUgraph g = NULL;
    CUresult end = cuStreamEndCapture(s, &g);
    EXPECT(end == CUDA_SUCCESS, "the program's capture ended with %d", (int)end);
    EXPECT(v5 && st == VAR_READY, "SCALE=5 during the capture: state %d", st);
    if (g) CHECK(cuGraphDestroy(g));
    CHECK(cuStreamDestroy(s));
    check_launch(v5, 5, "variant SCALE=5");
    check_launch(own, 1, "own function");
    printf("capture: a variant built during a global-mode capture, the capture intact\n");
    free(cubin);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "basic";
    if (!strcmp(mode, "capture")) return setup(), capture();
    setup();
    if (!strcmp(mode, "basic")) return basic();
    if (!strcmp(mode, "race")) return race(argc > 2 ? atoi(argv[2]) : 8);
    if (!strcmp(mode, "exit")) return exit_early();
    if (!strcmp(mode, "fork")) return fork_child();
    fprintf(stderr, "unknown mode %s\n", mode);
    return 2;
}
