/* An NVRTC program as CuPy, PyTorch's jiterator and nvFuser use it: a
 * tiled kernel with #ifndef defaults and a header, -D options, name
 * expressions; a source with #error; an unknown architecture; a virtual
 * one. Prints every result code, log, output size and (the fakes' text
 * images) the image itself, so runs with and without the shim compare line
 * by line (tests/integration/shim_nvrtc.sh). Built twice: nvrtc_linked
 * (-lnvrtc) and nvrtc_dlopen (dlopen("libnvrtc.so.13", RTLD_LOCAL) +
 * dlsym, as PyTorch's lazy stub), plus libnvrtc_module.so (-lnvrtc inside
 * a module that Python loads RTLD_LOCAL, as CuPy's cython bindings: its
 * entry point is nvrtc_module_main). Under the test build of the shim
 * (libaoe_hook_nvrtcprobe.so) it also asks, for every output, which
 * tracked program made it and prints the answer.
 *   nvrtc_client                          the programs above
 *   nvrtc_client --threads T --programs M T threads compiling M programs each
 *   nvrtc_client --forks N                N forked children compiling one program
 *                                         each while 4 threads compile */
#include <nvrtc.h>

#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NV_FUNCS(X)                                                                                \
    X(nvrtcGetErrorString)                                                                         \
    X(nvrtcVersion)                                                                                \
    X(nvrtcCreateProgram)                                                                          \
    X(nvrtcDestroyProgram)                                                                         \
    X(nvrtcAddNameExpression)                                                                      \
    X(nvrtcCompileProgram)                                                                         \
    X(nvrtcGetProgramLogSize)                                                                      \
    X(nvrtcGetProgramLog)                                                                          \
    X(nvrtcGetPTXSize)                                                                             \
    X(nvrtcGetPTX)                                                                                 \
    X(nvrtcGetCUBINSize)                                                                           \
    X(nvrtcGetCUBIN)                                                                               \
    X(nvrtcGetLoweredName)

#define NV_PTR(fn) __typeof__(&fn) fn;
static struct {
    NV_FUNCS(NV_PTR)
} N;
#undef NV_PTR

static void load(void)
{
#ifdef NVRTC_LINKED
#define NV_SET(fn) N.fn = &fn;
    NV_FUNCS(NV_SET)
#undef NV_SET
#else
    void *h = dlopen("libnvrtc.so.13", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "nvrtc_client: %s\n", dlerror());
        exit(2);
    }
#define NV_GET(fn)                                                                                 \
    if (!(*(void **)&N.fn = dlsym(h, #fn))) {                                                      \
        fprintf(stderr, "nvrtc_client: no %s\n", #fn);                                             \
        exit(2);                                                                                   \
    }
    NV_FUNCS(NV_GET)
#undef NV_GET
#endif
}

/* The test shim's lookup (tests/fakenvrtc/nvrtc_probe.c), or NULL. */
typedef int (*probe_fn)(const void *image, size_t size, char *out, size_t outlen);
static probe_fn g_probe;
typedef const void *(*hold_fn)(const void *image, size_t size);
typedef void (*name_release_fn)(const void *held, char *out, size_t len);
static hold_fn g_hold;
static name_release_fn g_name_release;

static uint64_t fnv1a(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* Under the probe shim: which tracked program made the output. */
static void probe(const char *what, const char *img, size_t size)
{
    char desc[4096];
    if (!g_probe) return;
    if (g_probe(img, size, desc, sizeof desc))
        printf("tracked %s: %s\n", what, desc);
    else
        printf("untracked %s\n", what);
}

/* Prints an output: a fake's text image as is, a real one as size and hash. */
static void show_output(const char *what, const char *img, size_t size)
{
    if (size > 7 && !strncmp(img, "AOEFAKE", 7))
        printf("%s:\n%s", what, img);
    else
        printf("%s: %zu bytes, fnv %016" PRIx64 "\n", what, size, fnv1a(img, size));
    probe(what, img, size);
}

static void compile(const char *label, const char *src, int n_headers, const char *const *headers,
                    const char *const *names, int n_opts, const char *const *opts, int n_exprs,
                    const char *const *exprs)
{
    nvrtcProgram p;
    nvrtcResult r = N.nvrtcCreateProgram(&p, src, label, n_headers, headers, names);
    printf("== %s\ncreate: %s\n", label, N.nvrtcGetErrorString(r));
    if (r) return;
    for (int i = 0; i < n_exprs; i++)
        printf("name expression %s: %s\n", exprs[i],
               N.nvrtcGetErrorString(N.nvrtcAddNameExpression(p, exprs[i])));
    r = N.nvrtcCompileProgram(p, n_opts, opts);
    printf("compile: %s\n", N.nvrtcGetErrorString(r));
    size_t n = 0;
    N.nvrtcGetProgramLogSize(p, &n);
    char *buf = malloc(n + 1);
    N.nvrtcGetProgramLog(p, buf);
    printf("log (%zu bytes): %s\n", n, buf);
    free(buf);
    size_t ptx = 0, cubin = 0;
    printf("ptx size: %s", N.nvrtcGetErrorString(N.nvrtcGetPTXSize(p, &ptx)));
    printf(" %zu, cubin size: %s", ptx, N.nvrtcGetErrorString(N.nvrtcGetCUBINSize(p, &cubin)));
    printf(" %zu\n", cubin);
    /* kept past the program's end: a module is loaded from them after it */
    char *ptx_img = NULL, *cubin_img = NULL;
    if (!r && ptx > 1) {
        ptx_img = malloc(ptx);
        r = N.nvrtcGetPTX(p, ptx_img);
        printf("get ptx: %s\n", N.nvrtcGetErrorString(r));
        if (!r) show_output("ptx", ptx_img, ptx);
    }
    if (cubin > 0) {
        cubin_img = malloc(cubin);
        r = N.nvrtcGetCUBIN(p, cubin_img);
        printf("get cubin: %s\n", N.nvrtcGetErrorString(r));
        if (!r) show_output("cubin", cubin_img, cubin);
    }
    for (int i = 0; i < n_exprs; i++) {
        const char *lowered = NULL;
        r = N.nvrtcGetLoweredName(p, exprs[i], &lowered);
        printf("lowered %s: %s %s\n", exprs[i], N.nvrtcGetErrorString(r), r ? "-" : lowered);
    }
    printf("destroy: %s\n", N.nvrtcGetErrorString(N.nvrtcDestroyProgram(&p)));
    if (ptx_img) probe("ptx after destroy", ptx_img, ptx);
    if (cubin_img) probe("cubin after destroy", cubin_img, cubin);
    free(ptx_img);
    free(cubin_img);
}

/* One program compiled twice with other -D values (NVRTC allows it): each
 * output belongs to its own compilation. */
static void recompile(void)
{
    nvrtcProgram p;
    const char *src = "extern \"C\" __global__ void k(int *x) { x[0] = X; }\n";
    printf("== recompile.cu\ncreate: %s\n",
           N.nvrtcGetErrorString(N.nvrtcCreateProgram(&p, src, "recompile.cu", 0, NULL, NULL)));
    char *img[2] = {NULL, NULL};
    size_t size[2] = {0, 0};
    for (int i = 0; i < 2; i++) {
        const char *opts[] = {i ? "-DX=2" : "-DX=1", "-arch=sm_90"};
        char what[16];
        printf("compile %d: %s\n", i + 1, N.nvrtcGetErrorString(N.nvrtcCompileProgram(p, 2, opts)));
        if (N.nvrtcGetCUBINSize(p, &size[i]) || !size[i] || !(img[i] = malloc(size[i])) ||
            N.nvrtcGetCUBIN(p, img[i]))
            continue;
        snprintf(what, sizeof what, "cubin %d", i + 1);
        show_output(what, img[i], size[i]);
    }
    printf("name expression after compiling: %s\n",
           N.nvrtcGetErrorString(N.nvrtcAddNameExpression(p, "k")));
    printf("destroy: %s\n", N.nvrtcGetErrorString(N.nvrtcDestroyProgram(&p)));
    for (int i = 0; i < 2; i++) {
        char what[32];
        snprintf(what, sizeof what, "cubin %d after destroy", i + 1);
        if (img[i]) probe(what, img[i], size[i]);
        free(img[i]);
    }
}

static const char tile_h[] =
    "#ifndef TILE_K\n#define TILE_K 4\n#endif\n"
    "extern \"C\" { __global__ void tile_fill(float *p, int n) { if (n) p[0] = TILE_K; } }\n";
static const char gemm_src[] =
    "#include \"tile.h\"\n"
    "#ifndef TILE_M\n#define TILE_M 16\n#endif\n"
    "#ifndef TILE_N\n#define TILE_N 8\n#endif\n"
    "// __global__ void commented_out(void) {}\n"
    "extern \"C\" __global__ void __launch_bounds__(256)\n"
    "gemm_tiled(const float *__restrict__ a, const float *b, float *c, int n)\n"
    "{\n    if (n > TILE_M * TILE_N * BLOCK) c[0] = a[0] * b[0];\n}\n"
    "__global__ void scale(float *x, float s, unsigned n) { if (n) x[0] *= s; }\n";

static void programs(void)
{
    int major = 0, minor = 0;
    N.nvrtcVersion(&major, &minor);
    printf("nvrtc %d.%d\n", major, minor);
    const char *hdr[] = {tile_h}, *inc[] = {"tile.h"};
    const char *opts[] = {
        "-DBLOCK=128", "--gpu-architecture=sm_90", "-std=c++17", "-I/nonexistent/include", "-D",
        "TILE_N=32",   "-default-device"};
    const char *exprs[] = {"gemm_tiled", "&scale"};
    compile("tiled_gemm.cu", gemm_src, 1, hdr, inc, 7, opts, 2, exprs);
    const char *virt[] = {"-arch=compute_90", "-DBLOCK=64"};
    compile("tiled_gemm_ptx.cu", gemm_src, 1, hdr, inc, 2, virt, 0, NULL);
    compile("broken.cu", "#ifndef TILE_M\n#error TILE_M must be set\n#endif\n", 0, NULL, NULL, 0,
            NULL, 0, NULL);
    const char *bad[] = {"-arch=sm_10"};
    compile("bad_arch.cu", "extern \"C\" __global__ void k(void) {}\n", 0, NULL, NULL, 1, bad, 0,
            NULL);
    recompile();
}

/* ---- many threads compiling at once ---- */

static int g_programs;
static _Atomic int g_ok, g_tracked, g_wrong;
/* Thread 0's first output, asked about again at the end: the shim keeps a
 * bounded number of programs, the oldest dropped first. */
static char *g_first;
static size_t g_first_size;
/* ... and its program, held (probe shim) while the shim forgets it. */
static const void *g_held;
/* Thread 0's first program is the oldest: the others start once it is
 * tracked (else on a busy machine thread 0 may start after the others made
 * more programs than the shim drops, and its first would still be there). */
static _Atomic int g_first_done;

static void *compile_many(void *arg)
{
    int t = (int)(intptr_t)arg;
    while (t && !g_first_done) sched_yield();
    for (int i = 0; i < g_programs; i++, g_first_done = 1) {
        char src[256], name[64], def[64], want[96];
        int seed = t * g_programs + i;
        snprintf(src, sizeof src,
                 "#ifndef SEED\n#define SEED %d\n#endif\nextern \"C\" __global__ void k%d(int *x) "
                 "{ x[0] = SEED; }\n",
                 seed, seed);
        snprintf(name, sizeof name, "p%d.cu", seed);
        snprintf(def, sizeof def, "-DTHREAD=%d", t);
        const char *opts[] = {"-arch=sm_90", def};
        nvrtcProgram p;
        if (N.nvrtcCreateProgram(&p, src, name, 0, NULL, NULL) ||
            N.nvrtcCompileProgram(p, 2, opts)) {
            g_wrong++;
            continue;
        }
        size_t n = 0;
        char *img = NULL;
        if (!N.nvrtcGetCUBINSize(p, &n) && n && (img = malloc(n)) && !N.nvrtcGetCUBIN(p, img)) {
            snprintf(want, sizeof want, "define SEED %d\n", seed);
            /* a real cubin holds no such text: any non-empty one counts */
            if (strncmp(img, "AOEFAKE", 7) || strstr(img, want))
                g_ok++;
            else
                g_wrong++;
            char desc[4096];
            snprintf(want, sizeof want, "name=%s ", name);
            if (g_probe && g_probe(img, n, desc, sizeof desc) && !strncmp(desc, want, strlen(want)))
                g_tracked++;
            if (t == 0 && i == 0 && (g_first = malloc(n))) {
                memcpy(g_first, img, n);
                g_first_size = n;
                if (g_hold) g_held = g_hold(img, n);
            }
        } else {
            g_wrong++;
        }
        free(img);
        N.nvrtcDestroyProgram(&p);
    }
    g_first_done = 1; /* also with no program at all */
    return NULL;
}

/* ---- forks while threads compile ---- */

/* One program compiled: 1 when it compiled and (under the probe shim) the
 * lookup finds its cubin under its name. */
static int compile_one(int seed)
{
    char src[128], name[64], want[80], desc[4096];
    snprintf(src, sizeof src, "extern \"C\" __global__ void k%d(int *x) { x[0] = %d; }\n", seed,
             seed);
    snprintf(name, sizeof name, "f%d.cu", seed);
    const char *opts[] = {"-arch=sm_90"};
    nvrtcProgram p;
    if (N.nvrtcCreateProgram(&p, src, name, 0, NULL, NULL)) return 0;
    size_t n = 0;
    char *img = NULL;
    int ok = !N.nvrtcCompileProgram(p, 1, opts) && !N.nvrtcGetCUBINSize(p, &n) && n &&
             (img = malloc(n)) && !N.nvrtcGetCUBIN(p, img);
    snprintf(want, sizeof want, "name=%s ", name);
    if (ok && g_probe)
        ok = g_probe(img, n, desc, sizeof desc) && !strncmp(desc, want, strlen(want));
    free(img);
    N.nvrtcDestroyProgram(&p);
    return ok;
}

static _Atomic int g_stop;

static void *compile_until_stopped(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int i = 0; !g_stop; i++) compile_one(1000000 * (t + 1) + i % 100000);
    return NULL;
}

/* A child forked while other threads are inside NVRTC calls (the shim's
 * lock possibly held) compiles and looks up a program of its own. */
static int forks(int n)
{
    pthread_t th[4];
    for (int t = 0; t < 4; t++)
        pthread_create(&th[t], NULL, compile_until_stopped, (void *)(intptr_t)t);
    int ok = 0;
    for (int i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            alarm(5); /* a deadlock fails instead of hanging */
            _exit(compile_one(i) ? 0 : 1);
        }
        int st = 0;
        if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0)
            ok++;
        else
            fprintf(stderr, "nvrtc_client: child %d: status %#x\n", i, st);
    }
    g_stop = 1;
    for (int t = 0; t < 4; t++) pthread_join(th[t], NULL);
    printf("forks=%d ok=%d\n", n, ok);
    return ok == n ? 0 : 1;
}

#ifdef NVRTC_MODULE
#define main nvrtc_module_main
__attribute__((visibility("default"))) int main(int argc, char **argv);
#endif

int main(int argc, char **argv)
{
    load();
    *(void **)&g_probe = dlsym(RTLD_DEFAULT, "aoe_nvrtc_probe");
    *(void **)&g_hold = dlsym(RTLD_DEFAULT, "aoe_nvrtc_probe_hold");
    *(void **)&g_name_release = dlsym(RTLD_DEFAULT, "aoe_nvrtc_probe_name_release");
    if (!g_name_release) g_hold = NULL;
    if (argc == 5 && !strcmp(argv[1], "--threads") && !strcmp(argv[3], "--programs")) {
        int threads = atoi(argv[2]);
        g_programs = atoi(argv[4]);
        if (threads < 1 || threads > 64 || g_programs < 1) return 2;
        pthread_t th[64];
        for (int t = 0; t < threads; t++)
            pthread_create(&th[t], NULL, compile_many, (void *)(intptr_t)t);
        for (int t = 0; t < threads; t++) pthread_join(th[t], NULL);
        char desc[4096];
        int first = g_probe && g_first && g_probe(g_first, g_first_size, desc, sizeof desc);
        printf("threads=%d programs=%d ok=%d wrong=%d tracked=%d first=%s\n", threads, g_programs,
               g_ok, g_wrong, g_tracked, first ? "tracked" : "untracked");
        free(g_first);
        if (g_held) {
            g_name_release(g_held, desc, sizeof desc);
            printf("held=%s\n", desc);
        }
        return g_wrong ? 1 : 0;
    }
    if (argc == 3 && !strcmp(argv[1], "--forks")) return forks(atoi(argv[2]));
    if (argc != 1) {
        fprintf(stderr, "usage: nvrtc_client [--threads T --programs M | --forks N]\n");
        return 2;
    }
    programs();
    fflush(stdout); /* a module's caller may not exit through stdio */
    return 0;
}
