/* The CUDA kernel executor's program options and runtime_extra
 * (tuner/exec_cuda_program.h; CUDA builds only: elsewhere there is no cuda
 * executor, which is checked instead). */
#include "tuner/exec.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#ifdef AOE_HAVE_CUDA
#include "tuner/exec_cuda_program.h"

static char *list[] = {"-arch", "sm_80", "--std=c++17", "-DFOO=a b",
                       "--gpu-architecture=compute_75"};

static aoe_job job_with(char **opts, uint32_t n, const char *joined)
{
    aoe_job j;
    memset(&j, 0, sizeof j);
    j.option_list = opts;
    j.noptions = n;
    j.options = (char *)joined;
    return j;
}

static void expect(char **got, int n, const char *const *want, int m)
{
    cr_assert_eq(n, m);
    for (int i = 0; i < m; i++) cr_assert_str_eq(got[i], want[i]);
    cr_assert_null(got[m]);
}

/* The job's entries as they are (an entry with a space stays one), every
 * -arch form dropped, the device's architecture, then the variant's -D's. */
Test(exec_cuda, options_drop_arch_add_device)
{
    const char *joined = "-arch sm_80 --std=c++17 -DFOO=a b --gpu-architecture=compute_75";
    aoe_job j = job_with(list, 5, joined);
    char **o, variant[256];
    snprintf(variant, sizeof variant, "%s -DTS=32 -DWPT=4", joined);
    int n = aoe_cuda_options(&j, variant, 9, 0, &o);
    const char *want[] = {"--std=c++17", "-DFOO=a b", "--gpu-architecture=sm_90", "-DTS=32",
                          "-DWPT=4"};
    expect(o, n, want, 5);
    aoe_cuda_options_free(o);
    n = aoe_cuda_options(&j, joined, 8, 6, &o); /* the job's own */
    const char *want2[] = {"--std=c++17", "-DFOO=a b", "--gpu-architecture=sm_86"};
    expect(o, n, want2, 3);
    aoe_cuda_options_free(o);
}

/* sm_90a asked for on a 9.0 device keeps its suffix; on another it is dropped. */
Test(exec_cuda, arch_suffix_kept_on_its_device)
{
    char *a[] = {"-arch=sm_90a"};
    aoe_job j = job_with(a, 1, "-arch=sm_90a");
    char **o;
    int n = aoe_cuda_options(&j, "-arch=sm_90a -DX=1", 9, 0, &o);
    const char *want[] = {"--gpu-architecture=sm_90a", "-DX=1"};
    expect(o, n, want, 2);
    aoe_cuda_options_free(o);
    n = aoe_cuda_options(&j, "-arch=sm_90a", 10, 0, &o);
    const char *want2[] = {"--gpu-architecture=sm_100"};
    expect(o, n, want2, 1);
    aoe_cuda_options_free(o);
}

/* Without an option list the joined options are split at white space. */
Test(exec_cuda, options_without_list)
{
    aoe_job j = job_with(NULL, 0, "-O3 -arch=sm_75");
    char **o;
    int n = aoe_cuda_options(&j, "-O3 -arch=sm_75 -DN=2", 7, 5, &o);
    const char *want[] = {"-O3", "--gpu-architecture=sm_75", "-DN=2"};
    expect(o, n, want, 3);
    aoe_cuda_options_free(o);
}

Test(exec_cuda, runtime_extra)
{
    aoe_cuda_extra e;
    char err[256];
    cr_assert_eq(
        aoe_cuda_extra_parse("{\"headers\": [{\"name\": \"h.cuh\", \"source\": \"int x;\"}],"
                             " \"image\": \"ptx\", \"nvrtc_library\": \"/x/libnvrtc.so.13\"}",
                             &e, err, sizeof err),
        0, "%s", err);
    cr_assert_eq(e.n_headers, 1);
    cr_assert_str_eq(e.header_names[0], "h.cuh");
    cr_assert_str_eq(e.header_sources[0], "int x;");
    cr_assert_eq(e.want_ptx, 1);
    cr_assert_str_eq(e.nvrtc_library, "/x/libnvrtc.so.13");
    aoe_cuda_extra_free(&e);
    cr_assert_eq(aoe_cuda_extra_parse(NULL, &e, err, sizeof err), 0);
    cr_assert_eq(e.want_ptx, 0);
    cr_assert_eq(aoe_cuda_extra_parse("{\"image\": \"fatbin\"}", &e, err, sizeof err), -1);
    cr_assert(strstr(err, "runtime_extra.image"), "%s", err);
    cr_assert_eq(aoe_cuda_extra_parse("{\"headers\": [{\"name\": 1}]}", &e, err, sizeof err), -1);
    cr_assert(strstr(err, "runtime_extra.headers[0]"), "%s", err);
}

Test(exec_cuda, registered)
{
    const aoe_exec_ops *ops = aoe_exec_find("cuda");
    cr_assert_not_null(ops);
    cr_assert_eq(ops->version, AOE_EXEC_OPS_VERSION);
    cr_assert_not_null(ops->lost);
}

/* An image or a sampler in a CUDA job: refused at open, naming the
 * argument, before any library is loaded. */
Test(exec_cuda, refuses_images_and_samplers)
{
    const aoe_exec_ops *ops = aoe_exec_find("cuda");
    aoe_job_arg args[2] = {
        {.kind = AOE_JOB_ARG_BUFFER, .size = 4},
        {.kind = AOE_JOB_ARG_IMAGE, .size = 4, .image = {0x10F1, 0x10B5, 0x10D2, 4, 1, 1, 0, 0}}};
    aoe_job j;
    memset(&j, 0, sizeof j);
    j.runtime = "cuda";
    j.op = AOE_OP_KERNEL;
    j.launch_kind = AOE_LAUNCH_GRID_BLOCK;
    j.source = "extern \"C\" __global__ void k() {}";
    j.work_dim = 1;
    j.nargs = 2;
    j.args = args;
    aoe_exec *ex = NULL;
    char detail[256] = "";
    cr_expect_eq(ops->open(&j, &ex, detail, sizeof detail), AOE_EXEC_BAD_JOB);
    cr_expect_null(ex);
    cr_expect_str_eq(detail, "cuda: args[1] is an OpenCL image; a CUDA kernel takes none");
    args[1] = (aoe_job_arg){.kind = AOE_JOB_ARG_SAMPLER};
    cr_expect_eq(ops->open(&j, &ex, detail, sizeof detail), AOE_EXEC_BAD_JOB);
    cr_expect_str_eq(detail, "cuda: args[1] is an OpenCL sampler; a CUDA kernel takes none");
}
#else
Test(exec_cuda, absent_without_cuda_headers)
{
    cr_assert_null(aoe_exec_find("cuda")); /* configured without the CUDA headers */
}
#endif
