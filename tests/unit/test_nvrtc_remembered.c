/* hooks/nvrtc_remembered_json.c: a remembered NVRTC program's text (warm
 * runs) written from a program and read back field for field; what the
 * reader refuses (another image, wrong types, missing fields, over the
 * bounds). */
#include "hooks/nvrtc_remembered.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *headers[] = {"#define H 1\n", NULL};
static const char *include_names[] = {"h.cuh", "empty.cuh"};
static const char *options[] = {"--gpu-architecture=sm_90", "-DX=\"q\\\"uote\""};
static const char *exprs[] = {"k<float>", "k<int>"};
static const char *lowered[] = {"_Z1kIfEvPT_", NULL};

static const aoe_nvrtc_program prog = {
    .name = "p.cu",
    .source = "template <class T> __global__ void k(T *o) {}\n",
    .num_headers = 2,
    .headers = headers,
    .include_names = include_names,
    .num_options = 2,
    .options = options,
    .num_name_expressions = 2,
    .name_expressions = exprs,
    .lowered_names = lowered,
};

static char *text(const char *lib)
{
    char why[256];
    char *t = aoe_nvrtc_remembered_format(&prog, AOE_NVRTC_IMAGE_PTX, 0xabcdef0123456789ull, 4242,
                                          lib, why, sizeof why);
    cr_assert(t, "%s", why);
    return t;
}

Test(nvrtc_remembered, name)
{
    char name[64];
    aoe_nvrtc_remembered_name(0x1ull, 119, name, sizeof name);
    cr_expect_str_eq(name, "0000000000000001-119.json");
}

Test(nvrtc_remembered, round_trip)
{
    char *t = text("/usr/lib/libnvrtc.so.13");
    aoe_nvrtc_remembered r;
    char why[256];
    cr_assert_eq(
        aoe_nvrtc_remembered_parse(t, strlen(t), 0xabcdef0123456789ull, 4242, &r, why, sizeof why),
        0, "%s", why);
    cr_expect_str_eq(r.name, "p.cu");
    cr_expect_str_eq(r.source, prog.source);
    cr_assert_eq(r.num_headers, 2);
    cr_expect_str_eq(r.headers[0], "#define H 1\n");
    cr_expect_null(r.headers[1]);
    cr_expect_str_eq(r.include_names[1], "empty.cuh");
    cr_assert_eq(r.num_options, 2);
    cr_expect_str_eq(r.options[1], "-DX=\"q\\\"uote\"");
    cr_expect_null(r.options[2]); /* n + 1 slots, the last NULL */
    cr_assert_eq(r.num_name_expressions, 2);
    cr_expect_str_eq(r.name_expressions[0], "k<float>");
    cr_expect_str_eq(r.lowered_names[0], "_Z1kIfEvPT_");
    cr_expect_null(r.lowered_names[1]);
    cr_expect_eq(r.image_kind, AOE_NVRTC_IMAGE_PTX);
    cr_expect_str_eq(r.nvrtc_library, "/usr/lib/libnvrtc.so.13");
    aoe_nvrtc_remembered_free(&r);
    free(t);
    /* without a library: none read back */
    t = text(NULL);
    cr_assert_eq(
        aoe_nvrtc_remembered_parse(t, strlen(t), 0xabcdef0123456789ull, 4242, &r, why, sizeof why),
        0, "%s", why);
    cr_expect_null(r.nvrtc_library);
    aoe_nvrtc_remembered_free(&r);
    free(t);
}

Test(nvrtc_remembered, another_image)
{
    char *t = text(NULL), why[256];
    aoe_nvrtc_remembered r;
    cr_expect_eq(
        aoe_nvrtc_remembered_parse(t, strlen(t), 0xabcdef0123456788ull, 4242, &r, why, sizeof why),
        -1);
    cr_expect_str_eq(why, "it names another image");
    cr_expect_eq(
        aoe_nvrtc_remembered_parse(t, strlen(t), 0xabcdef0123456789ull, 4243, &r, why, sizeof why),
        -1);
    free(t);
}

/* text with the first occurrence of from replaced by to: refused. */
static void refused(const char *from, const char *to)
{
    char *t = text("/l.so"), why[256];
    char *at = strstr(t, from);
    cr_assert(at, "%s not in %s", from, t);
    size_t n = strlen(t) - strlen(from) + strlen(to) + 1;
    char *m = malloc(n);
    snprintf(m, n, "%.*s%s%s", (int)(at - t), t, to, at + strlen(from));
    aoe_nvrtc_remembered r;
    memset(&r, 0x5a, sizeof r);
    cr_expect_eq(
        aoe_nvrtc_remembered_parse(m, strlen(m), 0xabcdef0123456789ull, 4242, &r, why, sizeof why),
        -1, "accepted: %s", m);
    cr_expect_null(r.source, "left holding strings");
    free(m);
    free(t);
}

Test(nvrtc_remembered, refuses)
{
    refused("\"aoe-nvrtc-program\"", "\"aoe-bank\"");
    refused("\"version\":\t1", "\"version\":\t2");
    refused("\"ptx\"", "\"fatbin\"");
    refused("\"name\":\t\"p.cu\"", "\"name\":\t7");
    refused("\"source\":", "\"src\":");
    refused("\"options\":", "\"opts\":");
    refused("\"--gpu-architecture=sm_90\"", "null");
    refused("\"expression\":\t\"k<float>\"", "\"expression\":\tnull");
    refused("\"lowered\":\t\"_Z1kIfEvPT_\"", "\"lowered\":\t[]");
    refused("\"name\":\t\"h.cuh\"", "\"name\":\t{}");
    refused("\"/l.so\"", "\"l.so\"");
    refused("\"headers\":\t[", "\"headers\":\t[7, ");
    refused("{", "[");
}

Test(nvrtc_remembered, bounds)
{
    char why[256];
    aoe_nvrtc_remembered r;
    /* a source over the bound is not written */
    size_t big = AOE_NVRTC_REMEMBERED_MAX_SOURCE + 1;
    char *src = malloc(big + 1);
    memset(src, 'x', big);
    src[big] = '\0';
    aoe_nvrtc_program p = prog;
    p.source = src;
    cr_expect_null(
        aoe_nvrtc_remembered_format(&p, AOE_NVRTC_IMAGE_CUBIN, 1, 1, NULL, why, sizeof why));
    free(src);
    /* a text over the file bound is not parsed */
    cr_expect_eq(aoe_nvrtc_remembered_parse("{}", AOE_NVRTC_REMEMBERED_MAX_FILE + 1, 1, 1, &r, why,
                                            sizeof why),
                 -1);
    cr_expect_str_eq(why, "too large");
    /* not NUL-terminated: only len bytes read */
    char *t = text(NULL);
    cr_expect_eq(aoe_nvrtc_remembered_parse(t, strlen(t) - 2, 0xabcdef0123456789ull, 4242, &r, why,
                                            sizeof why),
                 -1);
    free(t);
}
