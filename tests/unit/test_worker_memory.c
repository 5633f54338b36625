/* The worker memory estimate (tuner/worker_memory.c) per argument kind: a
 * writable buffer 8 copies, a read-only one 5, an image one more for its
 * poison, a sampler and a scalar nothing. */
#include "tuner/worker_memory.h"

#include <criterion/criterion.h>
#include <string.h>

static uint64_t estimate(aoe_job_arg a)
{
    static uint8_t value[4];
    aoe_job_arg args[2] = {{.kind = AOE_JOB_ARG_SCALAR, .size = 4, .data = value}, a};
    aoe_job j;
    memset(&j, 0, sizeof j);
    j.runtime = "opencl";
    j.nargs = 2;
    j.args = args;
    return aoe_worker_peak_estimate(&j) - AOE_WORKER_BASE_BYTES;
}

Test(worker_memory, copies_per_kind)
{
    const uint64_t s = 1 << 20;
    aoe_job_image im = {0x10F1, 0x10B5, 0x10D2, 4, 512, 512, 0, 0}; /* 1 MiB */
    cr_expect_eq(estimate((aoe_job_arg){.kind = AOE_JOB_ARG_BUFFER, .size = s}), 8 * s);
    cr_expect_eq(estimate((aoe_job_arg){.kind = AOE_JOB_ARG_BUFFER, .size = s, .flags = 4}), 5 * s,
                 "CL_MEM_READ_ONLY");
    cr_expect_eq(estimate((aoe_job_arg){.kind = AOE_JOB_ARG_IMAGE, .size = s, .image = im}), 9 * s);
    cr_expect_eq(
        estimate((aoe_job_arg){.kind = AOE_JOB_ARG_IMAGE, .size = s, .flags = 4, .image = im}),
        6 * s, "CL_MEM_READ_ONLY");
    cr_expect_eq(
        estimate((aoe_job_arg){.kind = AOE_JOB_ARG_SAMPLER, .sampler = {0, 0x1132, 0x1140}}), 0);
    cr_expect_eq(estimate((aoe_job_arg){.kind = AOE_JOB_ARG_LOCAL, .size = s}), 0);
}
