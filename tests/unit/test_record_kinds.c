/* Parameter kinds (work size, define, library attribute): the record tag that
 * carries them, records written before it, the rules, the policy the shim
 * applies, and the JSON export/import. */
#include "store/bank_admin.h"
#include "store/policy_check.h"
#include "store/record.h"
#include "store/record_format.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

/* A record as aoe 0.1 (before parameter kinds) encoded it: TILE=16 a define,
 * WG0=8 a work size; work_dim 2, global 1024x512, local 8x8, default 120.5 us,
 * tuned 80.125 us, 64 evaluations, annealing, 0.1.0, 1700000000, summary
 * "gemm.cl 1024x512". Do not regenerate: it is what existing banks hold. */
static const uint8_t old_record[] = {
    0x41, 0x4f, 0x45, 0x52, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x06, 0x00, 0x00, 0x00, 0x6f, 0x70,
    0x65, 0x6e, 0x63, 0x6c, 0x02, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x67, 0x65, 0x6d, 0x6d, 0x5f, 0x74,
    0x69, 0x6c, 0x65, 0x64, 0x03, 0x00, 0x0d, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x01, 0x54, 0x49, 0x4c, 0x45, 0x03, 0x00, 0x0c, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x57, 0x47, 0x30, 0x04, 0x00, 0x04, 0x00, 0x00, 0x00, 0x02,
    0x00, 0x00, 0x00, 0x05, 0x00, 0x18, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x06, 0x00, 0x18, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07,
    0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x5e, 0x40, 0x08, 0x00, 0x08,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x09, 0x00, 0x08, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x54, 0x40, 0x0a, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0b, 0x00, 0x04, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00,
    0x00, 0x0c, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0d,
    0x00, 0x09, 0x00, 0x00, 0x00, 0x61, 0x6e, 0x6e, 0x65, 0x61, 0x6c, 0x69, 0x6e, 0x67, 0x0e, 0x00,
    0x05, 0x00, 0x00, 0x00, 0x30, 0x2e, 0x31, 0x2e, 0x30, 0x0f, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00,
    0xf1, 0x53, 0x65, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x10, 0x00, 0x00, 0x00, 0x67, 0x65, 0x6d,
    0x6d, 0x2e, 0x63, 0x6c, 0x20, 0x31, 0x30, 0x32, 0x34, 0x78, 0x35, 0x31, 0x32,
};

static aoe_record with_kinds(void)
{
    aoe_record r;
    memset(&r, 0, sizeof r);
    strcpy(r.runtime, "cublaslt");
    strcpy(r.kernel_name, "gemm");
    r.policy.n_params = 3;
    strcpy(r.policy.params[0].name, "TILE");
    r.policy.params[0].value = 16;
    r.policy.params[0].kind = AOE_PARAM_DEFINE;
    strcpy(r.policy.params[1].name, "WG0");
    r.policy.params[1].value = 8;
    r.policy.params[1].kind = AOE_PARAM_WORK_SIZE;
    strcpy(r.policy.params[2].name, "ALGO_ID");
    r.policy.params[2].value = 21;
    r.policy.params[2].kind = AOE_PARAM_LIBRARY_ATTR;
    r.policy.work_dim = 1;
    r.tuned_us = 3;
    return r;
}

/* Offset of tag's field header in an encoded record, or 0. */
static size_t find_tag(const uint8_t *buf, size_t n, uint16_t tag)
{
    for (size_t off = AOE_RECORD_HEADER_LEN; off + 6 <= n;) {
        uint16_t t = (uint16_t)(buf[off] | buf[off + 1] << 8);
        uint32_t len = (uint32_t)buf[off + 2] | (uint32_t)buf[off + 3] << 8 |
                       (uint32_t)buf[off + 4] << 16 | (uint32_t)buf[off + 5] << 24;
        if (t == tag) return off;
        off += 6 + len;
    }
    return 0;
}

Test(record_kinds, record_without_the_tag_decodes_as_before)
{
    aoe_record r;
    char err[160] = "";
    cr_assert_eq(aoe_record_decode(old_record, sizeof old_record, &r, err, sizeof err), 0, "%s",
                 err);
    cr_assert_str_eq(r.kernel_name, "gemm_tiled");
    cr_assert_eq(r.policy.n_params, 2);
    cr_assert_str_eq(r.policy.params[0].name, "TILE");
    cr_assert_eq(r.policy.params[0].value, 16);
    cr_assert_eq(r.policy.params[0].kind, AOE_PARAM_DEFINE);
    cr_assert_eq(r.policy.params[0].is_define, 1);
    cr_assert_str_eq(r.policy.params[1].name, "WG0");
    cr_assert_eq(r.policy.params[1].kind, AOE_PARAM_WORK_SIZE);
    cr_assert_eq(r.policy.params[1].is_define, 0);
    cr_assert_eq(r.policy.global[1], 512);
    cr_assert_eq(r.tuned_us, 80.125);
    cr_assert_str_eq(r.summary, "gemm.cl 1024x512");
    /* and it applies as it always did */
    aoe_policy_sizes sz;
    char defines[256];
    cr_assert_eq(aoe_policy_prepare(&r, &sz, defines, sizeof defines, err, sizeof err), 0, "%s",
                 err);
    cr_assert_str_eq(defines, " -DTILE=16");
    /* re-encoding adds the kinds; the old fields are byte for byte the same */
    uint8_t buf[AOE_RECORD_ENCODED_MAX];
    size_t n = aoe_record_encode(&r, buf, sizeof buf);
    cr_assert_eq(n, sizeof old_record + 6 + 2);
    size_t kt = find_tag(buf, n, AOE_TAG_PARAM_KINDS);
    cr_assert_gt(kt, 0);
    cr_assert_eq(memcmp(buf, old_record, kt), 0);
    cr_assert_eq(memcmp(buf + kt + 8, old_record + kt, sizeof old_record - kt), 0);
}

Test(record_kinds, kinds_round_trip)
{
    aoe_record r = with_kinds(), back;
    uint8_t buf[AOE_RECORD_ENCODED_MAX];
    char err[160] = "";
    size_t n = aoe_record_encode(&r, buf, sizeof buf);
    cr_assert_eq(aoe_record_decode(buf, n, &back, err, sizeof err), 0, "%s", err);
    cr_assert_eq(back.policy.n_params, 3);
    for (int i = 0; i < 3; i++) {
        cr_assert_str_eq(back.policy.params[i].name, r.policy.params[i].name);
        cr_assert_eq(back.policy.params[i].kind, r.policy.params[i].kind, "param %d", i);
    }
}

Test(record_kinds, reader_without_kinds_sees_only_the_defines)
{
    /* What a reader before the tag does: skip tag 17, read the define flags.
     * Emulated by renaming the tag to one nobody knows. */
    aoe_record r = with_kinds(), back;
    uint8_t buf[AOE_RECORD_ENCODED_MAX];
    char err[160] = "";
    size_t n = aoe_record_encode(&r, buf, sizeof buf);
    size_t kt = find_tag(buf, n, AOE_TAG_PARAM_KINDS);
    cr_assert_gt(kt, 0);
    buf[kt] = 0xEE, buf[kt + 1] = 0xEE;
    cr_assert_eq(aoe_record_decode(buf, n, &back, err, sizeof err), 0, "%s", err);
    cr_assert_eq(back.policy.params[0].kind, AOE_PARAM_DEFINE);
    cr_assert_eq(back.policy.params[1].kind, AOE_PARAM_WORK_SIZE);
    cr_assert_eq(back.policy.params[2].kind, AOE_PARAM_WORK_SIZE); /* never a -D */
}

Test(record_kinds, bad_kinds_are_refused)
{
    aoe_record r = with_kinds(), back;
    uint8_t buf[AOE_RECORD_ENCODED_MAX];
    char err[160] = "";
    size_t n = aoe_record_encode(&r, buf, sizeof buf);
    size_t kt = find_tag(buf, n, AOE_TAG_PARAM_KINDS);
    uint8_t *kinds = buf + kt + 6;
    /* an unknown kind (a newer writer's): refused, not guessed */
    kinds[1] = 7;
    cr_assert_eq(aoe_record_decode(buf, n, &back, err, sizeof err), -1);
    cr_assert(strstr(err, "unknown kind 7"), "%s", err);
    /* a define by kind that the flag calls a work size, and the reverse */
    kinds[1] = AOE_PARAM_DEFINE;
    cr_assert_eq(aoe_record_decode(buf, n, &back, err, sizeof err), -1);
    cr_assert(strstr(err, "disagrees"), "%s", err);
    kinds[1] = AOE_PARAM_WORK_SIZE;
    kinds[0] = AOE_PARAM_LIBRARY_ATTR;
    cr_assert_eq(aoe_record_decode(buf, n, &back, err, sizeof err), -1);
    cr_assert(strstr(err, "disagrees"), "%s", err);
    kinds[0] = AOE_PARAM_DEFINE;
    cr_assert_eq(aoe_record_decode(buf, n, &back, err, sizeof err), 0, "%s", err);
    /* fewer kinds than parameters */
    buf[kt + 2] = 2;
    memmove(buf + kt + 8, buf + kt + 9, n - kt - 9);
    cr_assert_eq(aoe_record_decode(buf, n - 1, &back, err, sizeof err), -1);
    cr_assert(strstr(err, "2 entries for 3 parameters"), "%s", err);
}

Test(record_kinds, rules_for_library_attributes)
{
    aoe_record r = with_kinds();
    char err[160] = "";
    cr_assert_eq(aoe_record_check(&r, err, sizeof err), 0, "%s", err);
    r.policy.params[2].value = 4294967295LL; /* uint32 max */
    cr_assert_eq(aoe_record_check(&r, err, sizeof err), 0, "%s", err);
    r.policy.params[2].value = -2147483648LL; /* int32 min */
    cr_assert_eq(aoe_record_check(&r, err, sizeof err), 0, "%s", err);
    r.policy.params[2].value = 4294967296LL;
    cr_assert_eq(aoe_record_check(&r, err, sizeof err), -1);
    cr_assert(strstr(err, "library attribute value"), "%s", err);
    r.policy.params[2].value = -2147483649LL;
    cr_assert_eq(aoe_record_check(&r, err, sizeof err), -1);
    /* a define may hold the same value: the 32-bit rule is the library's */
    r.policy.params[2].kind = AOE_PARAM_DEFINE;
    cr_assert_eq(aoe_record_check(&r, err, sizeof err), 0, "%s", err);
    r.policy.params[2].kind = 3;
    cr_assert_eq(aoe_record_check(&r, err, sizeof err), -1);
    cr_assert(strstr(err, "unknown kind 3"), "%s", err);
    /* names are C identifiers whatever the kind */
    r = with_kinds();
    strcpy(r.policy.params[2].name, "ALGO-ID");
    cr_assert_eq(aoe_record_check(&r, err, sizeof err), -1);
}

Test(record_kinds, kernel_launch_policy_takes_defines_only_and_no_library_attribute)
{
    aoe_record r = with_kinds();
    aoe_policy_sizes sz;
    char defines[256], err[160] = "";
    cr_assert_eq(aoe_policy_prepare(&r, &sz, defines, sizeof defines, err, sizeof err), -1);
    cr_assert(strstr(err, "ALGO_ID") && strstr(err, "library attribute"), "%s", err);
    cr_assert_str_eq(defines, "");
    r.policy.n_params = 2;
    cr_assert_eq(aoe_policy_prepare(&r, &sz, defines, sizeof defines, err, sizeof err), 0, "%s",
                 err);
    cr_assert_str_eq(defines, " -DTILE=16");
}

typedef struct {
    int n;
    aoe_bank_entry e[4];
    char reason[4][256];
    int rejects;
} parsed;

static int on_entry(void *ctx, size_t index, const aoe_bank_entry *e)
{
    parsed *p = ctx;
    (void)index;
    if (p->n < 4) p->e[p->n++] = *e;
    return 0;
}

static void on_reject(void *ctx, size_t index, const char *reason)
{
    parsed *p = ctx;
    (void)index;
    if (p->rejects < 4) snprintf(p->reason[p->rejects], sizeof p->reason[0], "%s", reason);
    p->rejects++;
}

#define DOC_HEAD "{\"format\":\"aoe-bank\",\"version\":1,\"records\":["
#define ENTRY(params)                                                                              \
    "{\"fingerprint\":\"cuda|x|y|z|cu=1\",\"key\":\"0123456789abcdef0123456789abcdef\","           \
    "\"kernel_name\":\"gemm\",\"tuned_us\":3,\"policy\":{\"work_dim\":1,\"params\":[" params "]}}"

Test(record_kinds, json_shows_and_reads_the_kind)
{
    aoe_record r = with_kinds();
    aoe_key key = {0x0123456789abcdefull, 0x0123456789abcdefull};
    char *text = aoe_bank_record_json_text("cuda|x|y|z|cu=1", &key, &r);
    cr_assert(text);
    cr_assert(strstr(text, "\"name\":\"TILE\",\"value\":16,\"kind\":\"define\",\"define\":true"),
              "%s", text);
    cr_assert(strstr(text, "\"kind\":\"work_size\",\"define\":false"), "%s", text);
    cr_assert(strstr(text, "\"kind\":\"library_attribute\",\"define\":false"), "%s", text);
    size_t len = strlen(text);
    char *doc = malloc(len + 64);
    snprintf(doc, len + 64, DOC_HEAD "%s]}", text);
    parsed p = {0};
    char err[160] = "";
    cr_assert_eq(aoe_bank_parse_json(doc, strlen(doc), on_entry, on_reject, &p, err, sizeof err), 0,
                 "%s", err);
    cr_assert_eq(p.n, 1, "%s", p.reason[0]);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(p.e[0].rec.policy.params[i].kind, r.policy.params[i].kind, "param %d", i);
    free(doc);
    free(text);
}

Test(record_kinds, json_without_kind_means_what_it_did)
{
    const char *doc = DOC_HEAD ENTRY("{\"name\":\"A\",\"value\":1,\"define\":true},"
                                     "{\"name\":\"B\",\"value\":2,\"define\":false},"
                                     "{\"name\":\"C\",\"value\":3}") "]}";
    parsed p = {0};
    char err[160] = "";
    cr_assert_eq(aoe_bank_parse_json(doc, strlen(doc), on_entry, on_reject, &p, err, sizeof err), 0,
                 "%s", err);
    cr_assert_eq(p.n, 1, "%s", p.reason[0]);
    cr_assert_eq(p.e[0].rec.policy.params[0].kind, AOE_PARAM_DEFINE);
    cr_assert_eq(p.e[0].rec.policy.params[1].kind, AOE_PARAM_WORK_SIZE);
    cr_assert_eq(p.e[0].rec.policy.params[2].kind, AOE_PARAM_WORK_SIZE);
}

Test(record_kinds, json_bad_kinds_are_rejected)
{
    static const char *const params[] = {
        "{\"name\":\"A\",\"value\":1,\"kind\":\"macro\"}",
        "{\"name\":\"A\",\"value\":1,\"kind\":\"library_attribute\",\"define\":true}",
        "{\"name\":\"A\",\"value\":1,\"kind\":7}",
        "{\"name\":\"A\",\"value\":5000000000,\"kind\":\"library_attribute\"}",
    };
    static const char *const want[] = {"params[0].kind", "disagrees", "params[0].kind",
                                       "library attribute value"};
    for (int i = 0; i < 4; i++) {
        char doc[512];
        snprintf(doc, sizeof doc, DOC_HEAD ENTRY("%s") "]}", params[i]);
        parsed p = {0};
        char err[160] = "";
        cr_assert_eq(
            aoe_bank_parse_json(doc, strlen(doc), on_entry, on_reject, &p, err, sizeof err), 0,
            "%s", err);
        cr_assert_eq(p.n, 0, "case %d", i);
        cr_assert_eq(p.rejects, 1, "case %d", i);
        cr_assert(strstr(p.reason[0], want[i]), "case %d: %s", i, p.reason[0]);
    }
}
