/* The launch core's first sight (launch/sight.h) and variant queue
 * (launch/variant.h), driven the way a hook drives them but with no runtime
 * at all: a launch description, a fake host (bank, spool, filters) and fake
 * runtime callbacks (device limits, buffer contents). */
#ifdef AOE_TEST_LITE /* the ThreadSanitizer build */
#include "tests/unit/test_lite.h"
#else
#include <criterion/criterion.h>
#endif

#include "core/not_tuned_reasons.h"
#include "launch/host.h"
#include "launch/sight.h"
#include "launch/variant.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the fake host: records what the core asked for */
static struct {
    int submitted, spawned, notes, last_reason, has, full, refreshes;
    aoe_job job; /* a copy of the last job's fields the tests check */
    uint8_t scalar[8], buf[64];
    uint64_t buf_flags, local_size, null_size;
    aoe_job_arg_kind kinds[4];
    char kernel[64], call_site[64], runtime[16], source[64], options[32];
} g;

static void call_site(char *out, size_t len)
{
    snprintf(out, len, "libtest.so:caller");
}
static void refresh(aoe_op *op)
{
    (void)op;
    g.refreshes++;
}
static int allows(const char *name)
{
    return strcmp(name, "filtered") != 0;
}
static void not_tuned(const char *name, int reason, const char *detail)
{
    (void)name;
    (void)detail;
    g.notes++;
    g.last_reason = reason;
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
    g.submitted++;
    g.job = *job;
    snprintf(g.kernel, sizeof g.kernel, "%s", job->kernel_name);
    snprintf(g.call_site, sizeof g.call_site, "%s", job->call_site);
    snprintf(g.runtime, sizeof g.runtime, "%s", job->runtime);
    snprintf(g.source, sizeof g.source, "%s", job->source ? job->source : "");
    snprintf(g.options, sizeof g.options, "%s", job->options);
    for (uint32_t i = 0; i < job->nargs && i < 4; i++) g.kinds[i] = job->args[i].kind;
    if (job->nargs == 4) {
        memcpy(g.scalar, job->args[0].data, job->args[0].size);
        g.buf_flags = job->args[1].flags;
        if (job->args[1].data) memcpy(g.buf, job->args[1].data, job->args[1].size);
        g.local_size = job->args[2].size;
        g.null_size = job->args[3].size;
    }
    g.job.args = NULL; /* freed by the core */
    return 1;
}
static void tuner_spawn(void)
{
    g.spawned++;
}
/* Kernels named "plain*" have no tunables declaration, the others one. */
static aoe_tunable_kernel g_decl;
static const aoe_tunable_kernel *tunables(const char *runtime, const char *kernel,
                                          const char *source, aoe_hash128 program)
{
    (void)runtime;
    (void)source;
    (void)program;
    return strncmp(kernel, "plain", 5) ? &g_decl : NULL;
}

static aoe_launch_host g_host = {
    .version = AOE_LAUNCH_HOST_VERSION,
    .capture = 1,
    .capture_limit = 1 << 20,
    .spool_dir = "/spool",
    .call_site = call_site,
    .refresh = refresh,
    .allows = allows,
    .not_tuned = not_tuned,
    .tunables = tunables,
    .spool_has = spool_has,
    .spool_full = spool_full,
    .spool_submit = spool_submit,
    .tuner_spawn = tuner_spawn,
};

/* ---- the fake runtime */
static void limits(const aoe_launch_desc *d, uint64_t *max_wg, uint64_t max_item[3])
{
    (void)d;
    *max_wg = 256;
    max_item[0] = max_item[1] = 256;
    max_item[2] = 64;
}
static void buffer(const aoe_launch_desc *d, uint32_t i, aoe_job_arg *ja, uint64_t limit)
{
    (void)d;
    (void)i;
    ja->flags = 7;
    if (ja->size <= limit && (ja->data = malloc(ja->size))) memset(ja->data, 0xab, ja->size);
}
static const aoe_launch_runtime g_rt = {.limits = limits, .buffer = buffer};

static int32_t g_n = 1234;
static aoe_arg_shape g_shapes[4];
static size_t g_global[3] = {1024, 16, 1}, g_local[3] = {64, 4, 1};

/* A launch of a 2-D kernel with a scalar, a 64-byte buffer, 32 bytes of
 * local memory and a NULL pointer; kpart tells the tests' operators apart. */
static aoe_launch_desc desc(uint64_t kpart, const char *name)
{
    memset(&g, 0, sizeof g);
    aoe_launch_set_host(&g_host);
    g_shapes[0] = (aoe_arg_shape){AOE_ARGK_SCALAR, sizeof g_n, 0, (const uint8_t *)&g_n};
    g_shapes[1] = (aoe_arg_shape){AOE_ARGK_BUFFER, 0, 64, NULL};
    g_shapes[2] = (aoe_arg_shape){AOE_ARGK_LOCAL, 0, 32, NULL};
    g_shapes[3] = (aoe_arg_shape){AOE_ARGK_NULLMEM, 0, 0, NULL};
    return (aoe_launch_desc){
        .rt = &g_rt,
        .runtime = "testrt",
        .fingerprint = "testrt|dev",
        .kpart = kpart,
        .kernel_name = name,
        .source = "kernel source",
        .options = "-DX=1",
        .dim = 2,
        .global = g_global,
        .local = g_local,
        .nargs = 4,
        .shapes = g_shapes,
    };
}

Test(launch_sight, first_sight_captures_the_job_once)
{
    aoe_launch_desc d = desc(0x1001, "k");
    aoe_sight s = {0};
    aoe_op *op = aoe_launch_resolve(&s, &d);
    cr_assert_not_null(op);
    aoe_key key = aoe_opkey_launch(d.kpart, d.dim, d.global, d.local, d.nargs, d.shapes);
    cr_assert(op->key.hi == key.hi && op->key.lo == key.lo, "the operator key of the launch");
    cr_assert_str_eq(op->kernel_name, "k");
    cr_assert_str_eq(op->call_site, "libtest.so:caller");
    cr_assert_eq(atomic_load(&op->sighted), 1);
    cr_assert_eq(g.refreshes, 1, "the bank asked once");
    const aoe_launch_shape *ls = atomic_load(&op->shape);
    cr_assert_not_null(ls);
    cr_assert(ls->dim == 2 && ls->has_local && ls->global[0] == 1024 && ls->local[1] == 4);
    cr_assert(ls->max_wg == 256 && ls->max_item[2] == 64, "the runtime's device limits");
    /* the job: from the description and the runtime's buffer contents */
    cr_assert_eq(g.submitted, 1);
    cr_assert_eq(g.spawned, 1);
    cr_assert_eq(op->job_written, 1);
    cr_assert_str_eq(g.runtime, "testrt");
    cr_assert_str_eq(g.kernel, "k");
    cr_assert_str_eq(g.source, "kernel source");
    cr_assert_str_eq(g.options, "-DX=1");
    cr_assert_str_eq(g.call_site, "libtest.so:caller");
    cr_assert(g.job.key.hi == key.hi && g.job.key.lo == key.lo);
    cr_assert(g.job.work_dim == 2 && g.job.global[1] == 16 && g.job.local[0] == 64 &&
              g.job.has_local);
    cr_assert_eq(g.job.nargs, 4);
    cr_assert(g.kinds[0] == AOE_JOB_ARG_SCALAR && g.kinds[1] == AOE_JOB_ARG_BUFFER &&
              g.kinds[2] == AOE_JOB_ARG_LOCAL && g.kinds[3] == AOE_JOB_ARG_NULLMEM);
    cr_assert(!memcmp(g.scalar, &g_n, sizeof g_n), "scalar bytes by value");
    cr_assert(g.buf_flags == 7 && g.buf[0] == 0xab && g.buf[63] == 0xab, "buffer from the runtime");
    cr_assert_eq(g.local_size, 32);
    cr_assert_eq(g.null_size, sizeof(void *));
    cr_assert_eq(s.ops_created, 1);
    cr_assert_eq(s.captures, 1);
    /* the same launch again: the same operator, no second first sight */
    cr_assert_eq(aoe_launch_resolve(&s, &d), op);
    cr_assert_eq(g.submitted, 1);
    cr_assert_eq(g.refreshes, 1);
    cr_assert_eq(s.ops_created, 1);
}

Test(launch_sight, no_capture_when_off_filtered_queued_or_full)
{
    aoe_launch_desc d = desc(0x2001, "k");
    aoe_sight s = {0};
    g_host.capture = 0;
    aoe_op *op = aoe_launch_resolve(&s, &d);
    g_host.capture = 1;
    cr_assert_not_null(op);
    cr_assert(g.submitted == 0 && op->not_tuned == 0 && g.notes == 0, "off: no capture");

    d = desc(0x2002, "filtered");
    op = aoe_launch_resolve(&s, &d);
    cr_assert(g.submitted == 0 && op->not_tuned == AOE_NT_FILTERED && g.notes == 1);

    d = desc(0x2003, "k");
    g.has = 1; /* the spool holds the key already: the tuner is started */
    op = aoe_launch_resolve(&s, &d);
    cr_assert(g.submitted == 0 && g.spawned == 1 && op->not_tuned == 0);

    d = desc(0x2004, "k");
    g.full = 1;
    op = aoe_launch_resolve(&s, &d);
    cr_assert(g.submitted == 0 && op->not_tuned == AOE_NT_SPOOL_FULL &&
              g.last_reason == AOE_NT_SPOOL_FULL);
}

Test(launch_sight, limits_per_kernel_object)
{
    aoe_launch_desc d = desc(0x3001, "k");
    aoe_sight s = {0};
    size_t gl[3] = {1, 1, 1};
    d.global = gl;
    d.local = NULL;
    /* 16 jobs per kernel object, then operators are noted instead */
    for (int i = 0; i < AOE_MAX_CAPTURES_PER_KERNEL + 1; i++) {
        gl[0] = 100 + (size_t)i;
        cr_assert_not_null(aoe_launch_resolve(&s, &d));
    }
    cr_assert_eq(g.submitted, AOE_MAX_CAPTURES_PER_KERNEL);
    cr_assert_eq(g.last_reason, AOE_NT_CAPTURE_LIMIT);
    /* 64 operators per kernel object, then only existing ones are found */
    for (int i = AOE_MAX_CAPTURES_PER_KERNEL + 1; i < AOE_MAX_OPS_PER_KERNEL; i++) {
        gl[0] = 100 + (size_t)i;
        cr_assert_not_null(aoe_launch_resolve(&s, &d));
    }
    cr_assert_eq(s.ops_created, AOE_MAX_OPS_PER_KERNEL);
    /* past it, a NULL-local launch gets one operator per family (here every
     * global size is a family of its own), 16 of them */
    for (int i = 0; i < AOE_MAX_FAMILY_OPS_PER_KERNEL; i++) {
        gl[0] = 50000 + (size_t)i;
        aoe_op *f = aoe_launch_resolve(&s, &d);
        cr_assert(f && f->family_op && f->family_set);
    }
    int notes = g.notes;
    gl[0] = 100000;
    cr_assert_null(aoe_launch_resolve(&s, &d), "a new shape past both limits passes");
    cr_assert(g.last_reason == AOE_NT_OPS_LIMIT && g.notes == notes + 1);
    gl[0] = 100001;
    cr_assert_null(aoe_launch_resolve(&s, &d));
    cr_assert_eq(g.notes, notes + 1, "noted once");
    gl[0] = 50000; /* a family operator still resolves */
    cr_assert_not_null(aoe_launch_resolve(&s, &d));
    gl[0] = 100; /* an operator it created still resolves */
    cr_assert_not_null(aoe_launch_resolve(&s, &d));
}

/* Item 4 of issue 16: nothing tunable at first sight (the program's own
 * local size, no declaration, no #ifndef default the tuner would vary):
 * nothing captured, the operator noted under its reason. */
Test(launch_sight, own_local_size_without_declaration_is_not_captured)
{
    aoe_launch_desc d = desc(0x4001, "plain_own");
    aoe_sight s = {0};
    aoe_op *op = aoe_launch_resolve(&s, &d);
    cr_assert_not_null(op, "its launches are still counted on an operator");
    cr_assert_eq(g.submitted, 0, "nothing captured");
    cr_assert_eq(s.captures, 0, "no capture counted against the kernel object");
    cr_assert_eq(op->not_tuned, AOE_NT_OWN_LOCAL);
    cr_assert(g.notes == 1 && g.last_reason == AOE_NT_OWN_LOCAL);
    cr_assert_eq(atomic_load(&op->sighted), 1);
    cr_assert_eq(g.refreshes, 1, "the bank is still asked (a policy may exist)");

    /* a NULL local size: the work-group size is tunable, captured as before */
    d = desc(0x4002, "plain_null");
    d.local = NULL;
    op = aoe_launch_resolve(&s, &d);
    cr_assert(g.submitted == 1 && op->not_tuned == 0 && !g.job.has_local);

    /* its own local size and a declaration: captured */
    d = desc(0x4003, "declared");
    op = aoe_launch_resolve(&s, &d);
    cr_assert(g.submitted == 1 && op->not_tuned == 0 && g.job.has_local);
}

/* AOE_AUTO_DEFINES: an #ifndef default makes a kernel with its own local
 * size tunable (the tuner's scanner decides), none leaves it untuned; with
 * auto-defines off a default does not count. */
Test(launch_sight, auto_defines_decide_with_the_tuners_scanner)
{
    static const char with_default[] = "#ifndef TS\n#define TS 16\n#endif\n__kernel void k() {}\n";
    static const char fixed_by_options[] = "#ifndef TS\n#define TS 16\n#endif\n";
    static const char without[] = "#define TS 16\n__kernel void k() {}\n";
    aoe_sight s = {0};
    g_host.auto_defines = 1;
    aoe_launch_desc d = desc(0x5001, "plain_auto");
    d.source = with_default;
    aoe_op *op = aoe_launch_resolve(&s, &d);
    cr_assert(g.submitted == 1 && op->not_tuned == 0, "a default to vary: captured");

    d = desc(0x5002, "plain_auto");
    d.source = without;
    op = aoe_launch_resolve(&s, &d);
    cr_assert(g.submitted == 0 && op->not_tuned == AOE_NT_OWN_LOCAL, "no default: not captured");

    d = desc(0x5003, "plain_auto");
    d.source = fixed_by_options;
    d.options = "-DTS=32";
    op = aoe_launch_resolve(&s, &d);
    cr_assert(g.submitted == 0 && op->not_tuned == AOE_NT_OWN_LOCAL,
              "a default the build options fix is not tunable");

    g_host.auto_defines = 0;
    d = desc(0x5004, "plain_auto");
    d.source = with_default;
    op = aoe_launch_resolve(&s, &d);
    cr_assert(g.submitted == 0 && op->not_tuned == AOE_NT_OWN_LOCAL,
              "auto-defines off: a default does not count");
}

Test(launch_sight, arguments_must_all_be_set)
{
    aoe_arg_shape sh[2] = {{AOE_ARGK_SCALAR, 4, 0, (const uint8_t *)&g_n},
                           {AOE_ARGK_UNSET, 0, 0, NULL}};
    cr_assert_eq(aoe_launch_args_set(2, sh), 0);
    cr_assert_eq(aoe_launch_args_set(1, sh), 1);
}

/* ---- variants */
typedef struct {
    aoe_variant base;
    int built;
} test_variant;

static int g_order[8], g_norder;
static int build_one(aoe_variant *v, void *ctx)
{
    test_variant *tv = (test_variant *)v;
    tv->built = 1;
    atomic_store(&v->state, AOE_VAR_READY);
    g_order[g_norder++] = v->defines[5] - '0'; /* " -DT=n" */
    return g_norder == *(int *)ctx ? -1 : 0;
}

Test(launch_sight, variant_list_and_queue)
{
    aoe_variant_list list = NULL;
    aoe_variant_queue q = {NULL};
    test_variant v[4];
    memset(v, 0, sizeof v);
    const char *defs[4] = {" -DT=1", " -DT=2", " -DT=3", " -DU=4"};
    for (int i = 0; i < 4; i++) {
        cr_assert_eq(aoe_variant_init(&v[i].base, defs[i], "k", i == 3), 0);
        aoe_variant_add(&list, &v[i].base);
    }
    cr_assert_eq(aoe_variant_find(&list, " -DT=2"), &v[1].base);
    cr_assert_null(aoe_variant_find(&list, " -DT=9"));
    cr_assert_eq(atomic_load(&v[3].base.state), AOE_VAR_FAILED, "bad from the start");
    cr_assert_eq(atomic_load(&v[0].base.state), AOE_VAR_PENDING);
    for (int i = 0; i < 3; i++) aoe_variant_request(&q, &v[i].base);
    int stop_after = 2; /* the builder stops the drain (exit begun): the rest dropped */
    aoe_variant_drain(&q, build_one, &stop_after);
    cr_assert_eq(g_norder, 2);
    cr_assert(g_order[0] == 3 && g_order[1] == 2, "newest first");
    cr_assert(!v[0].built && v[1].built && v[2].built);
    cr_assert_null(atomic_load(&q.head), "the queue was taken whole");
    for (int i = 0; i < 4; i++) free(v[i].base.defines);
}

Test(launch_sight, variant_never_overrides_the_programs_macros)
{
    cr_assert_eq(aoe_variant_overrides("-DTILE=16 -cl-fast", " -DTILE=8"), 1);
    cr_assert_eq(aoe_variant_overrides("-D TILE", " -DTILE=8"), 1);
    cr_assert_eq(aoe_variant_overrides("-DTILES=16", " -DTILE=8"), 0);
    cr_assert_eq(aoe_variant_overrides("", " -DTILE=8 -DWPT=2"), 0);
    cr_assert_eq(aoe_variant_overrides(NULL, " -DTILE=8"), 0);
    cr_assert_eq(aoe_variant_overrides("", " -D=8"), 1, "malformed");
}

/* A grid launch (CUDA): the job says so (launch kind, dynamic shared bytes,
 * the option list, runtime_extra), the policy check sees threads; a launch
 * the runtime forbids capturing makes its operator, listed, never captured.
 * An OpenCL description leaves all of it zero. */
Test(launch_sight, grid_launch_and_not_capturable)
{
    aoe_launch_desc d = desc(0x7001, "k");
    aoe_sight s = {0};
    aoe_op *op = aoe_launch_resolve(&s, &d);
    cr_assert(g.job.launch_kind == AOE_LAUNCH_GLOBAL_LOCAL && !g.job.dynamic_shared_bytes &&
              !g.job.option_list && !g.job.noptions && !g.job.runtime_extra);
    cr_assert_eq(atomic_load(&op->shape)->global[0], 1024);

    static const char *const opts[] = {"-DX=1", "--gpu-architecture=sm_90"};
    d = desc(0x7002, "k");
    d.launch_kind = AOE_LAUNCH_GRID_BLOCK;
    d.dynamic_shared_bytes = 512;
    d.option_list = opts;
    d.noptions = 2;
    d.runtime_extra = "{\"image\":\"cubin\"}";
    op = aoe_launch_resolve(&s, &d);
    cr_assert_eq(g.submitted, 1);
    cr_assert(g.job.launch_kind == AOE_LAUNCH_GRID_BLOCK && g.job.dynamic_shared_bytes == 512);
    cr_assert(g.job.noptions == 2 && !strcmp(g.job.option_list[1], "--gpu-architecture=sm_90"));
    cr_assert_str_eq(g.job.runtime_extra, "{\"image\":\"cubin\"}");
    cr_assert(g.job.grid[0] == 1024 && g.job.block[1] == 4, "grid and block as described");
    const aoe_launch_shape *ls = atomic_load(&op->shape);
    cr_assert(ls->global[0] == 1024 * 64 && ls->global[1] == 16 * 4 && ls->local[0] == 64,
              "the policy check sees threads");

    d = desc(0x7003, "k");
    d.launch_kind = AOE_LAUNCH_GRID_BLOCK;
    d.not_capturable = AOE_NT_GRAPH_CAPTURE;
    op = aoe_launch_resolve(&s, &d);
    cr_assert_not_null(op);
    cr_assert(g.submitted == 0 && op->not_tuned == AOE_NT_GRAPH_CAPTURE &&
              g.last_reason == AOE_NT_GRAPH_CAPTURE);
}

/* Keys across runs: a NULL-local launch gets its family key at first sight
 * (scalar values left out unless the declaration lists them); a second
 * operator of a family captured in this process is not captured. */
Test(launch_sight, family_captured_once_per_process)
{
    aoe_launch_desc d = desc(0x7301, "plain_family");
    d.local = NULL;
    aoe_sight s = {0};
    aoe_op *a = aoe_launch_resolve(&s, &d);
    cr_assert_not_null(a);
    aoe_key fam = aoe_opkey_family(d.kpart, d.dim, d.global, d.nargs, d.shapes, 0);
    cr_assert(a->family_set && a->family.hi == fam.hi && a->family.lo == fam.lo);
    cr_assert_eq(a->family_scalars, 0);
    cr_assert(g.submitted == 1 && a->not_tuned == 0);

    g_n = 99; /* another scalar value: another operator, the same family */
    aoe_op *b = aoe_launch_resolve(&s, &d);
    cr_assert(b && b != a);
    cr_assert(b->family.hi == fam.hi && b->family.lo == fam.lo);
    cr_assert_eq(g.submitted, 1, "not captured again");
    cr_assert_eq(b->not_tuned, AOE_NT_FAMILY_QUEUED);
    cr_assert(g.notes == 1 && g.last_reason == AOE_NT_FAMILY_QUEUED);
    cr_assert_eq(g.refreshes, 2, "the bank asked (the family's record may be there)");
    g_n = 1234;

    /* the program's own local size: no family */
    d = desc(0x7302, "declared_own");
    aoe_op *c = aoe_launch_resolve(&s, &d);
    cr_assert(c && !c->family_set && g.submitted == 1);
}

Test(launch_sight, declared_scalars_keep_their_values_in_the_family)
{
    g_decl.has_scalars = 1;
    g_decl.scalars = 1; /* argument 0, the scalar */
    aoe_launch_desc d = desc(0x7101, "declared_family");
    d.local = NULL;
    aoe_sight s = {0};
    aoe_op *a = aoe_launch_resolve(&s, &d);
    cr_assert(a && a->family_set && a->family_scalars == 1 && g.submitted == 1);
    aoe_key fam = aoe_opkey_family(d.kpart, d.dim, d.global, d.nargs, d.shapes, 1);
    cr_assert(a->family.hi == fam.hi && a->family.lo == fam.lo);
    g_n = 99; /* a listed scalar's other value: another family, captured */
    aoe_op *b = aoe_launch_resolve(&s, &d);
    cr_assert(b && b != a && g.submitted == 2 && b->not_tuned == 0);
    cr_assert(b->family.hi != a->family.hi || b->family.lo != a->family.lo);
    g_n = 1234;
    g_decl.has_scalars = 0;
    g_decl.scalars = 0;
}

/* A kernel whose scalar changes at every launch (ffmpeg's nlmeans): past
 * the operator limit its launches resolve to one operator keyed by their
 * family, which a family record serves; the program's own local size never
 * gets one. */
Test(launch_sight, scalars_past_the_operator_limit_share_a_family_operator)
{
    aoe_launch_desc d = desc(0x7201, "plain_many");
    d.local = NULL;
    aoe_sight s = {0};
    aoe_op *first = NULL;
    for (int i = 0; i < AOE_MAX_OPS_PER_KERNEL; i++) {
        g_n = 1000 + i;
        aoe_op *op = aoe_launch_resolve(&s, &d);
        cr_assert_not_null(op);
        if (!first) first = op;
    }
    cr_assert_eq(g.submitted, 1, "one family, one job");
    g_n = 5000;
    aoe_op *f = aoe_launch_resolve(&s, &d);
    cr_assert(f && f->family_op && f != first);
    aoe_key fam = aoe_opkey_family(d.kpart, d.dim, d.global, d.nargs, d.shapes, 0);
    cr_assert(f->key.hi == fam.hi && f->key.lo == fam.lo, "keyed by its family");
    cr_assert(f->family.hi == first->family.hi && f->family.lo == first->family.lo);
    cr_assert_eq(f->not_tuned, AOE_NT_FAMILY_QUEUED, "its family was captured already");
    cr_assert_eq(g.submitted, 1);
    for (int i = 0; i < 10; i++) {
        g_n = 6000 + i;
        cr_assert_eq(aoe_launch_resolve(&s, &d), f, "every later value: the same operator");
    }
    cr_assert_eq(s.family_ops, 1);

    d = desc(0x7202, "plain_own_local"); /* the program's own local size: no family */
    aoe_sight t = {0};
    for (int i = 0; i < AOE_MAX_OPS_PER_KERNEL; i++) {
        g_n = 1000 + i;
        cr_assert_not_null(aoe_launch_resolve(&t, &d));
    }
    g_n = 5000;
    cr_assert_null(aoe_launch_resolve(&t, &d));
    g_n = 1234;
}
