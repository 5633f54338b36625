/* The fake NVRTC's compiler (tests/fakenvrtc/fn_compile.c, no CUDA header):
 * options, #ifndef defaults, #error, headers, the __global__ functions and
 * their lowered names, the image text. */
#include "fn_compile.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static fn_output out;
static char log_[4096];

static int compile(const char *src, int n, const char *const *opts)
{
    return fn_compile("t.cu", src, NULL, n, opts, &out, log_, sizeof log_);
}

Test(fakenvrtc_compile, defaults_and_options)
{
    const char *src =
        "#ifndef TILE\n#define TILE 16\n#endif\n"
        "#ifndef GUARD_H\n#define GUARD_H\n#endif\n" /* a guard: no value, no default */
        "#ifndef WIDE\n# define WIDE -3u\n#endif\n"
        "#ifndef NAMED\n#define NAMED float\n#endif\n" /* not an integer: ignored */
        "extern \"C\" __global__ void k(int *x) {}\n";
    const char *opts[] = {"-DBLOCK=128",         "-D",          "TILE=32",
                          "--define-macro=FLAG", "-arch=sm_90", "-std=c++17"};
    cr_assert_eq(compile(src, 6, opts), FN_SUCCESS, "%s", log_);
    cr_assert_str_eq(out.arch, "sm_90");
    cr_assert_eq(out.n_defines, 4);
    cr_assert_str_eq(out.defines[0].name, "BLOCK");
    cr_assert_str_eq(out.defines[0].value, "128");
    cr_assert_str_eq(out.defines[1].name, "TILE"); /* the -D value wins over the default */
    cr_assert_str_eq(out.defines[1].value, "32");
    cr_assert_str_eq(out.defines[2].name, "FLAG");
    cr_assert_str_eq(out.defines[2].value, "1");
    cr_assert_str_eq(out.defines[3].name, "WIDE");
    cr_assert_str_eq(out.defines[3].value, "-3u");
    char *img = fn_image(&out, 0);
    char want[512];
    snprintf(want, sizeof want,
             "AOEFAKECUBIN 1\narch sm_90\ndefine BLOCK 128\ndefine TILE 32\ndefine FLAG 1\ndefine "
             "WIDE -3u\n"
             "kernel k\nhash %016llx\n",
             (unsigned long long)fn_fnv1a(src, strlen(src)));
    cr_assert_str_eq(img, want);
    free(img);
    img = fn_image(&out, 1);
    cr_assert(!strncmp(img, "AOEFAKEPTX 1\narch sm_90\n", 24));
    free(img);
}

Test(fakenvrtc_compile, default_arch_and_bad_options)
{
    cr_assert_eq(compile("", 0, NULL), FN_SUCCESS);
    cr_assert_str_eq(out.arch, "compute_75");
    const char *bad_arch[] = {"--gpu-architecture=sm_10"};
    cr_assert_eq(compile("", 1, bad_arch), FN_INVALID_OPTION);
    cr_assert_str_eq(log_, "nvrtc: error: invalid value for --gpu-architecture (-arch)\n");
    const char *bad_macro[] = {"-D9X=1"};
    cr_assert_eq(compile("", 1, bad_macro), FN_INVALID_OPTION);
    int real = -1;
    cr_assert(fn_arch_supported("sm_90a", &real) && real == 1);
    cr_assert(fn_arch_supported("compute_120f", &real) && real == 0);
    cr_assert(!fn_arch_supported("sm_91", NULL) && !fn_arch_supported("gfx90a", NULL));
}

Test(fakenvrtc_compile, error_directive)
{
    cr_assert_eq(compile("int x;\n  #error TILE must be set\n", 0, NULL), FN_COMPILATION);
    cr_assert_str_eq(
        log_,
        "t.cu(2): catastrophic error: #error directive: TILE must be set\n"
        "  #error TILE must be set\n   ^\n\n"
        "1 catastrophic error detected in the compilation of \"t.cu\".\nCompilation terminated.\n");
}

/* #error under #ifdef / #ifndef / #if NAME == INT fails only when its
 * branch is taken; under any other #if it always fails. */
Test(fakenvrtc_compile, error_directive_conditions)
{
    const char *src = "#ifndef SCALE\n#define SCALE 1\n#endif\n"
                      "#if SCALE == 7\n#error SCALE 7 is not supported\n#endif\n"
                      "#ifdef NOPE\n#error NOPE\n#else\n#ifndef OK\n#error OK must be set\n#endif\n"
                      "#endif\n";
    const char *ok[] = {"-DOK"};
    cr_assert_eq(compile(src, 1, ok), FN_SUCCESS, "%s", log_);
    cr_assert_eq(compile(src, 0, NULL), FN_COMPILATION);
    cr_assert(strstr(log_, "#error directive: OK must be set"), "%s", log_);
    const char *seven[] = {"-DOK", "-DSCALE=7"};
    cr_assert_eq(compile(src, 2, seven), FN_COMPILATION);
    cr_assert(!strncmp(log_, "t.cu(5): catastrophic error: #error directive: SCALE 7", 54), "%s",
              log_);
    const char *nope[] = {"-DOK", "-DNOPE"};
    cr_assert_eq(compile(src, 2, nope), FN_COMPILATION);
    cr_assert_eq(compile("#if defined(X) && X > 2\n#error always\n#endif\n", 0, NULL),
                 FN_COMPILATION);
}

Test(fakenvrtc_compile, kernels_and_lowered_names)
{
    const char *src =
        "// __global__ void commented(void) {}\n"
        "/* __global__ void also_commented() {} */\n"
        "extern \"C\" __global__ void __launch_bounds__(256, 2) a(const float *__restrict__ x) {}\n"
        "extern \"C\" {\n__global__ void b(void) {}\n__global__ void c(int n) { if (n) {} }\n}\n"
        "__global__ void d(float *x, float s, unsigned n, const double *y, size_t m, long long q) "
        "{}\n"
        "__global__ void e() {}\n"
        "static const char *s = \"__global__ void f()\";\n"
        "__global__ void g(float4 v, unsigned char **pp) {}\n";
    cr_assert_eq(compile(src, 0, NULL), FN_SUCCESS, "%s", log_);
    const char *want[][2] = {{"a", "a"},     {"b", "b"},
                             {"c", "c"},     {"d", "_Z1dPffjPKdmx"},
                             {"e", "_Z1ev"}, {"g", "_Z1g6float4PPh"}};
    cr_assert_eq(out.n_kernels, 6);
    for (int i = 0; i < 6; i++) {
        cr_assert_str_eq(out.kernels[i].name, want[i][0]);
        cr_assert_str_eq(out.kernels[i].lowered, want[i][1]);
    }
}

Test(fakenvrtc_compile, headers_included_once)
{
    const char *contents[] = {
        "#ifndef HK\n#define HK 7\n#endif\nextern \"C\" __global__ void from_header() {}\n",
        "#error never included\n"};
    const char *names[] = {"h.cuh", "other.cuh"};
    fn_headers h = {2, contents, names};
    int rc = fn_compile("m.cu", "#include \"h.cuh\"\nextern \"C\" __global__ void mine() {}\n", &h,
                        0, NULL, &out, log_, sizeof log_);
    cr_assert_eq(rc, FN_SUCCESS, "%s", log_);
    cr_assert_eq(out.n_kernels, 2);
    cr_assert_str_eq(out.kernels[0].name, "from_header");
    cr_assert_str_eq(out.kernels[1].name, "mine");
    cr_assert_eq(out.n_defines, 1);
    cr_assert_str_eq(out.defines[0].name, "HK");
    h.names = (const char *[]){"h.cuh", "h2.cuh"};
    rc = fn_compile("m.cu", "#include <h2.cuh>\n", &h, 0, NULL, &out, log_, sizeof log_);
    cr_assert_eq(rc, FN_COMPILATION);
    cr_assert(!strncmp(log_, "h2.cuh(1): catastrophic error: #error directive: never included", 63),
              "%s", log_);
}
