/* Job files with image and sampler arguments (format 2): round trip of
 * every descriptor field, the key as aoe_job_compute_key computes it, the
 * exact JSON written, and one message naming the field for each kind of bad
 * input; the writer refuses what the reader would refuse. */
#include "jobs/job.h"
#include "store/opkey.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64];
static uint8_t pixels[32]; /* a 4 x 2 RGBA8 image */
static aoe_job_arg args[4];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/aoe_test_job_image.XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    for (int i = 0; i < 32; i++) pixels[i] = (uint8_t)(i * 7 + 1);
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
}

TestSuite(job_image, .init = setup, .fini = teardown);

static char *path_of(const char *name)
{
    static char p[128];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

/* CL_MEM_OBJECT_IMAGE2D 0x10F1, CL_RGBA 0x10B5 / CL_UNORM_INT8 0x10D2,
 * CL_R 0x10B0 / CL_FLOAT 0x10DE; CL_ADDRESS_CLAMP 0x1132, CL_FILTER_NEAREST
 * 0x1140. */
static aoe_job image_job(void)
{
    aoe_job j;
    memset(&j, 0, sizeof j);
    args[0] = (aoe_job_arg){.kind = AOE_JOB_ARG_IMAGE,
                            .size = 32,
                            .flags = 4, /* CL_MEM_READ_ONLY */
                            .data = pixels,
                            .image = {0x10F1, 0x10B5, 0x10D2, 4, 4, 2, 0, 0}};
    args[1] = (aoe_job_arg){.kind = AOE_JOB_ARG_SAMPLER, .sampler = {0, 0x1132, 0x1140}};
    args[2] = (aoe_job_arg){.kind = AOE_JOB_ARG_IMAGE,
                            .size = 8 * 3 * 4,
                            .flags = 2, /* CL_MEM_WRITE_ONLY */
                            .elem = AOE_ELEM_F32,
                            .image = {0x10F3, 0x10B0, 0x10DE, 4, 8, 0, 0, 3}};
    args[3] = (aoe_job_arg){.kind = AOE_JOB_ARG_SAMPLER, .sampler = {1, 0x1133, 0x1141}};
    j.format = AOE_JOB_FORMAT;
    j.runtime = "opencl";
    j.fingerprint = "opencl|Vendor|Device|1.0|cu=4";
    j.source = "__kernel void k(read_only image2d_t a, sampler_t s, write_only image2d_array_t "
               "b, sampler_t t) {}";
    j.options = "";
    j.kernel_name = "k";
    j.work_dim = 2;
    j.global[0] = 4, j.global[1] = 2;
    j.nargs = 4;
    j.args = args;
    j.key = aoe_job_compute_key(&j);
    return j;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static void expect_same_image(const aoe_job_image *a, const aoe_job_image *b)
{
    cr_expect_eq(a->type, b->type);
    cr_expect_eq(a->order, b->order);
    cr_expect_eq(a->data_type, b->data_type);
    cr_expect_eq(a->pixel_bytes, b->pixel_bytes);
    cr_expect_eq(a->width, b->width);
    cr_expect_eq(a->height, b->height);
    cr_expect_eq(a->depth, b->depth);
    cr_expect_eq(a->array_size, b->array_size);
}

Test(job_image, round_trip_keeps_descriptors_contents_and_key)
{
    aoe_job j = image_job(), r;
    char err[256] = "";
    cr_assert_eq(aoe_job_write(path_of("a.job"), &j), 0, "%s", strerror(errno));
    cr_assert_eq(aoe_job_read(path_of("a.job"), &r, err, sizeof err), 0, "%s", err);
    cr_assert_eq(r.nargs, 4);
    for (int i = 0; i < 4; i++) {
        cr_expect_eq(r.args[i].kind, args[i].kind, "args[%d]", i);
        cr_expect_eq(r.args[i].size, args[i].size, "args[%d]", i);
        cr_expect_eq(r.args[i].flags, args[i].flags, "args[%d]", i);
        cr_expect_eq(r.args[i].elem, args[i].elem, "args[%d]", i);
    }
    expect_same_image(&r.args[0].image, &args[0].image);
    expect_same_image(&r.args[2].image, &args[2].image);
    cr_assert_not_null(r.args[0].data);
    cr_expect_eq(memcmp(r.args[0].data, pixels, 32), 0);
    cr_expect_null(r.args[2].data, "a synthetic image has no contents");
    cr_expect_eq(r.args[1].sampler.normalized, 0);
    cr_expect_eq(r.args[1].sampler.addressing, 0x1132);
    cr_expect_eq(r.args[1].sampler.filter, 0x1140);
    cr_expect_eq(r.args[3].sampler.normalized, 1);
    cr_expect_eq(r.args[3].sampler.addressing, 0x1133);
    cr_expect_eq(r.args[3].sampler.filter, 0x1141);
    aoe_key k = aoe_job_compute_key(&r);
    cr_expect(k.hi == j.key.hi && k.lo == j.key.lo, "the key read back is the one computed");
    cr_expect(r.key.hi == j.key.hi && r.key.lo == j.key.lo);
    aoe_job_free(&r);
}

Test(job_image, written_as_documented)
{
    aoe_job j = image_job();
    cr_assert_eq(aoe_job_write(path_of("b.job"), &j), 0);
    const char *t = slurp(path_of("b.job"));
    cr_expect_not_null(strstr(t, "{\"kind\":\"image\",\"type\":\"bytes\",\"size\":32,\"image\":{"
                                 "\"type\":4337,\"order\":4277,\"data_type\":4306,\"pixel_bytes\":"
                                 "4,\"width\":4,\"height\":2,\"depth\":0,\"array_size\":0},"
                                 "\"data_b64\":\""),
                       "%s", t);
    cr_expect_not_null(strstr(t, "{\"kind\":\"sampler\",\"sampler\":{\"normalized\":false,"
                                 "\"addressing\":4402,\"filter\":4416}}"),
                       "%s", t);
    cr_expect_not_null(strstr(t, "\"synthetic\":true}"), "%s", t);
    cr_expect_not_null(strstr(t, "\"mem_flags\":[4,0,2,0]"), "%s", t);
}

/* The sample job's JSON, one mutation applied, then parsed: the message
 * must start with field_prefix. */
typedef void (*mutation)(cJSON *root);

static cJSON *arg(cJSON *root, int i)
{
    return cJSON_GetArrayItem(cJSON_GetObjectItem(root, "args"), i);
}

static cJSON *desc(cJSON *root, int i, const char *what)
{
    return cJSON_GetObjectItem(arg(root, i), what);
}

static void expect_error(mutation m, const char *field_prefix)
{
    aoe_job j = image_job(), r;
    cr_assert_eq(aoe_job_write(path_of("m.job"), &j), 0);
    cJSON *root = cJSON_Parse(slurp(path_of("m.job")));
    cr_assert_not_null(root);
    m(root);
    char *out = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    char err[512] = "";
    int rc = aoe_job_parse(out, strlen(out), &r, err, sizeof err);
    cJSON_free(out);
    cr_expect_eq(rc, -1, "accepted a job that should fail at %s", field_prefix);
    cr_expect_eq(strncmp(err, field_prefix, strlen(field_prefix)), 0,
                 "expected a message starting with \"%s\", got \"%s\"", field_prefix, err);
    if (rc == 0) aoe_job_free(&r);
}

static void m_no_desc(cJSON *r)
{
    cJSON_DeleteItemFromObject(arg(r, 0), "image");
}
static void m_desc_type(cJSON *r)
{
    cJSON_ReplaceItemInObject(arg(r, 0), "image", cJSON_CreateNumber(1));
}
static void m_no_order(cJSON *r)
{
    cJSON_DeleteItemFromObject(desc(r, 0, "image"), "order");
}
static void m_no_array(cJSON *r)
{
    cJSON_DeleteItemFromObject(desc(r, 0, "image"), "array_size");
}
static void m_big_type(cJSON *r)
{
    cJSON_ReplaceItemInObject(desc(r, 0, "image"), "data_type", cJSON_CreateNumber(4294967296.0));
}
static void m_pixel_zero(cJSON *r)
{
    cJSON_ReplaceItemInObject(desc(r, 0, "image"), "pixel_bytes", cJSON_CreateNumber(0));
}
static void m_pixel_17(cJSON *r)
{
    cJSON_ReplaceItemInObject(desc(r, 0, "image"), "pixel_bytes", cJSON_CreateNumber(17));
}
static void m_width_zero(cJSON *r)
{
    cJSON_ReplaceItemInObject(desc(r, 0, "image"), "width", cJSON_CreateNumber(0));
}
static void m_height_huge(cJSON *r)
{
    cJSON_ReplaceItemInObject(desc(r, 0, "image"), "height", cJSON_CreateNumber(1e12));
}
static void m_extents_overflow(cJSON *r)
{
    cJSON *d = desc(r, 0, "image");
    cJSON_ReplaceItemInObject(d, "height", cJSON_CreateNumber(4294967295.0));
    cJSON_ReplaceItemInObject(d, "depth", cJSON_CreateNumber(4294967295.0));
}
static void m_desc_unknown(cJSON *r)
{
    cJSON_AddNumberToObject(desc(r, 0, "image"), "mip_levels", 0);
}
static void m_size_mismatch(cJSON *r)
{
    cJSON *d = desc(r, 0, "image");
    cJSON_ReplaceItemInObject(d, "width", cJSON_CreateNumber(5));
}
static void m_data_short(cJSON *r)
{
    cJSON_ReplaceItemInObject(arg(r, 0), "data_b64", cJSON_CreateString("AAAA"));
}
static void m_image_both(cJSON *r)
{
    cJSON_AddTrueToObject(arg(r, 0), "synthetic");
}
static void m_image_neither(cJSON *r)
{
    cJSON_DeleteItemFromObject(arg(r, 2), "synthetic");
}
static void m_image_no_size(cJSON *r)
{
    cJSON_DeleteItemFromObject(arg(r, 0), "size");
}
static void m_image_type_odd(cJSON *r)
{
    cJSON *d = desc(r, 0, "image");
    cJSON_ReplaceItemInObject(arg(r, 0), "type", cJSON_CreateString("f32"));
    cJSON_ReplaceItemInObject(d, "pixel_bytes", cJSON_CreateNumber(3));
    cJSON_ReplaceItemInObject(d, "width", cJSON_CreateNumber(3));
    cJSON_ReplaceItemInObject(arg(r, 0), "size", cJSON_CreateNumber(18));
    cJSON_ReplaceItemInObject(arg(r, 0), "data_b64",
                              cJSON_CreateString("AAAAAAAAAAAAAAAAAAAAAAAA"));
}
static void m_image_with_sampler(cJSON *r)
{
    cJSON_AddItemToObject(arg(r, 0), "sampler", cJSON_CreateObject());
}
static void m_buffer_with_image(cJSON *r)
{
    cJSON *a = arg(r, 0);
    cJSON_ReplaceItemInObject(a, "kind", cJSON_CreateString("buffer"));
}
static void m_no_props(cJSON *r)
{
    cJSON_DeleteItemFromObject(arg(r, 1), "sampler");
}
static void m_norm_number(cJSON *r)
{
    cJSON_ReplaceItemInObject(desc(r, 1, "sampler"), "normalized", cJSON_CreateNumber(2));
}
static void m_no_norm(cJSON *r)
{
    cJSON_DeleteItemFromObject(desc(r, 1, "sampler"), "normalized");
}
static void m_no_filter(cJSON *r)
{
    cJSON_DeleteItemFromObject(desc(r, 1, "sampler"), "filter");
}
static void m_addr_neg(cJSON *r)
{
    cJSON_ReplaceItemInObject(desc(r, 1, "sampler"), "addressing", cJSON_CreateNumber(-1));
}
static void m_sampler_unknown(cJSON *r)
{
    cJSON_AddNumberToObject(desc(r, 1, "sampler"), "lod", 0);
}
static void m_sampler_size(cJSON *r)
{
    cJSON_AddNumberToObject(arg(r, 1), "size", 8);
}
static void m_sampler_type(cJSON *r)
{
    cJSON_AddStringToObject(arg(r, 1), "type", "u32");
}
static void m_sampler_data(cJSON *r)
{
    cJSON_AddStringToObject(arg(r, 1), "data_b64", "AAAA");
}
static void m_sampler_flags(cJSON *r)
{
    cJSON *ex = cJSON_GetObjectItem(r, "runtime_extra");
    cJSON *mf = cJSON_GetObjectItem(ex, "mem_flags");
    cJSON_ReplaceItemInArray(mf, 1, cJSON_CreateNumber(4));
}
static void m_library_image(cJSON *r)
{
    cJSON_DeleteItemFromObject(r, "program");
    cJSON_DeleteItemFromObject(r, "launch");
    cJSON *op = cJSON_GetObjectItem(r, "op");
    cJSON_ReplaceItemInObject(op, "kind", cJSON_CreateString("library_call"));
    cJSON_AddStringToObject(op, "name", "gemm");
}

Test(job_image, bad_image_named)
{
    expect_error(m_no_desc, "args[0].image: missing");
    expect_error(m_desc_type, "args[0].image: expected an object");
    expect_error(m_no_order, "args[0].image.order: missing");
    expect_error(m_no_array, "args[0].image.array_size: missing");
    expect_error(m_big_type, "args[0].image.data_type: expected an integer in 0..4294967295");
    expect_error(m_pixel_zero, "args[0].image.pixel_bytes: expected an integer in 1..16");
    expect_error(m_pixel_17, "args[0].image.pixel_bytes: expected an integer in 1..16");
    expect_error(m_width_zero, "args[0].image.width: expected an integer in 1..");
    expect_error(m_height_huge, "args[0].image.height: expected an integer in 0..4294967295");
    expect_error(m_extents_overflow, "args[0].image: its extents overflow");
    expect_error(m_desc_unknown, "args[0].image.mip_levels: unknown field");
    expect_error(m_size_mismatch, "args[0].size: 32 bytes, but the image's packed contents are 40");
    expect_error(m_data_short, "args[0].data_b64: holds 3 bytes but size is 32");
    expect_error(m_image_both, "args[0].data_b64: an image needs either");
    expect_error(m_image_neither, "args[2].data_b64: an image needs either");
    expect_error(m_image_no_size, "args[0].size: expected an integer");
    expect_error(m_image_type_odd, "args[0].size: 18 bytes are not whole f32 elements");
    expect_error(m_image_with_sampler, "args[0].sampler: only sampler arguments");
    expect_error(m_buffer_with_image, "args[0].image: only image arguments");
    expect_error(m_library_image, "args[0].kind: a library call takes scalar and buffer");
}

Test(job_image, bad_sampler_named)
{
    expect_error(m_no_props, "args[1].sampler: missing");
    expect_error(m_norm_number, "args[1].sampler.normalized: expected true or false");
    expect_error(m_no_norm, "args[1].sampler.normalized: missing");
    expect_error(m_no_filter, "args[1].sampler.filter: missing");
    expect_error(m_addr_neg, "args[1].sampler.addressing: expected an integer in 0..4294967295");
    expect_error(m_sampler_unknown, "args[1].sampler.lod: unknown field");
    expect_error(m_sampler_size, "args[1].size: a sampler has no size");
    expect_error(m_sampler_type, "args[1].type: a sampler argument has no type");
    expect_error(m_sampler_data, "args[1].data_b64: a sampler has no data_b64");
    expect_error(m_sampler_flags, "runtime_extra.mem_flags[1]: only buffer and image");
}

Test(job_image, format_1_has_no_images)
{
    const char *text =
        "{\"format\":1,\"runtime\":\"opencl\",\"fingerprint\":\"f\",\"kernel_name\":\"k\","
        "\"source\":\"s\",\"options\":\"\",\"work_dim\":1,\"global\":[1],\"local\":null,"
        "\"args\":[{\"kind\":\"sampler\"}],\"key\":\"00000000000000000000000000000000\"}";
    aoe_job r;
    char err[256] = "";
    cr_assert_eq(aoe_job_parse(text, strlen(text), &r, err, sizeof err), -1);
    cr_expect_not_null(strstr(err, "args[0].kind: unknown kind \"sampler\" (expected scalar, "
                                   "buffer, local or null)"),
                       "%s", err);
}

Test(job_image, writer_refuses_what_the_reader_refuses)
{
    aoe_job j = image_job();
    args[0].size = 31; /* not the packed bytes */
    errno = 0;
    cr_expect_eq(aoe_job_write(path_of("w1.job"), &j), -1);
    cr_expect_eq(errno, EINVAL);
    j = image_job();
    args[0].image.pixel_bytes = 17;
    args[0].size = 4 * 2 * 17;
    cr_expect_eq(aoe_job_write(path_of("w2.job"), &j), -1);
    j = image_job();
    args[1].sampler.normalized = 2;
    cr_expect_eq(aoe_job_write(path_of("w3.job"), &j), -1);
    j = image_job();
    args[1].size = 4;
    cr_expect_eq(aoe_job_write(path_of("w4.job"), &j), -1);
    j = image_job();
    args[1].elem = AOE_ELEM_U32;
    cr_expect_eq(aoe_job_write(path_of("w5.job"), &j), -1);
    j = image_job();
    args[0].image.width = 0;
    cr_expect_eq(aoe_job_write(path_of("w6.job"), &j), -1);
    cr_expect_eq(access(path_of("w1.job"), F_OK), -1, "nothing written");
}

Test(job_image, key_follows_the_descriptor_and_properties)
{
    aoe_job j = image_job();
    aoe_key k0 = aoe_job_compute_key(&j);
    args[0].image.order = 0x10B6; /* CL_BGRA: same bytes, another layout */
    aoe_key k1 = aoe_job_compute_key(&j);
    cr_expect(k0.hi != k1.hi || k0.lo != k1.lo, "the channel order is keyed");
    j = image_job();
    args[1].sampler.filter = 0x1141;
    aoe_key k2 = aoe_job_compute_key(&j);
    cr_expect(k0.hi != k2.hi || k0.lo != k2.lo, "the sampler's filter is keyed");
    j = image_job();
    pixels[0] ^= 1; /* contents take no part */
    aoe_key k3 = aoe_job_compute_key(&j);
    cr_expect(k0.hi == k3.hi && k0.lo == k3.lo, "contents are not keyed");
}
