/* The launch core's library-call first sight (launch/libcall.h), driven the
 * way the cuBLAS hooks drive it but with no library: a description with its
 * key and job callback, and a fake host (bank, spool, filters). Also run
 * under ThreadSanitizer (several threads resolving one key). */
#ifdef AOE_TEST_LITE /* the ThreadSanitizer build */
#include "tests/unit/test_lite.h"
#else
#include <criterion/criterion.h>
#endif

#include "core/not_tuned_reasons.h"
#include "launch/host.h"
#include "launch/libcall.h"
#include "store/gemm_algo.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    atomic_int submitted, spawned, notes, last_reason, refreshes, jobs_made;
    int has, full, hit;
    char kernel[64], call_site[64];
    int repeat;
} g;

static void call_site(char *out, size_t len)
{
    snprintf(out, len, "libtest.so:caller");
}
static aoe_record library_record(void)
{
    aoe_record rec;
    memset(&rec, 0, sizeof rec);
    snprintf(rec.runtime, sizeof rec.runtime, "cublas");
    snprintf(rec.kernel_name, sizeof rec.kernel_name, "gemm");
    aoe_gemm_algo a;
    aoe_gemm_algo_init(&a);
    a.algo = 6, a.tile = 20, a.splitk = 4, a.reduction = 2;
    cr_assert_eq(aoe_gemm_algo_to_policy(&a, &rec.policy, NULL, 0), 0);
    rec.default_us = 10, rec.tuned_us = 5, rec.timestamp = 1700000000;
    return rec;
}
/* The bank: a hit publishes the record as a library policy. */
static void refresh(aoe_op *op)
{
    atomic_fetch_add(&g.refreshes, 1);
    if (!g.hit) return;
    aoe_record rec = library_record();
    aoe_policy_entry *e = aoe_policy_from_library_record(&rec);
    cr_assert_not_null(e);
    aoe_op_publish(op, NULL, e);
}
static int allows(const char *name)
{
    return strncmp(name, "filtered", 8) != 0;
}
static void not_tuned(const char *name, int reason, const char *detail)
{
    (void)name, (void)detail;
    atomic_fetch_add(&g.notes, 1);
    atomic_store(&g.last_reason, reason);
}
static int spool_has(const aoe_key *key)
{
    (void)key;
    return g.has;
}
static int spool_full(void)
{
    return g.full;
}
static int spool_submit(const aoe_job *job)
{
    atomic_fetch_add(&g.submitted, 1);
    snprintf(g.kernel, sizeof g.kernel, "%s", job->kernel_name);
    snprintf(g.call_site, sizeof g.call_site, "%s", job->call_site);
    g.repeat = job->repeat_tune;
    return 1;
}
static void tuner_spawn(void)
{
    atomic_fetch_add(&g.spawned, 1);
}

static aoe_launch_host g_host = {
    .version = AOE_LAUNCH_HOST_VERSION,
    .capture = 1,
    .repeat = 0,
    .spool_dir = "/spool",
    .call_site = call_site,
    .refresh = refresh,
    .allows = allows,
    .not_tuned = not_tuned,
    .spool_has = spool_has,
    .spool_full = spool_full,
    .spool_submit = spool_submit,
    .tuner_spawn = tuner_spawn,
};

static int make_job(const aoe_libcall_desc *d, aoe_job *job)
{
    atomic_fetch_add(&g.jobs_made, 1);
    job->format = AOE_JOB_FORMAT;
    job->op = AOE_OP_LIBRARY_CALL;
    job->runtime = strdup("testlib");
    job->kernel_name = strdup("gemm");
    job->fingerprint = strdup(d->fingerprint);
    job->call_site = strdup("replaced by the core");
    job->key = d->key;
    return job->runtime && job->kernel_name && job->fingerprint && job->call_site ? 0 : -1;
}

static aoe_libcall_desc desc(uint64_t lo, const char *name)
{
    memset(&g, 0, sizeof g);
    aoe_launch_set_host(&g_host);
    return (aoe_libcall_desc){"testlib|dev", name, {0x11bca11, lo}, make_job, NULL};
}

Test(launch_libcall, first_sight_captures_once)
{
    aoe_libcall_desc d = desc(1, "gemm a");
    aoe_libcall_sight s = {0};
    aoe_op *op = aoe_libcall_resolve(&s, &d);
    cr_assert_not_null(op);
    cr_assert(op->libcall && atomic_load(&op->sighted) && atomic_load(&op->shape));
    cr_assert(op->key.hi == d.key.hi && op->key.lo == d.key.lo);
    cr_assert_str_eq(op->kernel_name, "gemm a");
    cr_assert_str_eq(op->call_site, "libtest.so:caller");
    cr_assert(g.submitted == 1 && g.spawned == 1 && g.jobs_made == 1 && op->job_written);
    cr_assert_str_eq(g.call_site, "libtest.so:caller", "the core's call site");
    cr_assert_str_eq(g.kernel, "gemm");
    cr_assert_eq(atomic_load(&s.captures), 1);
    cr_assert_eq(aoe_libcall_resolve(&s, &d), op, "the same operator again");
    cr_assert(g.submitted == 1 && g.refreshes == 1, "no second first sight");
    cr_assert_eq(atomic_load(&s.ops_created), 1);
}

Test(launch_libcall, no_capture_when_off_filtered_queued_or_full)
{
    aoe_libcall_sight s = {0};
    aoe_libcall_desc d = desc(2, "gemm b");
    g_host.capture = 0;
    aoe_op *op = aoe_libcall_resolve(&s, &d);
    g_host.capture = 1;
    cr_assert(op && g.submitted == 0 && g.jobs_made == 0 && g.notes == 0);

    d = desc(3, "filtered gemm");
    op = aoe_libcall_resolve(&s, &d);
    cr_assert(op && g.submitted == 0 && op->not_tuned == AOE_NT_FILTERED);

    d = desc(4, "gemm c");
    g.has = 1;
    op = aoe_libcall_resolve(&s, &d);
    cr_assert(op && g.submitted == 0 && g.spawned == 1, "queued elsewhere: the tuner is started");

    d = desc(5, "gemm d");
    g.full = 1;
    op = aoe_libcall_resolve(&s, &d);
    cr_assert(op && g.submitted == 0 && g.jobs_made == 0 && op->not_tuned == AOE_NT_SPOOL_FULL);
}

Test(launch_libcall, a_hit_at_first_sight_is_not_captured)
{
    aoe_libcall_sight s = {0};
    aoe_libcall_desc d = desc(6, "gemm e");
    g.hit = 1;
    aoe_op *op = aoe_libcall_resolve(&s, &d);
    cr_assert_not_null(op);
    cr_assert_eq(op->first, AOE_OP_FIRST_HIT);
    cr_assert_eq(g.submitted, 0);
    const aoe_policy_entry *p = atomic_load(&op->policy);
    cr_assert_not_null(p);
    aoe_gemm_algo a;
    cr_assert_eq(aoe_gemm_algo_from_policy(&p->rec.policy, &a, NULL, 0), 0);
    cr_assert(a.algo == 6 && a.tile == 20 && a.splitk == 4 && a.reduction == 2);
    /* REPEAT_TUNE: captured anyway, the job says so */
    d = desc(7, "gemm f");
    g.hit = 1;
    g_host.repeat = 1;
    op = aoe_libcall_resolve(&s, &d);
    g_host.repeat = 0;
    cr_assert(op && g.submitted == 1 && g.repeat == 1 && op->repeat_job);
}

Test(launch_libcall, limits)
{
    aoe_libcall_sight s = {0};
    aoe_libcall_desc d = desc(8, "gemm g");
    atomic_store(&s.captures, AOE_MAX_LIBCALL_CAPTURES);
    aoe_op *op = aoe_libcall_resolve(&s, &d);
    cr_assert(op && g.submitted == 0 && op->not_tuned == AOE_NT_CAPTURE_LIMIT);

    d = desc(9, "gemm h");
    atomic_store(&s.ops_created, AOE_MAX_LIBCALL_OPS);
    cr_assert_null(aoe_libcall_resolve(&s, &d), "no new operator beyond the limit");
    cr_assert(g.notes == 1 && g.last_reason == AOE_NT_OPS_LIMIT);
    d = desc(10, "gemm i");
    cr_assert_null(aoe_libcall_resolve(&s, &d));
    cr_assert_eq(g.notes, 0, "said once");
    d = desc(8, "gemm g");
    cr_assert_eq(aoe_libcall_resolve(&s, &d), op, "existing operators are still found");
}

Test(launch_libcall, library_records_only)
{
    aoe_record rec = library_record();
    aoe_policy_entry *e = aoe_policy_from_library_record(&rec);
    cr_assert_not_null(e);
    cr_assert_eq(e->rec.policy.n_params, AOE_GEMM_ALGO_NPARAMS);
    free(e);
    rec.policy.params[1].kind = AOE_PARAM_DEFINE; /* a -D value is no library attribute */
    cr_assert_null(aoe_policy_from_library_record(&rec));
    rec = library_record();
    rec.policy.work_dim = 0; /* fails the record rules */
    cr_assert_null(aoe_policy_from_library_record(&rec));
}

static aoe_libcall_sight g_shared;
static aoe_libcall_desc g_shared_desc;
static void *resolver(void *arg)
{
    (void)arg;
    for (int i = 0; i < 200; i++)
        if (!aoe_libcall_resolve(&g_shared, &g_shared_desc)) return (void *)1;
    return NULL;
}

Test(launch_libcall, threads_share_one_operator_and_one_job)
{
    g_shared_desc = desc(11, "gemm threaded");
    pthread_t t[4];
    for (int i = 0; i < 4; i++) cr_assert_eq(pthread_create(&t[i], NULL, resolver, NULL), 0);
    for (int i = 0; i < 4; i++) {
        void *rc;
        pthread_join(t[i], &rc);
        cr_assert_null(rc);
    }
    cr_assert_eq(atomic_load(&g.submitted), 1);
    cr_assert_eq(atomic_load(&g_shared.ops_created), 1);
    cr_assert_not_null(aoe_op_find(&g_shared_desc.key));
}
