/* Launch sizes in threads (jobs/job.h, aoe_job_launch_sizes) and what they
 * mean for a grid/block job's search space: the tunables rules' G/L are
 * threads, the policies' global/local too, and the block is never searched. */
#include "jobs/job.h"
#include "space/space.h"

#include <criterion/criterion.h>
#include <string.h>

static aoe_job grid_job(const char *space)
{
    aoe_job j;
    memset(&j, 0, sizeof j);
    j.runtime = "cuda";
    j.fingerprint = "cuda|NVIDIA|X|13000|cu=1|arch=sm_90";
    j.kernel_name = "k";
    j.source = "__global__ void k() {}";
    j.options = "";
    j.launch_kind = AOE_LAUNCH_GRID_BLOCK;
    j.work_dim = 2;
    j.grid[0] = 8, j.grid[1] = 4, j.grid[2] = 1;
    j.block[0] = 16, j.block[1] = 16, j.block[2] = 1;
    j.has_local = 1;
    j.space_json = (char *)space;
    return j;
}

Test(job_launch, grid_block_in_threads)
{
    aoe_job j = grid_job(NULL);
    uint64_t g[3], l[3];
    int has = 0;
    aoe_job_launch_sizes(&j, g, l, &has);
    cr_assert_eq(has, 1);
    cr_assert(g[0] == 128 && g[1] == 64 && g[2] == 1, "%lu %lu %lu", (unsigned long)g[0],
              (unsigned long)g[1], (unsigned long)g[2]);
    cr_assert(l[0] == 16 && l[1] == 16 && l[2] == 1);
}

Test(job_launch, global_local_as_is)
{
    aoe_job j;
    memset(&j, 0, sizeof j);
    j.work_dim = 1;
    j.global[0] = 1000, j.local[0] = 0, j.has_local = 0;
    uint64_t g[3], l[3];
    int has = 1;
    aoe_job_launch_sizes(&j, g, l, &has);
    cr_assert(g[0] == 1000 && l[0] == 0 && has == 0);
}

/* G0/G1 and L0/L1 in a declaration are threads; the derived sizes too. */
Test(job_launch, grid_space_rules_in_threads)
{
    const char *decl = "{\"kernel\": \"k\", \"parameters\": ["
                       "{\"name\": \"TS\", \"values\": [8, 16, 32], \"default\": 16}],"
                       "\"constraints\": [\"G0 % TS == 0\", \"G1 % TS == 0\"],"
                       "\"global\": [\"G0\", \"G1\"], \"local\": [\"TS\", \"TS\"]}";
    aoe_job j = grid_job(decl);
    aoe_device_limits lim = {1024, {1024, 1024, 64}, {0, 0, 0}, 32};
    aoe_space_options opt = {NULL, NULL, false};
    char err[512] = "";
    aoe_space *sp = aoe_space_build(&j, &lim, &opt, err, sizeof err);
    cr_assert_not_null(sp, "%s", err);
    cr_assert_eq(aoe_space_configs(sp)->n_configs, 3); /* 32 divides 128 and 64 */
    aoe_policy p;
    for (size_t c = 0; c < 3; c++) {
        cr_assert_eq(aoe_space_policy(sp, &j, c, &p), 0);
        cr_assert_eq(p.n_params, 1); /* TS only: no work-group size parameter */
        cr_assert(p.global[0] == 128 && p.global[1] == 64);
        cr_assert(p.local[0] == (uint64_t)p.params[0].value);
    }
    cr_assert_geq(aoe_space_default_config(sp), 0);
    aoe_space_free(sp);
}

/* Without a declaration a grid job has nothing to tune: its block is its own. */
Test(job_launch, grid_without_declaration)
{
    aoe_job j = grid_job(NULL);
    aoe_device_limits lim = {1024, {1024, 1024, 64}, {0, 0, 0}, 32};
    aoe_space_options opt = {"/nonexistent", NULL, false};
    char err[512] = "";
    aoe_space *sp = aoe_space_build(&j, &lim, &opt, err, sizeof err);
    cr_assert_null(sp);
    cr_assert(strstr(err, "nothing to tune for kernel k: no tunables declaration matches it"), "%s",
              err);
    j.has_local = 0; /* even a job that claims no block gets no block search */
    sp = aoe_space_build(&j, &lim, &opt, err, sizeof err);
    cr_assert_null(sp);
}
