/* Keys across runs: the family key ignores scalar values (except the kept
 * ones), keeps every other launch field, differs from the launch key, and
 * the job's family key (jobs/job.h) is the shim's (aoe_opkey_family over the
 * launch's own shapes). */
#include "jobs/job.h"
#include "store/opkey.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

static float data[64];
static int32_t scalar_k;
static float scalar_f;
static aoe_job_arg args[4];

static aoe_job job_with(int32_t k, float f)
{
    aoe_job j;
    memset(&j, 0, sizeof j);
    scalar_k = k, scalar_f = f;
    args[0] =
        (aoe_job_arg){.kind = AOE_JOB_ARG_BUFFER, .size = sizeof data, .data = (uint8_t *)data};
    args[1] = (aoe_job_arg){.kind = AOE_JOB_ARG_BUFFER, .size = sizeof data};
    args[2] = (aoe_job_arg){.kind = AOE_JOB_ARG_SCALAR, .size = 4, .data = (uint8_t *)&scalar_k};
    args[3] = (aoe_job_arg){.kind = AOE_JOB_ARG_SCALAR, .size = 4, .data = (uint8_t *)&scalar_f};
    j.format = AOE_JOB_FORMAT;
    j.runtime = "opencl";
    j.fingerprint = "opencl|Vendor|Device|1.0|cu=4";
    j.source = "__kernel void k(__global float *a, __global float *b, int n, float s) {}";
    j.options = "-DX=1";
    j.kernel_name = "k";
    j.work_dim = 1;
    j.global[0] = 64;
    j.nargs = 4;
    j.args = args;
    return j;
}

static int same(aoe_key a, aoe_key b)
{
    return a.hi == b.hi && a.lo == b.lo;
}

/* The launch as the shim keys it (launch/sight.c). */
static aoe_key shim_family(const aoe_job *j, int32_t k, float f, uint64_t keep)
{
    int oom;
    uint64_t kpart = aoe_job_kernel_part(j, &oom);
    cr_assert_eq(oom, 0);
    aoe_arg_shape s[4] = {{AOE_ARGK_BUFFER, 0, sizeof data, NULL},
                          {AOE_ARGK_BUFFER, 0, sizeof data, NULL},
                          {AOE_ARGK_SCALAR, 4, 0, &k},
                          {AOE_ARGK_SCALAR, 4, 0, &f}};
    size_t global[1] = {64};
    return aoe_opkey_family(kpart, 1, global, 4, s, keep);
}

Test(opkey_family, job_and_shim_agree)
{
    aoe_job j = job_with(3, 0.5f);
    cr_assert(aoe_job_has_family(&j));
    cr_assert(same(aoe_job_family_key(&j, 0), shim_family(&j, 3, 0.5f, 0)));
    cr_assert(same(aoe_job_family_key(&j, 1u << 2), shim_family(&j, 3, 0.5f, 1u << 2)));
    cr_assert(same(aoe_job_family_key(&j, 3u << 2), shim_family(&j, 3, 0.5f, 3u << 2)));
}

Test(opkey_family, scalar_values_do_not_matter_unless_kept)
{
    aoe_job a = job_with(3, 0.5f);
    aoe_key fa = aoe_job_family_key(&a, 0), ka = aoe_job_compute_key(&a);
    aoe_key fa_kept = aoe_job_family_key(&a, 1u << 2);
    aoe_job b = job_with(4, 0.25f);
    cr_assert(same(fa, aoe_job_family_key(&b, 0)));
    cr_assert(!same(ka, aoe_job_compute_key(&b)), "the launch key keeps scalar values");
    cr_assert(!same(fa_kept, aoe_job_family_key(&b, 1u << 2)), "a kept scalar keys by value");
    aoe_job c = job_with(3, 0.25f); /* only the scalar not kept differs */
    cr_assert(same(fa_kept, aoe_job_family_key(&c, 1u << 2)));
    cr_assert(!same(fa, fa_kept));
    cr_assert(!same(fa, ka), "the family key is not a launch key");
    /* a bit of a non-scalar argument changes nothing */
    cr_assert(same(fa, aoe_job_family_key(&a, 1u << 0)));
}

Test(opkey_family, other_fields_matter)
{
    aoe_job a = job_with(3, 0.5f);
    aoe_key fa = aoe_job_family_key(&a, 0);
    aoe_job b = job_with(3, 0.5f);
    b.global[0] = 32;
    cr_assert(!same(fa, aoe_job_family_key(&b, 0)), "global size");
    b = job_with(3, 0.5f);
    args[1].size = 128;
    cr_assert(!same(fa, aoe_job_family_key(&b, 0)), "buffer size");
    b = job_with(3, 0.5f);
    args[3].size = 8;
    scalar_f = 0;
    double d = 0.5;
    args[3].data = (uint8_t *)&d;
    cr_assert(!same(fa, aoe_job_family_key(&b, 0)), "scalar size");
    b = job_with(3, 0.5f);
    b.options = "-DX=2";
    cr_assert(!same(fa, aoe_job_family_key(&b, 0)), "build options");
    b = job_with(3, 0.5f);
    b.kernel_name = "k2";
    cr_assert(!same(fa, aoe_job_family_key(&b, 0)), "kernel name");
}

Test(opkey_family, only_null_local_launches)
{
    aoe_job j = job_with(3, 0.5f);
    j.has_local = 1;
    j.local[0] = 16;
    cr_assert(!aoe_job_has_family(&j));
    aoe_key none = aoe_job_family_key(&j, 0);
    cr_assert(!none.hi && !none.lo);
    j = job_with(3, 0.5f);
    j.launch_kind = AOE_LAUNCH_GRID_BLOCK;
    cr_assert(!aoe_job_has_family(&j));
}

Test(opkey_family, policies_served_across_scalars)
{
    aoe_policy p;
    memset(&p, 0, sizeof p);
    p.work_dim = 1;
    cr_assert(aoe_family_policy_ok(&p, 0), "the program's own launch");
    p.n_params = 1;
    snprintf(p.params[0].name, sizeof p.params[0].name, "LOCAL_0");
    p.params[0].kind = AOE_PARAM_WORK_SIZE;
    cr_assert(aoe_family_policy_ok(&p, 0), "a work-group size");
    p.n_params = 2;
    snprintf(p.params[1].name, sizeof p.params[1].name, "UNROLL");
    p.params[1].kind = AOE_PARAM_DEFINE;
    cr_assert(!aoe_family_policy_ok(&p, 0), "a define without declared scalars");
    cr_assert(aoe_family_policy_ok(&p, 1), "a define with declared scalars");
}
