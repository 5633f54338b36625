/* Job files: round trip (every argument kind, binary programs, a large
 * captured buffer), the operator key as the shim computes it, and a message
 * naming the field for every kind of bad input, in format 1 (still read) and
 * format 2 (written). */
#include "core/base64.h"
#include "jobs/job.h"
#include "store/opkey.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];
static uint8_t scalar4[4] = {1, 2, 3, 4};
static uint8_t bufdata[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 255};
static aoe_job_arg sample_args[5];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/aoe_test_job.XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
}

static aoe_job sample_job(void)
{
    aoe_job j;
    memset(&j, 0, sizeof j);
    sample_args[0] = (aoe_job_arg){AOE_JOB_ARG_SCALAR, 4, 0, scalar4, AOE_ELEM_I32};
    sample_args[1] = (aoe_job_arg){AOE_JOB_ARG_BUFFER, 16, 4, bufdata, AOE_ELEM_F32};
    sample_args[2] = (aoe_job_arg){AOE_JOB_ARG_BUFFER, 4096, 2, NULL, AOE_ELEM_F16};
    sample_args[3] = (aoe_job_arg){AOE_JOB_ARG_LOCAL, 1024, 0, NULL, AOE_ELEM_F64};
    sample_args[4] = (aoe_job_arg){AOE_JOB_ARG_NULLMEM, 0, 0, NULL, AOE_ELEM_BYTES};
    j.format = AOE_JOB_FORMAT;
    j.runtime = "opencl";
    j.fingerprint = "opencl|Vendor|Device \"x\"|1.0|cu=4";
    j.source = "__kernel void k(global float *a) {\n\ta[0] = 1.0f; // \"quoted\" \\ \x01\n}\n";
    j.options = "-DA=1  -cl-mad-enable";
    j.kernel_name = "k";
    j.work_dim = 2;
    j.global[0] = 64, j.global[1] = 32;
    j.local[0] = 8, j.local[1] = 4;
    j.has_local = 1;
    j.nargs = 5;
    j.args = sample_args;
    j.call_site = "libfoo.so:run";
    j.space_json = "{\"parameters\":[{\"name\":\"X\",\"values\":[1,2],\"default\":1}]}";
    j.max_evals = 77;
    j.time_limit_s = 12.5;
    j.repeat_tune = 1;
    j.key = aoe_job_compute_key(&j);
    return j;
}

static char *path_of(const char *name)
{
    static char p[128];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    return s;
}

TestSuite(job, .init = setup, .fini = teardown);

Test(job, round_trip_keeps_every_field)
{
    aoe_job j = sample_job(), r;
    char err[256] = "";
    cr_assert_eq(aoe_job_write(path_of("a.job"), &j), 0, "%s", strerror(errno));
    struct stat st;
    cr_assert_eq(stat(path_of("a.job"), &st), 0);
    cr_expect_eq(st.st_mode & 0777, 0600);
    cr_assert_eq(aoe_job_read(path_of("a.job"), &r, err, sizeof err), 0, "%s", err);
    cr_expect_str_eq(r.runtime, "opencl");
    cr_expect_str_eq(r.fingerprint, j.fingerprint);
    cr_expect_str_eq(r.source, j.source);
    cr_expect_null(r.binary);
    cr_expect_str_eq(r.options, j.options);
    cr_expect_str_eq(r.kernel_name, "k");
    cr_expect_eq(r.work_dim, 2);
    cr_expect_eq(r.global[0], 64);
    cr_expect_eq(r.global[1], 32);
    cr_expect_eq(r.has_local, 1);
    cr_expect_eq(r.local[0], 8);
    cr_expect_eq(r.local[1], 4);
    cr_assert_eq(r.nargs, 5);
    cr_expect_eq(r.args[0].kind, AOE_JOB_ARG_SCALAR);
    cr_expect_eq(memcmp(r.args[0].data, scalar4, 4), 0);
    cr_expect_eq(r.args[1].kind, AOE_JOB_ARG_BUFFER);
    cr_expect_eq(r.args[1].flags, 4);
    cr_expect_eq(memcmp(r.args[1].data, bufdata, 16), 0);
    cr_expect_eq(r.args[2].size, 4096);
    cr_expect_null(r.args[2].data, "synthetic buffer has no data");
    cr_expect_eq(r.args[3].kind, AOE_JOB_ARG_LOCAL);
    cr_expect_eq(r.args[3].size, 1024);
    cr_expect_eq(r.args[4].kind, AOE_JOB_ARG_NULLMEM);
    cr_expect_eq(r.key.hi, j.key.hi);
    cr_expect_eq(r.key.lo, j.key.lo);
    cr_expect_str_eq(r.call_site, "libfoo.so:run");
    cr_assert_not_null(r.space_json);
    cr_expect_not_null(strstr(r.space_json, "\"values\":[1,2]"));
    cr_expect_eq(r.max_evals, 77);
    cr_expect_float_eq(r.time_limit_s, 12.5, 1e-12);
    cr_expect_eq(r.repeat_tune, 1);
    aoe_job_free(&r);
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path_of("a.job"), (long)getpid());
    cr_expect_eq(access(tmp, F_OK), -1, "temporary file left behind");
}

Test(job, binary_program_null_local_and_empty_options)
{
    aoe_job j = sample_job(), r;
    uint8_t bin[300];
    for (int i = 0; i < 300; i++) bin[i] = (uint8_t)(i * 31);
    j.source = NULL;
    j.binary = bin;
    j.binary_size = sizeof bin;
    j.has_local = 0;
    j.options = "";
    j.call_site = NULL;
    j.space_json = NULL;
    j.repeat_tune = 0;
    j.key = aoe_job_compute_key(&j);
    char err[256] = "";
    cr_assert_eq(aoe_job_write(path_of("b.job"), &j), 0);
    cr_assert_eq(aoe_job_read(path_of("b.job"), &r, err, sizeof err), 0, "%s", err);
    cr_expect_null(r.source);
    cr_assert_eq(r.binary_size, sizeof bin);
    cr_expect_eq(memcmp(r.binary, bin, sizeof bin), 0);
    cr_expect_eq(r.has_local, 0);
    cr_expect_str_eq(r.options, "");
    cr_expect_null(r.call_site);
    cr_expect_null(r.space_json);
    cr_expect_eq(r.repeat_tune, 0);
    aoe_job_free(&r);
}

Test(job, large_buffer_round_trip)
{
    enum { BIG = 24 << 20 }; /* tens of MB: must be linear, not quadratic */
    aoe_job j = sample_job(), r;
    uint8_t *big = malloc(BIG);
    cr_assert_not_null(big);
    for (size_t i = 0; i < BIG; i++) big[i] = (uint8_t)(i * 2654435761u >> 13);
    sample_args[2] = (aoe_job_arg){AOE_JOB_ARG_BUFFER, BIG, 1, big, AOE_ELEM_F32};
    j.key = aoe_job_compute_key(&j);
    char err[256] = "";
    cr_assert_eq(aoe_job_write(path_of("big.job"), &j), 0);
    cr_assert_eq(aoe_job_read(path_of("big.job"), &r, err, sizeof err), 0, "%s", err);
    cr_assert_eq(r.args[2].size, BIG);
    cr_expect_eq(memcmp(r.args[2].data, big, BIG), 0);
    aoe_job_free(&r);
    free(big);
}

Test(job, key_is_the_shims_formula)
{
    aoe_job j = sample_job();
    aoe_hash128 prog = aoe_program_hash(j.source, strlen(j.source));
    uint64_t kpart = aoe_opkey_kernel(j.fingerprint, prog, "k", j.options);
    aoe_arg_shape shapes[5] = {{AOE_ARGK_SCALAR, 4, 0, scalar4},
                               {AOE_ARGK_BUFFER, 0, 16, NULL},
                               {AOE_ARGK_BUFFER, 0, 4096, NULL},
                               {AOE_ARGK_LOCAL, 0, 1024, NULL},
                               {AOE_ARGK_NULLMEM, 0, 0, NULL}};
    size_t g[2] = {64, 32}, l[2] = {8, 4};
    aoe_key want = aoe_opkey_launch(kpart, 2, g, l, 5, shapes);
    cr_expect_eq(j.key.hi, want.hi);
    cr_expect_eq(j.key.lo, want.lo);
    /* NULL local size is a different operator from an explicit one */
    j.has_local = 0;
    aoe_key k2 = aoe_job_compute_key(&j);
    cr_expect(k2.hi != want.hi || k2.lo != want.lo);
    /* scalar bytes are part of the key, buffer contents are not */
    j.has_local = 1;
    bufdata[0] ^= 1;
    aoe_key k3 = aoe_job_compute_key(&j);
    bufdata[0] ^= 1;
    cr_expect(k3.hi == want.hi && k3.lo == want.lo);
    scalar4[0] ^= 1;
    aoe_key k4 = aoe_job_compute_key(&j);
    scalar4[0] ^= 1;
    cr_expect(k4.hi != want.hi || k4.lo != want.lo);
}

static void add_sizes(cJSON *o, const char *name, const uint64_t *v, uint32_t n)
{
    cJSON *a = cJSON_AddArrayToObject(o, name);
    for (uint32_t d = 0; d < n; d++) cJSON_AddItemToArray(a, cJSON_CreateNumber((double)v[d]));
}

static void add_b64(cJSON *o, const char *name, const uint8_t *data, uint64_t n)
{
    char *t = malloc(aoe_b64_encoded_len((size_t)n) + 1);
    cr_assert_not_null(t);
    aoe_b64_encode(data, (size_t)n, t);
    t[aoe_b64_encoded_len((size_t)n)] = '\0';
    cJSON_AddStringToObject(o, name, t);
    free(t);
}

/* A job as format 1 wrote it (the writer writes format 2 only), for the
 * format 1 reader's tests. */
static cJSON *format1_json(const aoe_job *j)
{
    char hex[33];
    cJSON *r = cJSON_CreateObject();
    cJSON_AddNumberToObject(r, "format", 1);
    cJSON_AddStringToObject(r, "runtime", j->runtime);
    cJSON_AddStringToObject(r, "fingerprint", j->fingerprint);
    cJSON_AddStringToObject(r, "kernel_name", j->kernel_name);
    if (j->source)
        cJSON_AddStringToObject(r, "source", j->source);
    else
        add_b64(r, "binary_b64", j->binary, j->binary_size);
    cJSON_AddStringToObject(r, "options", j->options);
    cJSON_AddNumberToObject(r, "work_dim", j->work_dim);
    add_sizes(r, "global", j->global, j->work_dim);
    if (j->has_local)
        add_sizes(r, "local", j->local, j->work_dim);
    else
        cJSON_AddNullToObject(r, "local");
    cJSON *args = cJSON_AddArrayToObject(r, "args");
    static const char *const kinds[] = {"scalar", "buffer", "local", "null"};
    for (uint32_t i = 0; i < j->nargs; i++) {
        const aoe_job_arg *a = &j->args[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "kind", kinds[a->kind]);
        if (a->kind != AOE_JOB_ARG_NULLMEM) cJSON_AddNumberToObject(o, "size", (double)a->size);
        if (a->kind == AOE_JOB_ARG_BUFFER) cJSON_AddNumberToObject(o, "flags", (double)a->flags);
        if (a->data)
            add_b64(o, "data_b64", a->data, a->size);
        else if (a->kind == AOE_JOB_ARG_BUFFER)
            cJSON_AddTrueToObject(o, "synthetic");
        cJSON_AddItemToArray(args, o);
    }
    aoe_key_to_hex(&j->key, hex);
    cJSON_AddStringToObject(r, "key", hex);
    if (j->call_site)
        cJSON_AddStringToObject(r, "call_site", j->call_site);
    else
        cJSON_AddNullToObject(r, "call_site");
    cJSON_AddBoolToObject(r, "repeat_tune", j->repeat_tune);
    if (j->space_json) cJSON_AddItemToObject(r, "space", cJSON_Parse(j->space_json));
    cJSON *b = cJSON_AddObjectToObject(r, "budget");
    cJSON_AddNumberToObject(b, "max_evals", j->max_evals);
    cJSON_AddNumberToObject(b, "time_limit_s", j->time_limit_s);
    return r;
}

/* The sample job's JSON in a format (2: as the writer writes it), a mutation
 * applied, then parsed. */
typedef void (*mutation)(cJSON *root);

static cJSON *sample_json(int format)
{
    aoe_job j = sample_job();
    if (format == 1) return format1_json(&j);
    cr_assert_eq(aoe_job_write(path_of("m.job"), &j), 0);
    char *text = slurp(path_of("m.job"));
    cJSON *root = cJSON_Parse(text);
    free(text);
    cr_assert_not_null(root);
    return root;
}

static void expect_error_in(int format, mutation m, const char *field_prefix)
{
    aoe_job r;
    cJSON *root = sample_json(format);
    m(root);
    char *out = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    char err[512] = "";
    int rc = aoe_job_parse(out, strlen(out), &r, err, sizeof err);
    cJSON_free(out);
    cr_expect_eq(rc, -1, "format %d: accepted a job that should fail at %s", format, field_prefix);
    cr_expect_eq(strncmp(err, field_prefix, strlen(field_prefix)), 0,
                 "format %d: expected a message starting with \"%s\", got \"%s\"", format,
                 field_prefix, err);
    if (rc == 0) aoe_job_free(&r);
}

static void expect_error(mutation m, const char *field_prefix)
{
    expect_error_in(1, m, field_prefix);
}

static cJSON *arg(cJSON *root, int i)
{
    return cJSON_GetArrayItem(cJSON_GetObjectItem(root, "args"), i);
}
static void set(cJSON *o, const char *k, cJSON *v)
{
    cJSON_ReplaceItemInObject(o, k, v);
}

static void m_format(cJSON *r)
{
    set(r, "format", cJSON_CreateNumber(3)); /* 2 is read since format 2 */
}
static void m_no_format(cJSON *r)
{
    cJSON_DeleteItemFromObject(r, "format");
}
static void m_runtime(cJSON *r)
{
    set(r, "runtime", cJSON_CreateString("Vulkan!")); /* any identifier is read since format 2 */
}
static void m_fingerprint(cJSON *r)
{
    set(r, "fingerprint", cJSON_CreateNumber(3));
}
static void m_kernel(cJSON *r)
{
    set(r, "kernel_name", cJSON_CreateString(""));
}
static void m_both_programs(cJSON *r)
{
    cJSON_AddStringToObject(r, "binary_b64", "AAAA");
}
static void m_no_program(cJSON *r)
{
    cJSON_DeleteItemFromObject(r, "source");
}
static void m_bad_binary(cJSON *r)
{
    cJSON_DeleteItemFromObject(r, "source");
    cJSON_AddStringToObject(r, "binary_b64", "AA*A");
}
static void m_options(cJSON *r)
{
    set(r, "options", cJSON_CreateTrue());
}
static void m_work_dim(cJSON *r)
{
    set(r, "work_dim", cJSON_CreateNumber(4));
}
static void m_work_dim_frac(cJSON *r)
{
    set(r, "work_dim", cJSON_CreateNumber(1.5));
}
static void m_global_len(cJSON *r)
{
    cJSON_DeleteItemFromArray(cJSON_GetObjectItem(r, "global"), 1);
}
static void m_global_zero(cJSON *r)
{
    cJSON_ReplaceItemInArray(cJSON_GetObjectItem(r, "global"), 1, cJSON_CreateNumber(0));
}
static void m_global_missing(cJSON *r)
{
    cJSON_DeleteItemFromObject(r, "global");
}
static void m_local_neg(cJSON *r)
{
    cJSON_ReplaceItemInArray(cJSON_GetObjectItem(r, "local"), 0, cJSON_CreateNumber(-8));
}
static void m_local_type(cJSON *r)
{
    set(r, "local", cJSON_CreateString("8,4"));
}
static void m_args_type(cJSON *r)
{
    set(r, "args", cJSON_CreateObject());
}
static void m_arg_kind(cJSON *r)
{
    set(arg(r, 2), "kind", cJSON_CreateString("image"));
}
static void m_arg_obj(cJSON *r)
{
    cJSON_ReplaceItemInArray(cJSON_GetObjectItem(r, "args"), 3, cJSON_CreateNumber(1));
}
static void m_scalar_size(cJSON *r)
{
    set(arg(r, 0), "size", cJSON_CreateNumber(5));
}
static void m_scalar_zero(cJSON *r)
{
    set(arg(r, 0), "size", cJSON_CreateNumber(0));
}
static void m_scalar_nodata(cJSON *r)
{
    cJSON_DeleteItemFromObject(arg(r, 0), "data_b64");
}
static void m_scalar_b64(cJSON *r)
{
    set(arg(r, 0), "data_b64", cJSON_CreateString("AQID=A=="));
}
static void m_buffer_size(cJSON *r)
{
    set(arg(r, 1), "size", cJSON_CreateNumber(17));
}
static void m_buffer_flags(cJSON *r)
{
    set(arg(r, 1), "flags", cJSON_CreateNumber(-1));
}
static void m_buffer_both(cJSON *r)
{
    cJSON_AddTrueToObject(arg(r, 1), "synthetic");
}
static void m_buffer_neither(cJSON *r)
{
    cJSON_DeleteItemFromObject(arg(r, 2), "synthetic");
}
static void m_buffer_synth_type(cJSON *r)
{
    set(arg(r, 2), "synthetic", cJSON_CreateNumber(1));
}
static void m_local_arg_size(cJSON *r)
{
    set(arg(r, 3), "size", cJSON_CreateString("1024"));
}
static void m_local_arg_data(cJSON *r)
{
    cJSON_AddStringToObject(arg(r, 3), "data_b64", "AAAA");
}
static void m_null_arg_size(cJSON *r)
{
    cJSON_AddNumberToObject(arg(r, 4), "size", 8);
}
static void m_arg_unknown(cJSON *r)
{
    cJSON_AddNumberToObject(arg(r, 1), "offset", 8);
}
static void m_unknown(cJSON *r)
{
    cJSON_AddNumberToObject(r, "binary_64", 1);
}
static void m_key_missing(cJSON *r)
{
    cJSON_DeleteItemFromObject(r, "key");
}
static void m_key_hex(cJSON *r)
{
    set(r, "key", cJSON_CreateString("0123456789abcdefg123456789abcdef"));
}
static void m_key_short(cJSON *r)
{
    set(r, "key", cJSON_CreateString("0123"));
}
static void m_call_site(cJSON *r)
{
    set(r, "call_site", cJSON_CreateNumber(1));
}
static void m_repeat(cJSON *r)
{
    set(r, "repeat_tune", cJSON_CreateString("yes"));
}
static void m_space(cJSON *r)
{
    set(r, "space", cJSON_CreateString("TS"));
}
static void m_budget(cJSON *r)
{
    set(r, "budget", cJSON_CreateNumber(3));
}
static void m_budget_evals(cJSON *r)
{
    set(cJSON_GetObjectItem(r, "budget"), "max_evals", cJSON_CreateNumber(-2));
}
static void m_budget_time(cJSON *r)
{
    set(cJSON_GetObjectItem(r, "budget"), "time_limit_s", cJSON_CreateString("10"));
}

Test(job, every_bad_field_is_named)
{
    struct {
        mutation m;
        const char *field;
    } cases[] = {
        {m_format, "format"},
        {m_no_format, "format"},
        {m_runtime, "runtime"},
        {m_fingerprint, "fingerprint"},
        {m_kernel, "kernel_name"},
        {m_both_programs, "source"},
        {m_no_program, "source"},
        {m_bad_binary, "binary_b64"},
        {m_options, "options"},
        {m_work_dim, "work_dim"},
        {m_work_dim_frac, "work_dim"},
        {m_global_len, "global"},
        {m_global_zero, "global[1]"},
        {m_global_missing, "global"},
        {m_local_neg, "local[0]"},
        {m_local_type, "local"},
        {m_args_type, "args"},
        {m_arg_kind, "args[2].kind"},
        {m_arg_obj, "args[3]"},
        {m_scalar_size, "args[0].data_b64"},
        {m_scalar_zero, "args[0].size"},
        {m_scalar_nodata, "args[0].data_b64"},
        {m_scalar_b64, "args[0].data_b64"},
        {m_buffer_size, "args[1].data_b64"},
        {m_buffer_flags, "args[1].flags"},
        {m_buffer_both, "args[1].data_b64"},
        {m_buffer_neither, "args[2].data_b64"},
        {m_buffer_synth_type, "args[2].synthetic"},
        {m_local_arg_size, "args[3].size"},
        {m_local_arg_data, "args[3].data_b64"},
        {m_null_arg_size, "args[4].size"},
        {m_arg_unknown, "args[1].offset"},
        {m_unknown, "binary_64"},
        {m_key_missing, "key"},
        {m_key_hex, "key"},
        {m_key_short, "key"},
        {m_call_site, "call_site"},
        {m_repeat, "repeat_tune"},
        {m_space, "space"},
        {m_budget, "budget"},
        {m_budget_evals, "budget.max_evals"},
        {m_budget_time, "budget.time_limit_s"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_error(cases[i].m, cases[i].field);
}

static void m_edit_global(cJSON *r)
{
    cJSON_ReplaceItemInArray(cJSON_GetObjectItem(r, "global"), 0, cJSON_CreateNumber(128));
}
static void m_edit_scalar(cJSON *r)
{
    set(arg(r, 0), "data_b64", cJSON_CreateString("AQIDBQ=="));
}
static void m_edit_options(cJSON *r)
{
    set(r, "options", cJSON_CreateString("-DA=2"));
}
static void m_edit_kernel(cJSON *r)
{
    set(r, "kernel_name", cJSON_CreateString("k2"));
}

Test(job, edited_job_fails_the_key_check)
{
    expect_error(m_edit_global, "key: does not match");
    expect_error(m_edit_scalar, "key: does not match");
    expect_error(m_edit_options, "key: does not match");
    expect_error(m_edit_kernel, "key: does not match");
}

Test(job, garbage_and_io_errors)
{
    aoe_job r;
    char err[256];
    const char *bad[] = {"", "{", "[1,2]", "null", "{\"format\":1", "\xff\xfe"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        cr_expect_eq(aoe_job_parse(bad[i], strlen(bad[i]), &r, err, sizeof err), -1, "%zu", i);
        cr_expect_neq(err[0], '\0');
    }
    cr_expect_eq(aoe_job_read(path_of("missing.job"), &r, err, sizeof err), -1);
    cr_expect_not_null(strstr(err, "missing.job"));
    aoe_job j = sample_job();
    cr_expect_eq(aoe_job_write("/nonexistent-dir/x.job", &j), -1);
    cr_expect_eq(errno, ENOENT);
    j.work_dim = 0; /* a job the reader would refuse is never written */
    cr_expect_eq(aoe_job_write(path_of("bad.job"), &j), -1);
    cr_expect_eq(access(path_of("bad.job"), F_OK), -1);
}

Test(job, rewrite_replaces_atomically)
{
    aoe_job j = sample_job(), r;
    char err[256] = "";
    cr_assert_eq(aoe_job_write(path_of("c.job"), &j), 0);
    j.max_evals = 5;
    cr_assert_eq(aoe_job_write(path_of("c.job"), &j), 0);
    cr_assert_eq(aoe_job_read(path_of("c.job"), &r, err, sizeof err), 0, "%s", err);
    cr_expect_eq(r.max_evals, 5);
    aoe_job_free(&r);
}

/* Issue 12 item 21: one JSON object and nothing but white space after it. */
Test(job, trailing_garbage_is_rejected_naming_the_byte)
{
    aoe_job j = sample_job(), r;
    char err[256] = "";
    cr_assert_eq(aoe_job_write(path_of("t.job"), &j), 0);
    char *text = slurp(path_of("t.job"));
    size_t n = strlen(text);
    char *buf = malloc(n + 16);
    cr_assert_not_null(buf);
    snprintf(buf, n + 16, "%s \n\t", text);
    cr_expect_eq(aoe_job_parse(buf, strlen(buf), &r, err, sizeof err), 0, "white space: %s", err);
    aoe_job_free(&r);
    const char *tails[] = {"x", " {}", "\n]", "\n{\"format\":1}"};
    for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++) {
        snprintf(buf, n + 16, "%s%s", text, tails[i]);
        err[0] = '\0';
        cr_expect_eq(aoe_job_parse(buf, strlen(buf), &r, err, sizeof err), -1, "tail %zu accepted",
                     i);
        cr_expect_not_null(strstr(err, "after the JSON object"), "tail %zu: %s", i, err);
    }
    snprintf(buf, n + 16, "%sx", text);
    aoe_job_parse(buf, strlen(buf), &r, err, sizeof err);
    char want[64];
    snprintf(want, sizeof want, "0x78 ('x') at offset %zu", n);
    cr_expect_not_null(strstr(err, want), "%s", err);
    free(buf);
    free(text);
}

/* Issue 12 item 13: a FIFO is refused without waiting for a writer. */
Test(job, fifo_is_refused_without_blocking, .timeout = 10)
{
    aoe_job r;
    char err[256] = "";
    cr_assert_eq(mkfifo(path_of("f.job"), 0600), 0);
    cr_expect_eq(aoe_job_read(path_of("f.job"), &r, err, sizeof err), -1);
    cr_expect_not_null(strstr(err, "not a regular file"), "%s", err);
}
