/* The shim's runtime registry matching (preload/runtime_match.c) over a
 * list of descriptors shaped like OpenCL's and the planned CUDA ones: which
 * runtime the dlsym wrapper passes a symbol to (prefix, the upper-case rule,
 * the longest prefix when several match), lookup by name, and the objects
 * the call-site walk steps over. */
#include "preload/runtime.h"

#include <criterion/criterion.h>
#include <stddef.h>

static const aoe_runtime_prefix cl_prefixes[] = {{"cl", 1}, {NULL, 0}};
static const char *const cl_skip[] = {"libOpenCL.so", NULL};
static const aoe_runtime rt_cl = {.version = AOE_RUNTIME_VERSION,
                                  .name = "opencl",
                                  .prefixes = cl_prefixes,
                                  .skip_objects = cl_skip};

static const aoe_runtime_prefix cuda_prefixes[] = {{"cu", 1}, {"nvrtc", 1}, {NULL, 0}};
static const char *const cuda_skip[] = {"libcuda.so", "libnvrtc.so", NULL};
static const aoe_runtime rt_cuda = {.version = AOE_RUNTIME_VERSION,
                                    .name = "cuda",
                                    .prefixes = cuda_prefixes,
                                    .skip_objects = cuda_skip};

static const aoe_runtime_prefix blas_prefixes[] = {{"cublas", 1}, {NULL, 0}};
static const char *const blas_skip[] = {"libcublas.so", NULL};
static const aoe_runtime rt_blas = {.version = AOE_RUNTIME_VERSION,
                                    .name = "cublas",
                                    .prefixes = blas_prefixes,
                                    .skip_objects = blas_skip};

static const aoe_runtime_prefix lt_prefixes[] = {{"cublasLt", 1}, {NULL, 0}};
static const aoe_runtime rt_lt = {
    .version = AOE_RUNTIME_VERSION, .name = "cublaslt", .prefixes = lt_prefixes};

/* No upper-case rule, and a second runtime with the same prefix. */
static const aoe_runtime_prefix any_prefixes[] = {{"toy", 0}, {NULL, 0}};
static const aoe_runtime rt_any = {
    .version = AOE_RUNTIME_VERSION, .name = "toy", .prefixes = any_prefixes};
static const aoe_runtime rt_any2 = {
    .version = AOE_RUNTIME_VERSION, .name = "toy2", .prefixes = any_prefixes};

/* An empty prefix and no prefixes at all match nothing. */
static const aoe_runtime_prefix empty_prefixes[] = {{"", 0}, {NULL, 0}};
static const aoe_runtime rt_empty = {
    .version = AOE_RUNTIME_VERSION, .name = "empty", .prefixes = empty_prefixes};
static const aoe_runtime rt_none = {.version = AOE_RUNTIME_VERSION, .name = "none"};

static const aoe_runtime *const list[] = {&rt_empty, &rt_none, &rt_cl,   &rt_cuda, &rt_blas,
                                          &rt_lt,    &rt_any,  &rt_any2, NULL};
/* The same runtimes with the longer CUDA prefixes first. */
static const aoe_runtime *const reversed[] = {&rt_lt, &rt_blas, &rt_cuda, &rt_cl, NULL};
static const aoe_runtime *const nothing[] = {NULL};

Test(runtime_match, prefix_and_upper_case)
{
    cr_assert_eq(aoe_runtime_match_symbol(list, "clFoo"), &rt_cl);
    cr_assert_eq(aoe_runtime_match_symbol(list, "clEnqueueNDRangeKernel"), &rt_cl);
    cr_assert_null(aoe_runtime_match_symbol(list, "clamp"));
    cr_assert_null(aoe_runtime_match_symbol(list, "clock_gettime"));
    cr_assert_null(aoe_runtime_match_symbol(list, "close"));
    cr_assert_null(aoe_runtime_match_symbol(list, "cl"));
    cr_assert_null(aoe_runtime_match_symbol(list, "c"));
    cr_assert_null(aoe_runtime_match_symbol(list, ""));
    cr_assert_null(aoe_runtime_match_symbol(list, NULL));
    cr_assert_null(aoe_runtime_match_symbol(list, "CLFoo"));
    cr_assert_null(aoe_runtime_match_symbol(list, "cl_Foo"));
    cr_assert_eq(aoe_runtime_match_symbol(list, "cuLaunchKernel"), &rt_cuda);
    cr_assert_eq(aoe_runtime_match_symbol(list, "nvrtcCompileProgram"), &rt_cuda);
    cr_assert_null(aoe_runtime_match_symbol(list, "curand"));
    cr_assert_null(aoe_runtime_match_symbol(list, "nvrtc"));
}

Test(runtime_match, longest_prefix_wins)
{
    const aoe_runtime *const *lists[] = {list, reversed};
    for (size_t i = 0; i < 2; i++) {
        cr_assert_eq(aoe_runtime_match_symbol(lists[i], "cublasLtMatmul"), &rt_lt, "list %zu", i);
        cr_assert_eq(aoe_runtime_match_symbol(lists[i], "cublasSgemm"), &rt_blas, "list %zu", i);
        cr_assert_eq(aoe_runtime_match_symbol(lists[i], "cuMemAlloc"), &rt_cuda, "list %zu", i);
        /* "cublasLt" then a lower-case letter: only "cublas" + 'L' matches. */
        cr_assert_eq(aoe_runtime_match_symbol(lists[i], "cublasLtx"), &rt_blas, "list %zu", i);
        cr_assert_eq(aoe_runtime_match_symbol(lists[i], "clFinish"), &rt_cl, "list %zu", i);
    }
}

Test(runtime_match, rule_off_and_ties)
{
    /* Without the upper-case rule any continuation matches, the bare prefix too. */
    cr_assert_eq(aoe_runtime_match_symbol(list, "toy_internal"), &rt_any);
    cr_assert_eq(aoe_runtime_match_symbol(list, "toy"), &rt_any);
    /* The same prefix in two runtimes: the earlier in the list. */
    cr_assert_eq(aoe_runtime_match_symbol(list, "toyLaunch"), &rt_any);
    cr_assert_null(aoe_runtime_match_symbol(list, "to"));
    cr_assert_null(aoe_runtime_match_symbol(list, "malloc"));
    cr_assert_null(aoe_runtime_match_symbol(nothing, "clFoo"));
}

Test(runtime_match, by_name)
{
    cr_assert_eq(aoe_runtime_match_name(list, "opencl"), &rt_cl);
    cr_assert_eq(aoe_runtime_match_name(list, "cublaslt"), &rt_lt);
    cr_assert_null(aoe_runtime_match_name(list, "OpenCL"));
    cr_assert_null(aoe_runtime_match_name(list, "openc"));
    cr_assert_null(aoe_runtime_match_name(list, ""));
    cr_assert_null(aoe_runtime_match_name(list, NULL));
    cr_assert_null(aoe_runtime_match_name(nothing, "opencl"));
}

Test(runtime_match, skipped_objects)
{
    cr_assert(aoe_runtime_match_object(list, "/usr/lib/x86_64-linux-gnu/libOpenCL.so.1"));
    cr_assert(aoe_runtime_match_object(list, "libOpenCL.so"));
    cr_assert(aoe_runtime_match_object(list, "/opt/cuda/lib64/libcublas.so.12"));
    cr_assert(aoe_runtime_match_object(list, "/usr/lib/libnvrtc.so.12.4"));
    /* A base-name prefix, not a substring of the path or another library. */
    cr_assert_not(aoe_runtime_match_object(list, "/opt/cuda/lib64/libcublasLt.so.12"));
    cr_assert_not(aoe_runtime_match_object(list, "/home/libOpenCL.so.1/prog"));
    cr_assert_not(aoe_runtime_match_object(list, "/usr/lib/libOpenCLfoo.so"));
    cr_assert_not(aoe_runtime_match_object(list, "/usr/bin/python3"));
    cr_assert_not(aoe_runtime_match_object(list, ""));
    cr_assert_not(aoe_runtime_match_object(list, NULL));
    cr_assert_not(aoe_runtime_match_object(nothing, "libOpenCL.so.1"));
}
