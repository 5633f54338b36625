/* Executor contract v2: status codes and their names, the spool's transient
 * decision from codes, executors found by runtime name, and a job whose
 * runtime has no executor failing with one clear message. */
#include "tuner/exec.h"
#include "tuner/runner.h"
#include "tuner/spool.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

Test(exec_status, every_status_has_its_own_name)
{
    for (int a = 0; a < AOE_EXEC_STATUS_COUNT; a++) {
        const char *na = aoe_exec_status_name((aoe_exec_status)a);
        cr_assert(na && *na, "status %d has no name", a);
        cr_expect_null(strchr(na, ':'), "'%s': a category name never holds ':'", na);
        cr_expect_eq((int)aoe_exec_status_from_name(na, AOE_EXEC_STATUS_COUNT), a, "%s", na);
        for (int b = a + 1; b < AOE_EXEC_STATUS_COUNT; b++)
            cr_expect_str_neq(na, aoe_exec_status_name((aoe_exec_status)b));
    }
    cr_expect_str_eq(aoe_exec_status_name(AOE_EXEC_STATUS_COUNT), "unknown");
    cr_expect_str_eq(aoe_exec_status_name((aoe_exec_status)-1), "unknown");
    cr_expect_eq(aoe_exec_status_from_name("no such", AOE_EXEC_WRONG_RESULT),
                 AOE_EXEC_WRONG_RESULT);
}

/* The categories `aoe tune` has always shown (failed variants column, result
 * JSON failed_by_reason; tests/integration/tune_planted.sh asserts some). */
Test(exec_status, category_names_are_the_ones_users_see)
{
    static const struct {
        aoe_exec_status st;
        const char *name;
    } want[] = {{AOE_EXEC_OK, "ok"},
                {AOE_EXEC_BUILD_FAILED, "build failed"},
                {AOE_EXEC_REFUSED, "refused"},
                {AOE_EXEC_RUNTIME_ERROR, "runtime error"},
                {AOE_EXEC_WRONG_RESULT, "wrong result"},
                {AOE_EXEC_UNWRITTEN_OUTPUT, "unwritten output"},
                {AOE_EXEC_OOB_WRITE, "out-of-bounds write"},
                {AOE_EXEC_TIMEOUT, "timeout"},
                {AOE_EXEC_CRASH, "crash"},
                {AOE_EXEC_WORKER_EXITED, "worker exited"},
                {AOE_EXEC_STARVED, "starved"}};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        cr_expect_str_eq(aoe_exec_status_name(want[i].st), want[i].name);
}

Test(exec_status, the_spool_retries_only_failures_that_are_not_the_jobs)
{
    static const aoe_exec_status transient[] = {AOE_EXEC_OUT_OF_MEMORY, AOE_EXEC_IO_ERROR,
                                                AOE_EXEC_NO_WORKER, AOE_EXEC_KILLED,
                                                AOE_EXEC_STARVED};
    static const aoe_exec_status the_jobs[] = {AOE_EXEC_OK,
                                               AOE_EXEC_BUILD_FAILED,
                                               AOE_EXEC_REFUSED,
                                               AOE_EXEC_RUNTIME_ERROR,
                                               AOE_EXEC_UNSUPPORTED,
                                               AOE_EXEC_NO_RUNTIME,
                                               AOE_EXEC_NO_DEVICE,
                                               AOE_EXEC_BAD_JOB,
                                               AOE_EXEC_NOTHING_TO_TUNE,
                                               AOE_EXEC_WRONG_RESULT,
                                               AOE_EXEC_UNWRITTEN_OUTPUT,
                                               AOE_EXEC_OOB_WRITE,
                                               AOE_EXEC_TIMEOUT,
                                               AOE_EXEC_CRASH,
                                               AOE_EXEC_WORKER_EXITED};
    for (size_t i = 0; i < sizeof transient / sizeof *transient; i++)
        cr_expect(aoe_spool_transient(transient[i]), "%s", aoe_exec_status_name(transient[i]));
    for (size_t i = 0; i < sizeof the_jobs / sizeof *the_jobs; i++)
        cr_expect(!aoe_spool_transient(the_jobs[i]), "%s", aoe_exec_status_name(the_jobs[i]));
    cr_expect_eq(sizeof transient / sizeof *transient + sizeof the_jobs / sizeof *the_jobs,
                 AOE_EXEC_STATUS_COUNT, "every status decided here");
    cr_expect(!aoe_spool_transient(AOE_EXEC_STATUS_COUNT));
}

Test(exec_status, errno_values_map_to_statuses)
{
    cr_expect_eq(aoe_exec_status_from_errno(ENOMEM, AOE_EXEC_BAD_JOB), AOE_EXEC_OUT_OF_MEMORY);
    cr_expect_eq(aoe_exec_status_from_errno(ENOSPC, AOE_EXEC_BAD_JOB), AOE_EXEC_IO_ERROR);
    cr_expect_eq(aoe_exec_status_from_errno(EIO, AOE_EXEC_BAD_JOB), AOE_EXEC_IO_ERROR);
    cr_expect_eq(aoe_exec_status_from_errno(0, AOE_EXEC_BAD_JOB), AOE_EXEC_BAD_JOB);
    cr_expect_eq(aoe_exec_status_from_errno(EINVAL, AOE_EXEC_BAD_JOB), AOE_EXEC_BAD_JOB);
}

Test(exec_status, executors_are_found_by_runtime_name)
{
    char why[256] = "";
    const aoe_exec_ops *cl = aoe_exec_find("opencl");
    cr_assert_eq(cl, &aoe_exec_opencl);
    cr_expect_eq(cl->version, AOE_EXEC_OPS_VERSION);
    cr_expect_str_eq(cl->runtime, "opencl");
    aoe_job job = {.runtime = "opencl"};
    cr_expect_eq(aoe_exec_for(&job, why, sizeof why), &aoe_exec_opencl);
    cr_expect_null(aoe_exec_find("metal")); /* a runtime no build has */
    cr_expect_null(aoe_exec_find(NULL));
    job.runtime = "metal";
    cr_expect_null(aoe_exec_for(&job, why, sizeof why));
    cr_expect_str_eq(why, "no executor for runtime 'metal' in this build");
}

/* A job for a runtime this build has no executor for fails before any worker
 * starts, with one message and the status UNSUPPORTED (never retried). */
Test(exec_status, a_job_without_executor_gets_one_clear_message)
{
    aoe_job job = {.runtime = "metal", .kernel_name = "k", .work_dim = 1, .global = {1, 1, 1}};
    aoe_tune_options o = {
        .strategy = "brute", .max_evals = 4, .time_limit_s = 5, .variant_timeout_s = 5};
    aoe_tune_result r;
    cr_expect_eq(aoe_tune_job(&job, &o, &r), -1);
    cr_expect(!r.ok);
    cr_expect_eq(r.status, AOE_EXEC_UNSUPPORTED, "%s", aoe_exec_status_name(r.status));
    cr_expect_str_eq(r.error, "no executor for runtime 'metal' in this build");
    cr_expect(!aoe_spool_transient(r.status));
}

Test(exec_status, failed_variants_are_counted_by_status)
{
    aoe_tune_result r;
    memset(&r, 0, sizeof r);
    aoe_tune_note_failure(&r, AOE_EXEC_CRASH, "crash: SIGSEGV (Segmentation fault) in the worker");
    aoe_tune_note_failure(&r, AOE_EXEC_BUILD_FAILED, "build failed: CL_BUILD_PROGRAM_FAILURE: x");
    aoe_tune_note_failure(&r, AOE_EXEC_CRASH, "crash: SIGBUS (Bus error) in the worker");
    cr_expect_eq(r.failures, 3);
    cr_assert_eq(r.nreasons, 2);
    cr_expect_str_eq(r.reasons[0].category, "crash");
    cr_expect_eq(r.reasons[0].status, AOE_EXEC_CRASH);
    cr_expect_eq(r.reasons[0].count, 2);
    cr_expect_str_eq(r.reasons[0].example, "crash: SIGSEGV (Segmentation fault) in the worker");
    cr_expect_str_eq(r.reasons[1].category, "build failed");
    cr_expect_eq(r.reasons[1].count, 1);
}
