/* The run protocol (tuner/run_protocol.c) against a fake executor: a
 * test-double aoe_exec_ops whose "device" is host memory and whose "kernel"
 * writes out[i] = in[i] + 1 (no OpenCL). It counts every primitive call, so
 * the tests see what the neutral code asks of an executor: the verified run
 * first, timing only after it passed, the cutoff, one build per distinct
 * option string, build failures as statuses, guard bytes checked. */
#include "tuner/exec.h"
#include "tuner/run_protocol.h"
#include "tuner/verify_status.h"

#include <criterion/criterion.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N 64 /* bytes per buffer */

static struct {
    atomic_int builds; /* build calls (from several threads at once) */
    int timed, untimed, flushes, resets, guard_resets;
    double us;                     /* what a timed run reports */
    int write_guard;               /* runs write one byte just past the output */
    uint8_t out_before;            /* the output's first byte when the last run began */
    aoe_exec_status open_as;       /* open fails with this */
    int max_local;                 /* a launch with a larger local size is refused (0: any) */
    char last_options[256];        /* options of the program last run */
    const aoe_policy *last_policy; /* the policy the last run was given */
} F;

struct aoe_exec {
    const aoe_job *job;
    uint8_t *mem[4];  /* per argument: front guard, data, back guard */
    uint8_t *init[4]; /* what reset restores */
    uint64_t size[4], front[4], back[4];
};

struct aoe_exec_program {
    char options[256];
};

static aoe_exec_status f_open(const aoe_job *job, aoe_exec **out, char *detail, size_t len)
{
    if (F.open_as) {
        snprintf(detail, len, "fake runtime not available");
        return F.open_as;
    }
    *out = calloc(1, sizeof **out);
    (*out)->job = job;
    return AOE_EXEC_OK;
}

static aoe_exec_status f_buffer(aoe_exec *ex, uint32_t arg, uint64_t size, uint64_t guard,
                                const uint8_t *init, uint64_t *front, char *detail, size_t len)
{
    (void)detail, (void)len;
    ex->front[arg] = *front = guard + 64; /* an alignment of its own */
    ex->back[arg] = guard;
    ex->size[arg] = size;
    ex->mem[arg] = calloc(1, ex->front[arg] + size + guard);
    ex->init[arg] = malloc(size);
    memcpy(ex->init[arg], init, size);
    return AOE_EXEC_OK;
}

static aoe_exec_status f_build(aoe_exec *ex, const char *options, aoe_exec_program **out,
                               char *detail, size_t len)
{
    (void)ex;
    atomic_fetch_add(&F.builds, 1);
    struct timespec ts = {0, 2000000}; /* long enough for builds to overlap */
    nanosleep(&ts, NULL);
    if (strstr(options, "-DBAD")) {
        snprintf(detail, len, "fake.cl:3: error: BAD is not a type");
        return AOE_EXEC_BUILD_FAILED;
    }
    *out = calloc(1, sizeof **out);
    snprintf((*out)->options, sizeof(*out)->options, "%s", options);
    return AOE_EXEC_OK;
}

static aoe_exec_status f_inspect(aoe_exec *ex, aoe_exec_program *p, aoe_exec_info *info,
                                 char *detail, size_t len)
{
    (void)ex, (void)p, (void)detail, (void)len;
    info->limits.max_work_group_size = 64;
    info->read_only[0] = 1; /* the kernel declares its input const */
    return AOE_EXEC_OK;
}

static aoe_exec_status f_reset(aoe_exec *ex, const uint8_t *poisoned, uint8_t poison, int guard,
                               char *detail, size_t len)
{
    (void)detail, (void)len;
    F.resets++;
    F.guard_resets += guard >= 0;
    for (uint32_t i = 0; i < ex->job->nargs; i++) {
        if (!ex->mem[i]) continue; /* no device memory (a sampler) */
        uint8_t *data = ex->mem[i] + ex->front[i];
        if (poisoned && poisoned[i])
            memset(data, poison, ex->size[i]);
        else
            memcpy(data, ex->init[i], ex->size[i]);
        if (guard >= 0) {
            memset(ex->mem[i], guard, ex->front[i]);
            memset(data + ex->size[i], guard, ex->back[i]);
        }
    }
    return AOE_EXEC_OK;
}

static aoe_exec_status f_run(aoe_exec *ex, aoe_exec_program *p, const aoe_exec_launch *l,
                             double *device_us, char *detail, size_t len)
{
    if (F.max_local && l->has_local && l->local[0] > (uint64_t)F.max_local) {
        snprintf(detail, len, "local size %llu above %d", (unsigned long long)l->local[0],
                 F.max_local);
        return AOE_EXEC_REFUSED;
    }
    const uint8_t *in = ex->mem[0] + ex->front[0];
    uint8_t *out = ex->mem[1] + ex->front[1];
    F.out_before = out[0];
    for (uint64_t i = 0; i < ex->size[1]; i++) out[i] = (uint8_t)(in[i] + 1);
    if (F.write_guard) out[ex->size[1]] ^= 0xFF;
    snprintf(F.last_options, sizeof F.last_options, "%s", p->options);
    F.last_policy = l->policy;
    if (device_us) {
        F.timed++;
        *device_us = F.us;
    } else {
        F.untimed++;
    }
    return AOE_EXEC_OK;
}

static void f_flush(aoe_exec *ex, unsigned round)
{
    (void)ex, (void)round;
    F.flushes++;
}

static aoe_exec_status f_read(aoe_exec *ex, uint32_t arg, uint8_t *data, uint8_t *front,
                              uint8_t *back, char *detail, size_t len)
{
    (void)detail, (void)len;
    memcpy(front, ex->mem[arg], ex->front[arg]);
    memcpy(data, ex->mem[arg] + ex->front[arg], ex->size[arg]);
    memcpy(back, ex->mem[arg] + ex->front[arg] + ex->size[arg], ex->back[arg]);
    return AOE_EXEC_OK;
}

static void f_release(aoe_exec *ex, aoe_exec_program *p)
{
    (void)ex;
    free(p);
}

static void f_close(aoe_exec *ex)
{
    for (int i = 0; i < 4; i++) free(ex->mem[i]), free(ex->init[i]);
    free(ex);
}

static const aoe_exec_ops fake = {.version = AOE_EXEC_OPS_VERSION,
                                  .runtime = "fake",
                                  .open = f_open,
                                  .buffer = f_buffer,
                                  .build = f_build,
                                  .inspect = f_inspect,
                                  .reset = f_reset,
                                  .run = f_run,
                                  .flush = f_flush,
                                  .read = f_read,
                                  .release = f_release,
                                  .close = f_close};

/* in (captured, 0..63) and out (not captured: synthetic contents). */
static uint8_t captured[N];
static aoe_job_arg args[2];
static aoe_job job;

static void setup(void)
{
    memset(&F, 0, sizeof F);
    for (int i = 0; i < N; i++) captured[i] = (uint8_t)i;
    args[0] = (aoe_job_arg){.kind = AOE_JOB_ARG_BUFFER, .size = N, .data = captured};
    args[1] = (aoe_job_arg){.kind = AOE_JOB_ARG_BUFFER, .size = N, .data = NULL};
    job = (aoe_job){.runtime = "fake",
                    .source = "kernel void k(const global uchar *in, global uchar *out) {}",
                    .options = "-cl-fast-relaxed-math",
                    .kernel_name = "k",
                    .work_dim = 1,
                    .global = {N, 1, 1},
                    .nargs = 2,
                    .args = args};
}

TestSuite(run_protocol, .init = setup);

static aoe_protocol *open_fake(void)
{
    char why[512] = "";
    aoe_protocol *p = NULL;
    cr_assert_eq(aoe_protocol_open(&fake, &job, &p, why, sizeof why), AOE_EXEC_OK, "%s", why);
    cr_assert_not_null(p);
    return p;
}

static aoe_policy define(const char *name, int64_t value)
{
    aoe_policy pol = {.n_params = 1, .work_dim = 1, .global = {N, 1, 1}};
    snprintf(pol.params[0].name, sizeof pol.params[0].name, "%s", name);
    pol.params[0].value = value;
    pol.params[0].is_define = 1;
    return pol;
}

static const aoe_measure_opts timed = {1, 5, 20, 10.0, 0, 0, 0};

/* Verification callbacks: the protocol hands them the first run's outputs. */
static aoe_exec_status reject(void *ctx, const aoe_outputs *o)
{
    (void)o;
    ++*(int *)ctx;
    return AOE_EXEC_WRONG_RESULT;
}

static aoe_exec_status expect_plus_one(void *ctx, const aoe_outputs *o)
{
    ++*(int *)ctx;
    cr_expect_eq(o->nargs, 2);
    cr_expect_eq(o->size[1], N);
    for (int i = 0; i < N; i++)
        if (o->data[1][i] != (uint8_t)(o->data[0][i] + 1)) return AOE_EXEC_WRONG_RESULT;
    return o->oob_bytes ? AOE_EXEC_OOB_WRITE : AOE_EXEC_OK;
}

Test(run_protocol, open_builds_the_default_and_keeps_the_inputs)
{
    aoe_protocol *p = open_fake();
    aoe_device_limits lim;
    aoe_protocol_limits(p, &lim);
    cr_expect_eq(lim.max_work_group_size, 64, "the executor's limits");
    cr_expect_eq(atomic_load(&F.builds), 1, "the default program is built at open");
    cr_expect_eq(aoe_protocol_programs(p), 1);
    cr_expect(aoe_protocol_read_only(p, 0), "declared read-only by the executor");
    cr_expect(!aoe_protocol_read_only(p, 1));
    cr_expect_eq(aoe_protocol_input(p, 0), captured, "captured bytes are used in place");
    /* the uncaptured buffer gets deterministic float32 values in [-1, 1) */
    uint8_t want[N];
    aoe_synthetic_fill(want, N, 1);
    const uint8_t *got = aoe_protocol_input(p, 1);
    cr_assert_not_null(got);
    cr_expect_eq(memcmp(got, want, N), 0);
    for (int i = 0; i < N; i += 4) {
        float f;
        memcpy(&f, got + i, 4);
        cr_expect(f >= -1.0f && f < 1.0f, "element %d is %g", i / 4, (double)f);
    }
    aoe_protocol_close(p);
}

Test(run_protocol, a_rejected_verified_run_is_never_timed)
{
    aoe_protocol *p = open_fake();
    aoe_timing t;
    char why[512] = "";
    int checks = 0;
    aoe_exec_status st =
        aoe_protocol_measure(p, NULL, &timed, reject, &checks, &t, why, sizeof why);
    cr_expect_eq(st, AOE_EXEC_WRONG_RESULT, "%s", aoe_exec_status_name(st));
    cr_expect_eq(checks, 1);
    cr_expect_eq(F.untimed, 1, "only the verified run");
    cr_expect_eq(F.timed, 0, "a variant that failed verification was timed");
    cr_expect_eq(F.flushes, 0);
    cr_expect_eq(t.runs, 0);
    cr_expect_str_eq(why, "rejected by verification");
    aoe_protocol_close(p);
}

Test(run_protocol, a_verified_run_is_then_timed_with_flushes)
{
    aoe_protocol *p = open_fake();
    aoe_timing t;
    char why[512] = "";
    int checks = 0;
    F.us = 12.5;
    aoe_exec_status st =
        aoe_protocol_measure(p, NULL, &timed, expect_plus_one, &checks, &t, why, sizeof why);
    cr_assert_eq(st, AOE_EXEC_OK, "%s: %s", aoe_exec_status_name(st), why);
    cr_expect_eq(checks, 1);
    cr_expect_eq(F.guard_resets, 1, "guards are armed for the verified run");
    cr_expect_geq(t.runs, 5);
    cr_expect_leq(t.runs, 20);
    cr_expect_eq(F.timed, t.runs);
    cr_expect_eq(F.flushes, t.runs, "the caches are flushed before every timed run");
    cr_expect_eq(F.resets, 1 + t.runs, "inputs restored before every run");
    cr_expect_eq(t.median_us, 12.5);
    cr_expect_eq(t.spread_us, 0);
    cr_expect_str_eq(F.last_options, "-cl-fast-relaxed-math", "the job's own options");
    cr_expect_null(F.last_policy, "the job's own launch has no policy");
    cr_expect(!t.abandoned);
    aoe_protocol_close(p);
}

Test(run_protocol, a_slow_variant_is_abandoned_after_three_runs)
{
    aoe_protocol *p = open_fake();
    aoe_timing t;
    char why[512] = "";
    aoe_measure_opts o = timed;
    o.cutoff_us = 50;
    F.us = 100;
    cr_assert_eq(aoe_protocol_measure(p, NULL, &o, NULL, NULL, &t, why, sizeof why), AOE_EXEC_OK);
    cr_expect(t.abandoned);
    cr_expect_eq(t.runs, 3);
    cr_expect_eq(F.timed, 3);
    cr_expect_eq(t.median_us, 100);
    /* below the cutoff: not abandoned */
    F.us = 40;
    cr_assert_eq(aoe_protocol_measure(p, NULL, &o, NULL, NULL, &t, why, sizeof why), AOE_EXEC_OK);
    cr_expect(!t.abandoned);
    cr_expect_geq(t.runs, 5);
    aoe_protocol_close(p);
}

Test(run_protocol, identical_options_are_built_once)
{
    aoe_protocol *p = open_fake();
    aoe_policy pols[6] = {define("TS", 1), define("TS", 2), define("TS", 1),
                          define("TS", 4), define("TS", 2), define("TS", 1)};
    aoe_protocol_prepare(p, pols, 6, 4);
    cr_expect_eq(atomic_load(&F.builds), 1 + 3, "the default and three distinct variants");
    aoe_protocol_prepare(p, pols, 6, 4);
    cr_expect_eq(atomic_load(&F.builds), 4, "prepared again: nothing rebuilt");
    aoe_timing t;
    char why[512] = "";
    aoe_measure_opts once = {1, 0, 0, 0, 0, 0, 0};
    for (int i = 0; i < 6; i++)
        cr_expect_eq(aoe_protocol_measure(p, &pols[i], &once, NULL, NULL, &t, why, sizeof why),
                     AOE_EXEC_OK, "%s", why);
    cr_expect_eq(atomic_load(&F.builds), 4, "measured: nothing rebuilt");
    cr_expect_eq(aoe_protocol_programs(p), 4);
    cr_expect_str_eq(F.last_options, "-cl-fast-relaxed-math -DTS=1");
    cr_expect_eq(F.last_policy, &pols[5], "the run sees its policy");
    aoe_policy fresh = define("TS", 8);
    cr_expect_eq(aoe_protocol_measure(p, &fresh, &once, NULL, NULL, &t, why, sizeof why),
                 AOE_EXEC_OK);
    cr_expect_eq(atomic_load(&F.builds), 5, "a new option string is built on demand");
    aoe_protocol_close(p);
}

Test(run_protocol, a_build_failure_is_a_status_and_remembered)
{
    aoe_protocol *p = open_fake();
    aoe_policy bad = define("BAD", 1);
    aoe_timing t;
    char why[512] = "";
    aoe_exec_status st = aoe_protocol_measure(p, &bad, &timed, NULL, NULL, &t, why, sizeof why);
    cr_expect_eq(st, AOE_EXEC_BUILD_FAILED, "%s", aoe_exec_status_name(st));
    cr_expect_str_eq(why, "fake.cl:3: error: BAD is not a type", "the executor's detail");
    cr_expect_eq(F.untimed + F.timed, 0, "nothing ran");
    int builds = atomic_load(&F.builds);
    aoe_protocol_prepare(p, &bad, 1, 2);
    st = aoe_protocol_measure(p, &bad, &timed, NULL, NULL, &t, why, sizeof why);
    cr_expect_eq(st, AOE_EXEC_BUILD_FAILED);
    cr_expect_eq(atomic_load(&F.builds), builds, "a failed build is not retried");
    aoe_protocol_close(p);
}

Test(run_protocol, a_guard_overwrite_is_an_out_of_bounds_write)
{
    aoe_protocol *p = open_fake();
    aoe_timing t;
    char why[512] = "";
    int checks = 0;
    F.write_guard = 1;
    aoe_exec_status st =
        aoe_protocol_measure(p, NULL, &timed, expect_plus_one, &checks, &t, why, sizeof why);
    cr_expect_eq(st, AOE_EXEC_OOB_WRITE, "%s", aoe_exec_status_name(st));
    cr_expect_eq(F.timed, 0);

    /* The same outputs through the tuner's verification: the reference (the
     * default) wrote no guard byte, so the variant's one byte is reported. */
    aoe_reference ref;
    cr_assert_eq(aoe_reference_init(&ref, 2), 0);
    aoe_outputs o = {0};
    static const uint8_t *data[2];
    static uint64_t size[2] = {N, N};
    static uint8_t in[N], out[N];
    for (int i = 0; i < N; i++) in[i] = (uint8_t)i, out[i] = (uint8_t)(i + 1);
    data[0] = in, data[1] = out;
    o.nargs = 2, o.data = data, o.size = size, o.oob_bytes = 1, o.oob_arg = 1;
    for (int i = 0; i < 2; i++) {
        ref.size[i] = N;
        ref.ref[i] = malloc(N);
        memcpy(ref.ref[i], data[i], N);
    }
    aoe_tolerance tol = {1e-4, 1e-2, true};
    st = aoe_verify_run(&ref, &o, &tol, why, sizeof why);
    cr_expect_eq(st, AOE_EXEC_OOB_WRITE, "%s: %s", aoe_exec_status_name(st), why);
    cr_expect(strstr(why, "out-of-bounds write: 1 guard bytes around args[1]") == why, "%s", why);
    o.oob_bytes = 0;
    cr_expect_eq(aoe_verify_run(&ref, &o, &tol, why, sizeof why), AOE_EXEC_OK, "%s", why);
    out[3] ^= 1;
    cr_expect_eq(aoe_verify_run(&ref, &o, &tol, why, sizeof why), AOE_EXEC_WRONG_RESULT, "%s", why);
    aoe_reference_free(&ref);
    aoe_protocol_close(p);
}

Test(run_protocol, outputs_are_poisoned_and_inputs_restored)
{
    aoe_protocol *p = open_fake();
    aoe_timing t;
    char why[512] = "";
    aoe_measure_opts once = {1, 0, 0, 0, 0, 0, 0};
    cr_assert_eq(aoe_protocol_measure(p, NULL, &once, NULL, NULL, &t, why, sizeof why), 0);
    cr_expect_eq(F.out_before, aoe_protocol_input(p, 1)[0], "restored to its synthetic contents");
    uint8_t poisoned[2] = {0, 1};
    aoe_protocol_set_poison(p, poisoned, 0xFF);
    cr_assert_eq(aoe_protocol_measure(p, NULL, &once, NULL, NULL, &t, why, sizeof why), 0);
    cr_expect_eq(F.out_before, 0xFF, "the pure output is poisoned before the run");
    aoe_protocol_set_poison(p, NULL, 0);
    cr_assert_eq(aoe_protocol_measure(p, NULL, &once, NULL, NULL, &t, why, sizeof why), 0);
    cr_expect_eq(F.out_before, aoe_protocol_input(p, 1)[0]);
    aoe_protocol_close(p);
}

Test(run_protocol, refusals_are_statuses)
{
    aoe_protocol *p = open_fake();
    aoe_timing t;
    char why[512] = "";
    /* a launch the runtime rejects */
    aoe_policy big = {.work_dim = 1, .global = {N, 1, 1}, .local = {32, 1, 1}};
    F.max_local = 16;
    aoe_exec_status st = aoe_protocol_measure(p, &big, &timed, NULL, NULL, &t, why, sizeof why);
    cr_expect_eq(st, AOE_EXEC_REFUSED, "%s", aoe_exec_status_name(st));
    cr_expect_str_eq(why, "running the kernel: local size 32 above 16");
    /* a macro the program sets itself is never overridden */
    job.options = "-DTS=8";
    aoe_policy ts = define("TS", 4);
    st = aoe_protocol_measure(p, &ts, &timed, NULL, NULL, &t, why, sizeof why);
    cr_expect_eq(st, AOE_EXEC_REFUSED, "%s", aoe_exec_status_name(st));
    cr_expect(strstr(why, "never overridden"), "%s", why);
    /* a program from a binary takes no -D values */
    job.options = "";
    job.source = NULL;
    job.binary = captured;
    job.binary_size = N;
    st = aoe_protocol_measure(p, &ts, &timed, NULL, NULL, &t, why, sizeof why);
    cr_expect_eq(st, AOE_EXEC_REFUSED, "%s", aoe_exec_status_name(st));
    cr_expect_str_eq(why, "a program built from a binary cannot take -D values");
    aoe_protocol_close(p);
}

Test(run_protocol, open_failures_keep_their_status)
{
    aoe_protocol *p = NULL;
    char why[512] = "";
    F.open_as = AOE_EXEC_NO_RUNTIME;
    cr_expect_eq(aoe_protocol_open(&fake, &job, &p, why, sizeof why), AOE_EXEC_NO_RUNTIME);
    cr_expect_null(p);
    cr_expect_str_eq(why, "fake runtime not available");
    F.open_as = AOE_EXEC_OK;
    job.source = NULL;
    cr_expect_eq(aoe_protocol_open(&fake, &job, &p, why, sizeof why), AOE_EXEC_BAD_JOB);
    cr_expect_str_eq(why, "the job has neither source nor binary");
    job.source = "kernel void k() {}";
    job.options = "-DBAD";
    cr_expect_eq(aoe_protocol_open(&fake, &job, &p, why, sizeof why), AOE_EXEC_BUILD_FAILED);
    cr_expect_str_eq(why, "the default program: build failed: fake.cl:3: error: BAD is not a type");
    cr_expect_null(p);
}

static aoe_elem_type f_image_elem(const aoe_job *j, uint32_t arg)
{
    return j->args[arg].kind == AOE_JOB_ARG_IMAGE ? AOE_ELEM_F16 : AOE_ELEM_U32;
}

static aoe_exec_status image_written(void *ctx, const aoe_outputs *o)
{
    ++*(int *)ctx;
    cr_expect_null(o->data[2], "a sampler has no contents");
    for (int i = 0; i < N; i++)
        if (o->data[1][i] != (uint8_t)(o->data[0][i] + 1)) return AOE_EXEC_WRONG_RESULT;
    return AOE_EXEC_OK;
}

/* An image is created, restored, read back and verified as a buffer is; its
 * synthetic contents are finite values of its channel type (f16 here: no
 * NaN or infinity), and it is typed by its format. A sampler has no memory. */
Test(run_protocol, an_image_is_a_buffer_typed_by_its_format)
{
    aoe_exec_ops ops = fake;
    ops.image_elem = f_image_elem;
    aoe_job_arg three[3] = {args[0],
                            {.kind = AOE_JOB_ARG_IMAGE,
                             .size = N, /* 8 x 1 RGBA half pixels */
                             .image = {0x10F1, 0x10B5, 0x10DD, 8, 8, 1, 0, 0}},
                            {.kind = AOE_JOB_ARG_SAMPLER, .sampler = {0, 0x1132, 0x1140}}};
    job.args = three;
    job.nargs = 3;
    char why[512] = "";
    aoe_protocol *p = NULL;
    cr_assert_eq(aoe_protocol_open(&ops, &job, &p, why, sizeof why), AOE_EXEC_OK, "%s", why);
    const uint8_t *img = aoe_protocol_input(p, 1);
    cr_assert_not_null(img);
    int nonzero = 0;
    for (int i = 0; i < N; i += 2) {
        uint16_t h;
        memcpy(&h, img + i, 2);
        cr_expect_lt((h >> 10) & 0x1F, 15, "half %d (0x%04x) is not finite in (-1, 1)", i / 2, h);
        nonzero += (h & 0x7FFF) != 0;
    }
    cr_expect_gt(nonzero, N / 4, "synthetic halves are mostly non-zero");
    uint8_t again[N];
    aoe_synthetic_fill_typed(again, N, AOE_ELEM_F16, 1);
    cr_expect_eq(memcmp(img, again, N), 0, "deterministic, seeded by the argument");
    cr_expect_eq(aoe_protocol_elem(p, 1), AOE_ELEM_F16, "typed by its format");
    cr_expect_null(aoe_protocol_input(p, 2));
    cr_expect_eq(aoe_protocol_elem(p, 2), AOE_ELEM_BYTES);
    int checked = 0;
    aoe_timing t;
    cr_expect_eq(
        aoe_protocol_measure(p, NULL, &timed, image_written, &checked, &t, why, sizeof why),
        AOE_EXEC_OK, "%s", why);
    cr_expect_eq(checked, 1);
    aoe_protocol_close(p);
}

/* Buffers keep their float32 contents: the typed fill is the same bytes for
 * every type but f16. */
Test(run_protocol, typed_fill_is_the_float32_fill_but_for_halves)
{
    uint8_t a[N + 3], b[N + 3];
    aoe_synthetic_fill(a, sizeof a, 7);
    aoe_synthetic_fill_typed(b, sizeof b, AOE_ELEM_F32, 7);
    cr_expect_eq(memcmp(a, b, sizeof a), 0);
    aoe_synthetic_fill_typed(b, sizeof b, AOE_ELEM_U8, 7);
    cr_expect_eq(memcmp(a, b, sizeof a), 0);
}
