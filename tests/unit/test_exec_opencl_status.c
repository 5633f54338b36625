/* OpenCL error codes -> executor statuses (tuner/exec_opencl_errors.c): a
 * build that ran out of memory is retried later, a program that does not
 * compile is not. */
#include "tuner/exec.h"
#include "tuner/exec_opencl_errors.h"

#include <criterion/criterion.h>
#include <string.h>

Test(exec_opencl_status, build_failures)
{
    cr_assert_eq(aoe_cl_build_status(CL_BUILD_PROGRAM_FAILURE), AOE_EXEC_BUILD_FAILED);
    cr_assert_eq(aoe_cl_build_status(CL_INVALID_BUILD_OPTIONS), AOE_EXEC_BUILD_FAILED);
    cr_assert_eq(aoe_cl_build_status(CL_INVALID_BINARY), AOE_EXEC_BUILD_FAILED);
    cr_assert_eq(aoe_cl_build_status(CL_OUT_OF_HOST_MEMORY), AOE_EXEC_OUT_OF_MEMORY);
    cr_assert_eq(aoe_cl_build_status(CL_OUT_OF_RESOURCES), AOE_EXEC_OUT_OF_MEMORY);
    cr_assert(aoe_exec_status_transient(aoe_cl_build_status(CL_OUT_OF_HOST_MEMORY)));
    cr_assert(!aoe_exec_status_transient(aoe_cl_build_status(CL_BUILD_PROGRAM_FAILURE)));
}

Test(exec_opencl_status, launch_refusals)
{
    cr_assert_eq(aoe_cl_status(CL_INVALID_WORK_GROUP_SIZE, 1), AOE_EXEC_REFUSED);
    cr_assert_eq(aoe_cl_status(CL_INVALID_WORK_GROUP_SIZE, 0), AOE_EXEC_RUNTIME_ERROR);
    cr_assert_eq(aoe_cl_status(CL_OUT_OF_HOST_MEMORY, 1), AOE_EXEC_OUT_OF_MEMORY);
}

/* Job format 2 can describe what OpenCL cannot run: refused before the
 * runtime is even loaded, never tuned against a launch that did not happen. */
Test(exec_opencl_status, format2_jobs_opencl_cannot_run)
{
    char src[] = "__kernel void k(void) {}", name[] = "k", rt[] = "opencl";
    aoe_job base = {.format = 2,
                    .runtime = rt,
                    .source = src,
                    .kernel_name = name,
                    .work_dim = 1,
                    .global = {64}};
    aoe_job jobs[4] = {base, base, base, base};
    jobs[0].op = AOE_OP_LIBRARY_CALL;
    jobs[1].launch_kind = AOE_LAUNCH_GRID_BLOCK;
    jobs[2].dynamic_shared_bytes = 1024;
    jobs[3].program_kind = AOE_JOB_PROG_PTX;
    const char *want[4] = {"a library call", "a grid/block launch", "dynamic shared memory",
                           "a PTX or cubin program"};
    for (int i = 0; i < 4; i++) {
        aoe_exec *ex = (aoe_exec *)&ex; /* overwritten with NULL */
        char detail[256] = "";
        cr_assert_eq(aoe_exec_opencl.open(&jobs[i], &ex, detail, sizeof detail),
                     AOE_EXEC_UNSUPPORTED, "job %d: %s", i, detail);
        cr_assert_null(ex);
        cr_assert(strstr(detail, want[i]), "job %d: %s", i, detail);
    }
}
