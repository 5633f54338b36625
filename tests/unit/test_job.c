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
    sample_args[0] = (aoe_job_arg){
        .kind = AOE_JOB_ARG_SCALAR, .size = 4, .flags = 0, .data = scalar4, .elem = AOE_ELEM_I32};
    sample_args[1] = (aoe_job_arg){
        .kind = AOE_JOB_ARG_BUFFER, .size = 16, .flags = 4, .data = bufdata, .elem = AOE_ELEM_F32};
    sample_args[2] = (aoe_job_arg){
        .kind = AOE_JOB_ARG_BUFFER, .size = 4096, .flags = 2, .data = NULL, .elem = AOE_ELEM_F16};
    sample_args[3] = (aoe_job_arg){
        .kind = AOE_JOB_ARG_LOCAL, .size = 1024, .flags = 0, .data = NULL, .elem = AOE_ELEM_F64};
    sample_args[4] = (aoe_job_arg){
        .kind = AOE_JOB_ARG_NULLMEM, .size = 0, .flags = 0, .data = NULL, .elem = AOE_ELEM_BYTES};
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
    j.settings = (aoe_job_settings){
        1, "/home/u/.local/share/aoe/bank", "/t/a.json:/t/b.json", 1, 200, 600.5};
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
    cr_expect_eq(r.settings.present, 1);
    cr_expect_str_eq(r.settings.bank, "/home/u/.local/share/aoe/bank");
    cr_expect_str_eq(r.settings.tunables, "/t/a.json:/t/b.json");
    cr_expect_eq(r.settings.auto_defines, 1);
    cr_expect_eq(r.settings.max_evals, 200);
    cr_expect_float_eq(r.settings.time_limit_s, 600.5, 1e-12);
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
    j.settings = (aoe_job_settings){0};
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
    cr_expect_eq(r.settings.present, 0, "settings not said, yet read");
    cr_expect_null(r.settings.bank);
    cr_expect_null(r.settings.tunables);
    aoe_job_free(&r);
}

/* The program's settings (runtime_extra.settings): never in the key; the
 * bank absolute, every field checked and named. */
Test(job, settings_outside_the_key_and_checked)
{
    aoe_job j = sample_job(), r;
    aoe_key with = aoe_job_compute_key(&j);
    j.settings = (aoe_job_settings){0};
    aoe_key without = aoe_job_compute_key(&j);
    cr_expect(with.hi == without.hi && with.lo == without.lo, "the settings changed the key");
    j.settings = (aoe_job_settings){1, "bank", "", 0, 0, 0};
    errno = 0;
    cr_expect_eq(aoe_job_write(path_of("rel.job"), &j), -1, "a relative bank was written");
    cr_expect_eq(errno, EINVAL);
    j.settings.bank = NULL;
    char err[256] = "";
    cr_assert_eq(aoe_job_write(path_of("nobank.job"), &j), 0);
    cr_assert_eq(aoe_job_read(path_of("nobank.job"), &r, err, sizeof err), 0, "%s", err);
    cr_expect(r.settings.present && !r.settings.bank && !strcmp(r.settings.tunables, "") &&
              !r.settings.auto_defines && !r.settings.max_evals && !r.settings.time_limit_s);
    aoe_job_free(&r);
    j.settings.bank = "/b";
    cr_assert_eq(aoe_job_write(path_of("abs.job"), &j), 0);
    char *text = slurp(path_of("abs.job"));
    cr_assert_not_null(text);
    const char *good = "\"settings\":{\"bank\":\"/b\",\"tunables\":\"\",\"auto_defines\":false}";
    struct {
        const char *text, *field;
    } bad[] = {
        {"\"settings\":{\"bank\":\"b\",\"tunables\":\"\",\"auto_defines\":false}",
         "runtime_extra.settings.bank"},
        {"\"settings\":{\"bank\":\"\",\"tunables\":\"\",\"auto_defines\":false}",
         "runtime_extra.settings.bank"},
        {"\"settings\":{\"bank\":7,\"tunables\":\"\",\"auto_defines\":false}",
         "runtime_extra.settings.bank"},
        {"\"settings\":{\"auto_defines\":false}", "runtime_extra.settings.tunables"},
        {"\"settings\":{\"tunables\":\"\",\"auto_defines\":1}",
         "runtime_extra.settings.auto_defines"},
        {"\"settings\":{\"tunables\":\"\",\"auto_defines\":true,\"x\":1}",
         "runtime_extra.settings.x"},
        {"\"settings\":{\"tunables\":\"\",\"auto_defines\":true,\"max_evals\":-1}",
         "runtime_extra.settings.max_evals"},
        {"\"settings\":{\"tunables\":\"\",\"auto_defines\":true,\"time_limit_s\":\"9\"}",
         "runtime_extra.settings.time_limit_s"},
        {"\"settings\":[]", "runtime_extra.settings"},
    };
    char *at = strstr(text, good);
    cr_assert_not_null(at, "%s", text);
    size_t head = (size_t)(at - text);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *t = malloc(strlen(text) + strlen(bad[i].text) + 1);
        memcpy(t, text, head);
        strcpy(t + head, bad[i].text);
        strcat(t, at + strlen(good));
        cr_expect_eq(aoe_job_parse(t, strlen(t), &r, err, sizeof err), -1, "%s", bad[i].text);
        cr_expect_not_null(strstr(err, bad[i].field), "%s: %s", bad[i].text, err);
        free(t);
    }
    free(text);
}

Test(job, large_buffer_round_trip)
{
    enum { BIG = 24 << 20 }; /* tens of MB: must be linear, not quadratic */
    aoe_job j = sample_job(), r;
    uint8_t *big = malloc(BIG);
    cr_assert_not_null(big);
    for (size_t i = 0; i < BIG; i++) big[i] = (uint8_t)(i * 2654435761u >> 13);
    sample_args[2] = (aoe_job_arg){
        .kind = AOE_JOB_ARG_BUFFER, .size = BIG, .flags = 1, .data = big, .elem = AOE_ELEM_F32};
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
    set(arg(r, 2), "kind", cJSON_CreateString("pipe"));
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

/* ---- format 2 and format 1 side by side ---- */

static int same_bytes(const void *a, const void *b, uint64_t n)
{
    return (a == NULL) == (b == NULL) && (!a || !memcmp(a, b, (size_t)n));
}

static int same_str(const char *a, const char *b)
{
    return (a == NULL) == (b == NULL) && (!a || !strcmp(a, b));
}

/* Every in-memory field but `format` (and element types unless `types`). */
static void expect_same_job(const aoe_job *a, const aoe_job *b, int types)
{
    cr_expect(same_str(a->runtime, b->runtime), "runtime");
    cr_expect(same_str(a->fingerprint, b->fingerprint), "fingerprint");
    cr_expect(same_str(a->source, b->source), "source");
    cr_expect_eq(a->binary_size, b->binary_size);
    cr_expect(same_bytes(a->binary, b->binary, a->binary_size), "binary");
    cr_expect(same_str(a->options, b->options), "options: \"%s\" / \"%s\"", a->options, b->options);
    cr_expect(same_str(a->kernel_name, b->kernel_name), "kernel_name");
    cr_expect_eq(a->work_dim, b->work_dim);
    cr_expect_eq(memcmp(a->global, b->global, sizeof a->global), 0, "global");
    cr_expect_eq(a->has_local, b->has_local);
    if (a->has_local) cr_expect_eq(memcmp(a->local, b->local, sizeof a->local), 0, "local");
    cr_assert_eq(a->nargs, b->nargs);
    for (uint32_t i = 0; i < a->nargs; i++) {
        const aoe_job_arg *x = &a->args[i], *y = &b->args[i];
        cr_expect_eq(x->kind, y->kind, "args[%u].kind", i);
        cr_expect_eq(x->size, y->size, "args[%u].size", i);
        cr_expect_eq(x->flags, y->flags, "args[%u].flags", i);
        cr_expect(same_bytes(x->data, y->data, x->size), "args[%u].data", i);
        if (types) cr_expect_eq(x->elem, y->elem, "args[%u].elem", i);
    }
    cr_expect_eq(a->key.hi, b->key.hi);
    cr_expect_eq(a->key.lo, b->key.lo);
    cr_expect(same_str(a->call_site, b->call_site), "call_site");
    cr_expect(same_str(a->space_json, b->space_json), "space");
    cr_expect_eq(a->max_evals, b->max_evals);
    cr_expect_eq(a->time_limit_s, b->time_limit_s);
    cr_expect_eq(a->repeat_tune, b->repeat_tune);
    cr_expect_eq(a->op, b->op);
    cr_expect_eq(aoe_job_program_kind(a), aoe_job_program_kind(b));
    cr_assert_eq(a->noptions, b->noptions);
    for (uint32_t i = 0; i < a->noptions; i++)
        cr_expect_str_eq(a->option_list[i], b->option_list[i]);
    cr_expect_eq(a->launch_kind, b->launch_kind);
    cr_expect_eq(a->dynamic_shared_bytes, b->dynamic_shared_bytes);
    cr_expect(same_str(a->runtime_extra, b->runtime_extra), "runtime_extra: %s / %s",
              a->runtime_extra ? a->runtime_extra : "NULL",
              b->runtime_extra ? b->runtime_extra : "NULL");
}

static int parse_json(cJSON *root, aoe_job *out, char *err, size_t errlen)
{
    char *text = cJSON_PrintUnformatted(root);
    cr_assert_not_null(text);
    int rc = aoe_job_parse(text, strlen(text), out, err, errlen);
    cJSON_free(text);
    return rc;
}

/* A format 1 file captured by an earlier shim (PoCL, reduce_sum) is still
 * read, keyed as it was, and written again as format 2 without a change. */
Test(job, format1_file_is_still_read)
{
    aoe_job r, again;
    char err[256] = "";
    cr_assert_eq(aoe_job_read(AOE_SOURCE_DIR "/tests/data/job_format1.json", &r, err, sizeof err),
                 0, "%s", err);
    cr_expect_eq(r.format, 1);
    cr_expect_str_eq(r.runtime, "opencl");
    cr_expect_str_eq(r.kernel_name, "reduce_sum");
    cr_expect_eq(r.op, AOE_OP_KERNEL);
    cr_expect_eq(r.program_kind, AOE_JOB_PROG_SOURCE);
    cr_expect_eq(r.launch_kind, AOE_LAUNCH_GLOBAL_LOCAL);
    cr_expect_eq(r.dynamic_shared_bytes, 0);
    cr_expect_str_eq(r.options, "");
    cr_expect_eq(r.noptions, 0);
    cr_expect_null(r.runtime_extra);
    cr_expect_eq(r.work_dim, 1);
    cr_expect_eq(r.global[0], 8);
    cr_expect_eq(r.has_local, 0);
    cr_assert_eq(r.nargs, 3);
    cr_expect_eq(r.args[0].flags, 4);
    cr_expect_eq(r.args[1].flags, 2);
    cr_expect_null(r.args[1].data);
    for (uint32_t i = 0; i < 3; i++) cr_expect_eq(r.args[i].elem, AOE_ELEM_BYTES);
    char hex[33];
    aoe_key_to_hex(&r.key, hex);
    cr_expect_str_eq(hex, "196c533f4372b9f8a14a95eea1c9cd16");
    aoe_key k = aoe_job_compute_key(&r);
    cr_expect(k.hi == r.key.hi && k.lo == r.key.lo);
    cr_assert_eq(aoe_job_write(path_of("v2.job"), &r), 0);
    char *text = slurp(path_of("v2.job"));
    cr_expect_eq(strncmp(text, "{\"format\":2,", 12), 0, "%.20s", text);
    free(text);
    cr_assert_eq(aoe_job_read(path_of("v2.job"), &again, err, sizeof err), 0, "%s", err);
    cr_expect_eq(again.format, 2);
    expect_same_job(&r, &again, 1);
    aoe_job_free(&r);
    aoe_job_free(&again);
}

/* One launch, once as format 1 and once as format 2: the same key, the same
 * in-memory job (format 1 has no element types), options spelled with odd
 * white space included. */
Test(job, format1_and_format2_of_one_launch_key_the_same)
{
    aoe_job j = sample_job(), one, two;
    char err[256] = "";
    cJSON *v1 = format1_json(&j);
    cr_assert_eq(parse_json(v1, &one, err, sizeof err), 0, "%s", err);
    cJSON_Delete(v1);
    cr_assert_eq(aoe_job_write(path_of("two.job"), &j), 0);
    cr_assert_eq(aoe_job_read(path_of("two.job"), &two, err, sizeof err), 0, "%s", err);
    cr_expect_eq(one.format, 1);
    cr_expect_eq(two.format, 2);
    cr_expect(one.key.hi == j.key.hi && one.key.lo == j.key.lo);
    aoe_key k1 = aoe_job_compute_key(&one), k2 = aoe_job_compute_key(&two);
    cr_expect(k1.hi == k2.hi && k1.lo == k2.lo, "format 1 and 2 key differently");
    cr_expect(k2.hi == j.key.hi && k2.lo == j.key.lo);
    cr_expect_str_eq(two.options, "-DA=1  -cl-mad-enable", "options_text keeps the string");
    cr_assert_eq(two.noptions, 2);
    cr_expect_str_eq(two.option_list[0], "-DA=1");
    cr_expect_str_eq(two.option_list[1], "-cl-mad-enable");
    expect_same_job(&one, &two, 0);
    cr_expect_eq(two.args[0].elem, AOE_ELEM_I32);
    cr_expect_eq(two.args[1].elem, AOE_ELEM_F32);
    cr_expect_eq(two.args[2].elem, AOE_ELEM_F16);
    cr_expect_eq(two.args[3].elem, AOE_ELEM_F64);
    cr_expect_eq(two.args[4].elem, AOE_ELEM_BYTES);
    cr_expect_eq(one.args[1].elem, AOE_ELEM_BYTES);
    /* a format 1 job read and written again keys the same */
    cr_assert_eq(aoe_job_write(path_of("one2.job"), &one), 0);
    aoe_job again;
    cr_assert_eq(aoe_job_read(path_of("one2.job"), &again, err, sizeof err), 0, "%s", err);
    expect_same_job(&one, &again, 1);
    aoe_job_free(&again);
    aoe_job_free(&one);
    aoe_job_free(&two);
}

static uint8_t ptx_args_data[8] = {1, 0, 0, 0, 0, 0, 128, 63};
static aoe_job_arg ptx_args[3];
static char *ptx_options[] = {"--gpu-architecture=sm_90", "-DTILE=64", "-I/path with space"};

/* Everything format 1 could not say: PTX, a grid launch with dynamic shared
 * memory, an option list, bf16/f64 arguments and a runtime's own fields. */
static aoe_job cuda_like_job(void)
{
    aoe_job j;
    memset(&j, 0, sizeof j);
    ptx_args[0] = (aoe_job_arg){.kind = AOE_JOB_ARG_SCALAR,
                                .size = 8,
                                .flags = 0,
                                .data = ptx_args_data,
                                .elem = AOE_ELEM_F64};
    ptx_args[1] = (aoe_job_arg){
        .kind = AOE_JOB_ARG_BUFFER, .size = 4096, .flags = 0, .data = NULL, .elem = AOE_ELEM_BF16};
    ptx_args[2] = (aoe_job_arg){.kind = AOE_JOB_ARG_BUFFER,
                                .size = 8,
                                .flags = 0,
                                .data = ptx_args_data,
                                .elem = AOE_ELEM_U64};
    j.format = AOE_JOB_FORMAT;
    j.runtime = "cuda";
    j.fingerprint = "cuda|NVIDIA H100|sm_90|550.54|cu=132";
    j.program_kind = AOE_JOB_PROG_PTX;
    j.source = ".version 8.0\n.target sm_90\n.entry k()\n{\n}\n";
    j.kernel_name = "k";
    j.option_list = ptx_options;
    j.noptions = 3;
    j.launch_kind = AOE_LAUNCH_GRID_BLOCK;
    j.work_dim = 3;
    j.grid[0] = 8, j.grid[1] = 4, j.grid[2] = 1;
    j.block[0] = 128, j.block[1] = 1, j.block[2] = 1;
    j.has_local = 1;
    j.dynamic_shared_bytes = 49152;
    j.nargs = 3;
    j.args = ptx_args;
    j.runtime_extra = "{\"stream_priority\":-1,\"cache_config\":{\"prefer\":\"shared\"}}";
    j.key = aoe_job_compute_key(&j);
    return j;
}

Test(job, format2_round_trip_keeps_every_new_field)
{
    aoe_job j = cuda_like_job(), r;
    char err[256] = "";
    cr_assert_eq(aoe_job_write(path_of("cuda.job"), &j), 0, "%s", strerror(errno));
    char *text = slurp(path_of("cuda.job"));
    cr_expect_not_null(strstr(text, "\"grid\":[8,4,1]"), "%s", text);
    cr_expect_not_null(strstr(text, "\"block\":[128,1,1]"));
    cr_expect_not_null(strstr(text, "\"kind\":\"ptx\""));
    cr_expect_not_null(strstr(text, "\"type\":\"bf16\""));
    cr_expect_null(strstr(text, "mem_flags"), "no flags, no mem_flags");
    free(text);
    cr_assert_eq(aoe_job_read(path_of("cuda.job"), &r, err, sizeof err), 0, "%s", err);
    cr_expect_str_eq(r.runtime, "cuda");
    cr_expect_eq(r.program_kind, AOE_JOB_PROG_PTX);
    cr_expect_eq(r.launch_kind, AOE_LAUNCH_GRID_BLOCK);
    cr_expect_eq(r.grid[1], 4);
    cr_expect_eq(r.block[0], 128);
    cr_expect_eq(r.dynamic_shared_bytes, 49152);
    cr_expect_str_eq(r.options, "--gpu-architecture=sm_90 -DTILE=64 -I/path with space");
    cr_expect_str_eq(r.option_list[2], "-I/path with space", "list entries keep their spaces");
    cr_expect_str_eq(r.runtime_extra, j.runtime_extra);
    j.options = r.options; /* made from the list by the reader */
    expect_same_job(&j, &r, 1);
    aoe_job_free(&r);
    /* a cubin, and a library call */
    static uint8_t cubin[5] = {0x7f, 'E', 'L', 'F', 2};
    j = cuda_like_job();
    j.program_kind = AOE_JOB_PROG_CUBIN;
    j.source = NULL;
    j.binary = cubin;
    j.binary_size = sizeof cubin;
    j.key = aoe_job_compute_key(&j);
    cr_assert_eq(aoe_job_write(path_of("cubin.job"), &j), 0);
    cr_assert_eq(aoe_job_read(path_of("cubin.job"), &r, err, sizeof err), 0, "%s", err);
    j.options = r.options;
    expect_same_job(&j, &r, 1);
    aoe_job_free(&r);
    aoe_job lib;
    memset(&lib, 0, sizeof lib);
    lib.runtime = "cublaslt";
    lib.fingerprint = j.fingerprint;
    lib.op = AOE_OP_LIBRARY_CALL;
    lib.kernel_name = "gemm";
    lib.nargs = 2;
    lib.args = ptx_args + 1;
    lib.runtime_extra = "{\"compute_type\":\"CUBLAS_COMPUTE_32F\"}";
    lib.key = aoe_job_compute_key(&lib);
    cr_assert_eq(aoe_job_write(path_of("gemm.job"), &lib), 0, "%s", strerror(errno));
    text = slurp(path_of("gemm.job"));
    cr_expect_not_null(strstr(text, "\"op\":{\"kind\":\"library_call\",\"name\":\"gemm\"}"));
    cr_expect_null(strstr(text, "\"program\""));
    cr_expect_null(strstr(text, "\"launch\""));
    free(text);
    cr_assert_eq(aoe_job_read(path_of("gemm.job"), &r, err, sizeof err), 0, "%s", err);
    cr_expect_eq(r.op, AOE_OP_LIBRARY_CALL);
    cr_expect_str_eq(r.kernel_name, "gemm");
    cr_expect_eq(r.work_dim, 0);
    lib.options = "";
    expect_same_job(&lib, &r, 1);
    aoe_job_free(&r);
}

static int key_eq(aoe_key a, aoe_key b)
{
    return a.hi == b.hi && a.lo == b.lo;
}

/* What format 1 could not express keys differently; the element types,
 * like buffer contents, do not take part. */
Test(job, new_fields_take_part_in_the_key)
{
    aoe_job j = sample_job();
    aoe_key base = aoe_job_compute_key(&j), k;
    j.program_kind = AOE_JOB_PROG_PTX;
    k = aoe_job_compute_key(&j);
    cr_expect(!key_eq(k, base), "PTX keys like source");
    j.program_kind = AOE_JOB_PROG_SOURCE;
    j.launch_kind = AOE_LAUNCH_GRID_BLOCK;
    k = aoe_job_compute_key(&j);
    cr_expect(!key_eq(k, base), "a grid keys like a global size");
    j.launch_kind = AOE_LAUNCH_GLOBAL_LOCAL;
    j.dynamic_shared_bytes = 1024;
    aoe_key s1 = aoe_job_compute_key(&j);
    j.dynamic_shared_bytes = 2048;
    aoe_key s2 = aoe_job_compute_key(&j);
    cr_expect(!key_eq(s1, base) && !key_eq(s1, s2), "dynamic shared memory not in the key");
    j.dynamic_shared_bytes = 0;
    j.op = AOE_OP_LIBRARY_CALL;
    k = aoe_job_compute_key(&j);
    cr_expect(!key_eq(k, base), "a library call keys like a kernel");
    j.op = AOE_OP_KERNEL;
    sample_args[1].elem = AOE_ELEM_U8;
    k = aoe_job_compute_key(&j);
    cr_expect(key_eq(k, base), "element types changed the key");
    /* the list, joined, keys like the string it came from */
    char *list[] = {"-DA=1", "-cl-mad-enable"};
    j.options = NULL;
    j.option_list = list;
    j.noptions = 2;
    k = aoe_job_compute_key(&j);
    cr_expect(key_eq(k, base), "the option list keys differently from the string");
}

Test(job, options_split_and_join)
{
    char **l = NULL;
    int n = aoe_job_options_split(" \t-DA=1  -cl-fast-relaxed-math\n-I /x ", &l);
    cr_assert_eq(n, 4);
    cr_expect_str_eq(l[0], "-DA=1");
    cr_expect_str_eq(l[1], "-cl-fast-relaxed-math");
    cr_expect_str_eq(l[2], "-I");
    cr_expect_str_eq(l[3], "/x");
    char *s = aoe_job_options_join(l, (uint32_t)n);
    cr_expect_str_eq(s, "-DA=1 -cl-fast-relaxed-math -I /x");
    free(s);
    aoe_job_options_free(l, (uint32_t)n);
    cr_expect_eq(aoe_job_options_split("   ", &l), 0);
    cr_expect_null(l);
    cr_expect_eq(aoe_job_options_split(NULL, &l), 0);
    s = aoe_job_options_join(NULL, 0);
    cr_expect_str_eq(s, "");
    free(s);
}

Test(job, any_short_runtime_identifier_is_read)
{
    const char *good[] = {"cuda", "level_zero", "hip5", "a", "abcdefghijklmnopqrstuvwxyz012345"};
    const char *bad[] = {"", "Cuda", "9x", "open-cl", "a b", "abcdefghijklmnopqrstuvwxyz0123456"};
    char err[256];
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        aoe_job r;
        cJSON *root = sample_json(2);
        cJSON_ReplaceItemInObject(root, "runtime", cJSON_CreateString(good[i]));
        err[0] = '\0';
        cr_expect_eq(parse_json(root, &r, err, sizeof err), 0, "%s: %s", good[i], err);
        cJSON_Delete(root);
        if (!err[0]) {
            cr_expect_str_eq(r.runtime, good[i]);
            aoe_job_free(&r);
        }
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        for (int format = 1; format <= 2; format++) {
            aoe_job r;
            cJSON *root = sample_json(format);
            cJSON_ReplaceItemInObject(root, "runtime", cJSON_CreateString(bad[i]));
            err[0] = '\0';
            cr_expect_eq(parse_json(root, &r, err, sizeof err), -1, "%s accepted", bad[i]);
            cr_expect_eq(strncmp(err, "runtime:", 8), 0, "%s", err);
            cJSON_Delete(root);
        }
}

/* ---- format 2 validation: every new field named ---- */

static cJSON *obj(cJSON *r, const char *name)
{
    return cJSON_GetObjectItem(r, name);
}
static cJSON *extra(cJSON *r)
{
    return obj(r, "runtime_extra");
}
static void m2_op_missing(cJSON *r)
{
    cJSON_DeleteItemFromObject(r, "op");
}
static void m2_op_type(cJSON *r)
{
    set(r, "op", cJSON_CreateString("kernel"));
}
static void m2_op_kind(cJSON *r)
{
    set(obj(r, "op"), "kind", cJSON_CreateString("launch"));
}
static void m2_op_unknown(cJSON *r)
{
    cJSON_AddStringToObject(obj(r, "op"), "library", "blas");
}
static void m2_op_name_on_kernel(cJSON *r)
{
    cJSON_AddStringToObject(obj(r, "op"), "name", "k");
}
static void to_library_call(cJSON *r, const char *name)
{
    set(obj(r, "op"), "kind", cJSON_CreateString("library_call"));
    if (name) cJSON_AddStringToObject(obj(r, "op"), "name", name);
}
static void m2_lib_no_name(cJSON *r)
{
    to_library_call(r, NULL);
}
static void m2_lib_bad_name(cJSON *r)
{
    to_library_call(r, "ge mm");
}
static void m2_lib_long_name(cJSON *r)
{
    to_library_call(r,
                    "g2345678901234567890123456789012345678901234567890123456789012345"); /* 65 */
}
static void m2_lib_program(cJSON *r)
{
    to_library_call(r, "gemm");
}
static void m2_lib_launch(cJSON *r)
{
    to_library_call(r, "gemm");
    cJSON_DeleteItemFromObject(r, "program");
}
static void m2_lib_local_arg(cJSON *r)
{
    to_library_call(r, "gemm");
    cJSON_DeleteItemFromObject(r, "program");
    cJSON_DeleteItemFromObject(r, "launch");
    cJSON_DeleteItemFromObject(extra(r), "options_text");
}
static void m2_lib_options_text(cJSON *r)
{
    to_library_call(r, "gemm");
    cJSON_DeleteItemFromObject(r, "program");
    cJSON_DeleteItemFromObject(r, "launch");
    cJSON_DeleteItemFromArray(obj(r, "args"), 4);
    cJSON_DeleteItemFromArray(obj(r, "args"), 3);
    cJSON *mf = cJSON_GetObjectItem(extra(r), "mem_flags");
    cJSON_DeleteItemFromArray(mf, 4);
    cJSON_DeleteItemFromArray(mf, 3);
}
static void m2_program_missing(cJSON *r)
{
    cJSON_DeleteItemFromObject(r, "program");
}
static void m2_program_type(cJSON *r)
{
    set(r, "program", cJSON_CreateArray());
}
static void m2_program_kind(cJSON *r)
{
    set(obj(r, "program"), "kind", cJSON_CreateString("llvm"));
}
static void m2_program_unknown(cJSON *r)
{
    cJSON_AddStringToObject(obj(r, "program"), "kernel_name", "k");
}
static void m2_entry_missing(cJSON *r)
{
    cJSON_DeleteItemFromObject(obj(r, "program"), "entry");
}
static void m2_entry_empty(cJSON *r)
{
    set(obj(r, "program"), "entry", cJSON_CreateString(""));
}
static void m2_options_type(cJSON *r)
{
    set(obj(r, "program"), "options", cJSON_CreateString("-DA=1"));
}
static void m2_option_type(cJSON *r)
{
    cJSON_ReplaceItemInArray(obj(obj(r, "program"), "options"), 1, cJSON_CreateNumber(1));
}
static void m2_option_empty(cJSON *r)
{
    cJSON_ReplaceItemInArray(obj(obj(r, "program"), "options"), 0, cJSON_CreateString(""));
}
static void m2_source_missing(cJSON *r)
{
    cJSON_DeleteItemFromObject(obj(r, "program"), "source");
}
static void m2_source_empty(cJSON *r)
{
    set(obj(r, "program"), "source", cJSON_CreateString(""));
}
static void m2_source_with_binary(cJSON *r)
{
    cJSON_AddStringToObject(obj(r, "program"), "binary_b64", "AAAA");
}
static void m2_binary_with_source(cJSON *r)
{
    set(obj(r, "program"), "kind", cJSON_CreateString("binary"));
}
static void m2_cubin_bad(cJSON *r)
{
    set(obj(r, "program"), "kind", cJSON_CreateString("cubin"));
    cJSON_DeleteItemFromObject(obj(r, "program"), "source");
    cJSON_AddStringToObject(obj(r, "program"), "binary_b64", "AA*A");
}
static void m2_cubin_missing(cJSON *r)
{
    set(obj(r, "program"), "kind", cJSON_CreateString("cubin"));
    cJSON_DeleteItemFromObject(obj(r, "program"), "source");
}
static void m2_launch_missing(cJSON *r)
{
    cJSON_DeleteItemFromObject(r, "launch");
}
static void m2_launch_type(cJSON *r)
{
    set(r, "launch", cJSON_CreateNumber(2));
}
static void m2_launch_unknown(cJSON *r)
{
    cJSON_AddNumberToObject(obj(r, "launch"), "work_dim", 2);
}
static void m2_dims_missing(cJSON *r)
{
    cJSON_DeleteItemFromObject(obj(r, "launch"), "dims");
}
static void m2_dims_big(cJSON *r)
{
    set(obj(r, "launch"), "dims", cJSON_CreateNumber(4));
}
static void m2_dims_zero(cJSON *r)
{
    set(obj(r, "launch"), "dims", cJSON_CreateNumber(0));
}
static void m2_global_and_grid(cJSON *r)
{
    cJSON_AddItemToObject(obj(r, "launch"), "grid",
                          cJSON_Duplicate(obj(obj(r, "launch"), "global"), 1));
}
static void m2_no_global(cJSON *r)
{
    cJSON_DeleteItemFromObject(obj(r, "launch"), "global");
}
static void m2_global_len(cJSON *r)
{
    cJSON_DeleteItemFromArray(obj(obj(r, "launch"), "global"), 1);
}
static void m2_global_zero(cJSON *r)
{
    cJSON_ReplaceItemInArray(obj(obj(r, "launch"), "global"), 1, cJSON_CreateNumber(0));
}
static void m2_local_neg(cJSON *r)
{
    cJSON_ReplaceItemInArray(obj(obj(r, "launch"), "local"), 0, cJSON_CreateNumber(-8));
}
static void m2_block_with_global(cJSON *r)
{
    cJSON_AddItemToObject(obj(r, "launch"), "block",
                          cJSON_Duplicate(obj(obj(r, "launch"), "local"), 1));
}
static void to_grid(cJSON *r)
{
    cJSON *l = obj(r, "launch");
    cJSON_AddItemToObject(l, "grid", cJSON_DetachItemFromObject(l, "global"));
}
static void m2_grid_no_block(cJSON *r)
{
    to_grid(r);
    cJSON_DeleteItemFromObject(obj(r, "launch"), "local");
}
static void m2_grid_with_local(cJSON *r)
{
    to_grid(r);
}
static void m2_grid_block_len(cJSON *r)
{
    to_grid(r);
    cJSON *l = obj(r, "launch");
    cJSON_AddItemToObject(l, "block", cJSON_DetachItemFromObject(l, "local"));
    cJSON_DeleteItemFromArray(obj(l, "block"), 0);
}
static void m2_shared_neg(cJSON *r)
{
    set(obj(r, "launch"), "dynamic_shared_bytes", cJSON_CreateNumber(-1));
}
static void m2_shared_big(cJSON *r)
{
    set(obj(r, "launch"), "dynamic_shared_bytes", cJSON_CreateNumber(8589934592.0));
}
static void m2_shared_type(cJSON *r)
{
    set(obj(r, "launch"), "dynamic_shared_bytes", cJSON_CreateString("48K"));
}
static void m2_type_unknown(cJSON *r)
{
    set(arg(r, 1), "type", cJSON_CreateString("float"));
}
static void m2_type_number(cJSON *r)
{
    set(arg(r, 1), "type", cJSON_CreateNumber(4));
}
static void m2_type_size(cJSON *r)
{
    set(arg(r, 0), "type", cJSON_CreateString("f64"));
}
static void m2_type_local_size(cJSON *r)
{
    set(arg(r, 3), "size", cJSON_CreateNumber(1020));
}
static void m2_type_on_null(cJSON *r)
{
    cJSON_AddStringToObject(arg(r, 4), "type", "f32");
}
static void m2_flags_in_arg(cJSON *r)
{
    cJSON_AddNumberToObject(arg(r, 1), "flags", 4);
}
static void m2_v1_field(cJSON *r)
{
    cJSON_AddStringToObject(r, "kernel_name", "k");
}
static void m2_v1_work_dim(cJSON *r)
{
    cJSON_AddNumberToObject(r, "work_dim", 2);
}
static void m2_twice(cJSON *r)
{
    cJSON_AddItemToObject(r, "runtime", cJSON_CreateString("opencl"));
}
static void m2_extra_type(cJSON *r)
{
    set(r, "runtime_extra", cJSON_CreateArray());
}
static void m2_extra_twice(cJSON *r)
{
    cJSON_AddNumberToObject(extra(r), "x", 1);
    cJSON_AddNumberToObject(extra(r), "x", 2);
}
static void m2_extra_big(cJSON *r)
{
    size_t n = AOE_JOB_MAX_EXTRA;
    char *s = malloc(n + 1);
    cr_assert_not_null(s);
    memset(s, 'a', n);
    s[n] = '\0';
    cJSON_AddStringToObject(extra(r), "blob", s);
    free(s);
}
static void m2_mem_flags_len(cJSON *r)
{
    cJSON_DeleteItemFromArray(cJSON_GetObjectItem(extra(r), "mem_flags"), 0);
}
static void m2_mem_flags_type(cJSON *r)
{
    set(extra(r), "mem_flags", cJSON_CreateObject());
}
static void m2_mem_flags_neg(cJSON *r)
{
    cJSON_ReplaceItemInArray(cJSON_GetObjectItem(extra(r), "mem_flags"), 1, cJSON_CreateNumber(-1));
}
static void m2_mem_flags_scalar(cJSON *r)
{
    cJSON_ReplaceItemInArray(cJSON_GetObjectItem(extra(r), "mem_flags"), 0, cJSON_CreateNumber(1));
}
static void m2_options_text_type(cJSON *r)
{
    set(extra(r), "options_text", cJSON_CreateNumber(1));
}
static void m2_options_text_differs(cJSON *r)
{
    set(extra(r), "options_text", cJSON_CreateString("-DA=2  -cl-mad-enable"));
}
static void m2_key_global(cJSON *r)
{
    cJSON_ReplaceItemInArray(obj(obj(r, "launch"), "global"), 0, cJSON_CreateNumber(128));
}
static void m2_key_entry(cJSON *r)
{
    set(obj(r, "program"), "entry", cJSON_CreateString("k2"));
}
static void m2_key_options(cJSON *r)
{
    cJSON_DeleteItemFromObject(extra(r), "options_text");
    cJSON_AddItemToArray(obj(obj(r, "program"), "options"), cJSON_CreateString("-DB=1"));
}
static void m2_key_shared(cJSON *r)
{
    set(obj(r, "launch"), "dynamic_shared_bytes", cJSON_CreateNumber(64));
}
static void m2_key_ptx(cJSON *r)
{
    set(obj(r, "program"), "kind", cJSON_CreateString("ptx"));
}
static void m2_key_grid(cJSON *r)
{
    to_grid(r);
    cJSON *l = obj(r, "launch");
    cJSON_AddItemToObject(l, "block", cJSON_DetachItemFromObject(l, "local"));
}

Test(job, every_bad_format2_field_is_named)
{
    struct {
        mutation m;
        const char *field;
    } cases[] = {
        {m_format, "format"},
        {m_runtime, "runtime"},
        {m_fingerprint, "fingerprint"},
        {m_key_missing, "key"},
        {m_call_site, "call_site"},
        {m_repeat, "repeat_tune"},
        {m_space, "space"},
        {m_budget_evals, "budget.max_evals"},
        {m_args_type, "args"},
        {m_arg_kind, "args[2].kind"},
        {m_scalar_nodata, "args[0].data_b64"},
        {m_buffer_size, "args[1].data_b64"},
        {m_buffer_both, "args[1].data_b64"},
        {m_null_arg_size, "args[4].size"},
        {m2_op_missing, "op: missing"},
        {m2_op_type, "op: expected an object"},
        {m2_op_kind, "op.kind"},
        {m2_op_unknown, "op.library: unknown field"},
        {m2_op_name_on_kernel, "op.name"},
        {m2_lib_no_name, "op.name: missing"},
        {m2_lib_bad_name, "op.name"},
        {m2_lib_long_name, "op.name"},
        {m2_lib_program, "program: a library call has no program"},
        {m2_lib_launch, "launch: a library call has no launch"},
        {m2_lib_local_arg, "args[3].kind: a library call"},
        {m2_lib_options_text, "runtime_extra.options_text: a library call"},
        {m2_program_missing, "program: missing"},
        {m2_program_type, "program: expected an object"},
        {m2_program_kind, "program.kind"},
        {m2_program_unknown, "program.kernel_name: unknown field"},
        {m2_entry_missing, "program.entry: missing"},
        {m2_entry_empty, "program.entry: empty"},
        {m2_options_type, "program.options: expected an array"},
        {m2_option_type, "program.options[1]"},
        {m2_option_empty, "program.options[0]"},
        {m2_source_missing, "program.source: missing"},
        {m2_source_empty, "program.source: empty"},
        {m2_source_with_binary, "program.binary_b64"},
        {m2_binary_with_source, "program.source"},
        {m2_cubin_bad, "program.binary_b64: not valid base64"},
        {m2_cubin_missing, "program.binary_b64: missing"},
        {m2_launch_missing, "launch: missing"},
        {m2_launch_type, "launch: expected an object"},
        {m2_launch_unknown, "launch.work_dim: unknown field"},
        {m2_dims_missing, "launch.dims: missing"},
        {m2_dims_big, "launch.dims"},
        {m2_dims_zero, "launch.dims"},
        {m2_global_and_grid, "launch.global: a launch has either global or grid"},
        {m2_no_global, "launch.global: a launch has either global or grid"},
        {m2_global_len, "launch.global: expected 2 entries"},
        {m2_global_zero, "launch.global[1]"},
        {m2_local_neg, "launch.local[0]"},
        {m2_block_with_global, "launch.block"},
        {m2_grid_no_block, "launch.block: missing"},
        {m2_grid_with_local, "launch.local: a grid launch"},
        {m2_grid_block_len, "launch.block: expected 2 entries"},
        {m2_shared_neg, "launch.dynamic_shared_bytes"},
        {m2_shared_big, "launch.dynamic_shared_bytes"},
        {m2_shared_type, "launch.dynamic_shared_bytes"},
        {m2_type_unknown, "args[1].type: expected one of bytes, f32"},
        {m2_type_number, "args[1].type"},
        {m2_type_size, "args[0].size: 4 bytes are not whole f64 elements"},
        {m2_type_local_size, "args[3].size"},
        {m2_type_on_null, "args[4].type"},
        {m2_flags_in_arg, "args[1].flags: unknown field"},
        {m2_v1_field, "kernel_name: unknown field"},
        {m2_v1_work_dim, "work_dim: unknown field"},
        {m2_twice, "runtime: appears twice"},
        {m2_extra_type, "runtime_extra: expected an object"},
        {m2_extra_twice, "runtime_extra.x: appears twice"},
        {m2_extra_big, "runtime_extra: more than"},
        {m2_mem_flags_len, "runtime_extra.mem_flags: expected an array of 5"},
        {m2_mem_flags_type, "runtime_extra.mem_flags"},
        {m2_mem_flags_neg, "runtime_extra.mem_flags[1]"},
        {m2_mem_flags_scalar, "runtime_extra.mem_flags[0]: only buffer"},
        {m2_options_text_type, "runtime_extra.options_text: expected a string"},
        {m2_options_text_differs, "runtime_extra.options_text: does not split"},
        {m2_key_global, "key: does not match"},
        {m2_key_entry, "key: does not match"},
        {m2_key_options, "key: does not match"},
        {m2_key_shared, "key: does not match"},
        {m2_key_ptx, "key: does not match"},
        {m2_key_grid, "key: does not match"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_error_in(2, cases[i].m, cases[i].field);
}

/* The writer refuses what the reader would refuse, and writes nothing. */
Test(job, writer_refuses_a_job_the_reader_would_refuse)
{
    aoe_job j = sample_job();
    char *list[] = {"-DA=1", "-DB=2"};
    aoe_job bad[10];
    for (int i = 0; i < 10; i++) bad[i] = j;
    static aoe_job_arg args[5];
    memcpy(args, sample_args, sizeof args);
    args[0].elem = AOE_ELEM_F64; /* 4 bytes are not an f64 */
    bad[0].args = args;
    bad[1].option_list = list; /* disagrees with options */
    bad[1].noptions = 2;
    bad[2].op = AOE_OP_LIBRARY_CALL;            /* with a program */
    bad[3].launch_kind = AOE_LAUNCH_GRID_BLOCK; /* a grid without a block */
    bad[3].has_local = 0;
    bad[4].runtime = "Open CL";
    static aoe_job_arg nullarg[5];
    memcpy(nullarg, sample_args, sizeof nullarg);
    nullarg[4].elem = AOE_ELEM_F32; /* a null argument has no type */
    bad[5].args = nullarg;
    bad[6].runtime_extra = "[1]";
    bad[7].program_kind = AOE_JOB_PROG_CUBIN; /* bytes, but only source is set */
    bad[8].dynamic_shared_bytes = 1ull << 33;
    bad[9].kernel_name = "";
    for (int i = 0; i < 10; i++) {
        errno = 0;
        cr_expect_eq(aoe_job_write(path_of("bad.job"), &bad[i]), -1, "case %d written", i);
        cr_expect_eq(errno, EINVAL, "case %d: %s", i, strerror(errno));
        cr_expect_eq(access(path_of("bad.job"), F_OK), -1, "case %d left a file", i);
    }
    /* the mapped fields in a caller's runtime_extra are replaced, not doubled */
    aoe_job r;
    char err[256] = "";
    j.runtime_extra = "{\"mem_flags\":[9,9,9,9,9],\"options_text\":\"x\",\"keep\":true}";
    cr_assert_eq(aoe_job_write(path_of("x.job"), &j), 0);
    cr_assert_eq(aoe_job_read(path_of("x.job"), &r, err, sizeof err), 0, "%s", err);
    cr_expect_str_eq(r.runtime_extra, "{\"keep\":true}");
    cr_expect_eq(r.args[1].flags, 4);
    cr_expect_str_eq(r.options, j.options);
    aoe_job_free(&r);
}

/* runtime_extra may hold many members: the duplicate check stays fast (it
 * pairwise, that is 1.8e9 comparisons here) and still names the field. */
Test(job, many_runtime_extra_members_are_checked_quickly, .timeout = 30)
{
    enum { N = 60000 };
    aoe_job r;
    char err[256] = "", name[16];
    for (int dup = 0; dup <= 1; dup++) {
        cJSON *root = sample_json(2);
        cJSON *ex = extra(root);
        for (int i = 0; i < N; i++) {
            snprintf(name, sizeof name, "m%d", dup && i == N - 1 ? 17 : i);
            cJSON_AddItemToObject(ex, name, cJSON_CreateNumber(0));
        }
        int rc = parse_json(root, &r, err, sizeof err);
        cJSON_Delete(root);
        if (!dup) {
            cr_expect_eq(rc, 0, "%s", err);
            if (!rc) aoe_job_free(&r);
        } else {
            cr_expect_eq(rc, -1);
            cr_expect_str_eq(err, "runtime_extra.m17: appears twice");
        }
    }
}

/* A grid launch (CUDA) keys its buffers by kind only: the hook keys a launch
 * before it knows any allocation; an OpenCL job's buffer sizes still count. */
Test(job, grid_buffers_keyed_by_kind)
{
    aoe_job j = sample_job();
    aoe_key cl_a = aoe_job_compute_key(&j);
    sample_args[2].size = 8192;
    aoe_key cl_b = aoe_job_compute_key(&j);
    cr_expect(!key_eq(cl_a, cl_b), "an OpenCL buffer's size is part of the key");
    j.launch_kind = AOE_LAUNCH_GRID_BLOCK;
    aoe_key g_a = aoe_job_compute_key(&j);
    sample_args[2].size = 4096;
    sample_args[1].size = 1 << 20;
    aoe_key g_b = aoe_job_compute_key(&j);
    cr_expect(key_eq(g_a, g_b), "a grid job's buffer sizes changed its key");
    sample_args[4].kind = AOE_JOB_ARG_BUFFER; /* NULL pointer -> buffer: another kind */
    sample_args[4].size = 64;
    aoe_key g_c = aoe_job_compute_key(&j);
    cr_expect(!key_eq(g_a, g_c), "a grid job's argument kinds are part of the key");
    /* the kernel part the hooks use is the job's */
    int oom = 1;
    uint64_t kp = aoe_job_kernel_part(&j, &oom);
    cr_expect_eq(oom, 0);
    size_t grid[3] = {64, 32, 0}, block[3] = {8, 4, 0};
    aoe_arg_shape s[5] = {{AOE_ARGK_SCALAR, 4, 0, sample_args[0].data},
                          {AOE_ARGK_BUFFER, 0, 0, NULL},
                          {AOE_ARGK_BUFFER, 0, 0, NULL},
                          {AOE_ARGK_LOCAL, 0, 1024, NULL},
                          {AOE_ARGK_BUFFER, 0, 0, NULL}};
    aoe_key hook = aoe_opkey_launch(kp, 2, grid, block, 5, s);
    cr_expect(key_eq(hook, g_c), "the hook's key differs from the job's");
    sample_args[4] = (aoe_job_arg){
        .kind = AOE_JOB_ARG_NULLMEM, .size = 0, .flags = 0, .data = NULL, .elem = AOE_ELEM_BYTES};
    sample_args[1].size = 16;
}
