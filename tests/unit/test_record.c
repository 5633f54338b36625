/* Record codec: round trips, version handling, truncation, hostile bytes. */
#include "store/record.h"
#include "store/record_format.h"

#include <criterion/criterion.h>
#include <string.h>

static aoe_record sample(void)
{
    aoe_record r;
    memset(&r, 0, sizeof r);
    strcpy(r.runtime, "opencl");
    strcpy(r.kernel_name, "gemm_tiled");
    r.policy.n_params = 2;
    strcpy(r.policy.params[0].name, "TILE");
    r.policy.params[0].value = 16;
    r.policy.params[0].is_define = 1;
    strcpy(r.policy.params[1].name, "NEG");
    r.policy.params[1].value = -123456789012345;
    r.policy.work_dim = 2;
    r.policy.global[0] = 1024, r.policy.global[1] = 512;
    r.policy.local[0] = 16, r.policy.local[1] = 8;
    r.default_us = 120.5, r.default_spread_us = 1.25;
    r.tuned_us = 80.125, r.tuned_spread_us = 0.5;
    r.evaluations = 64;
    r.tuning_seconds = 12.75;
    strcpy(r.strategy, "annealing");
    strcpy(r.tuner_version, "0.1.0");
    r.timestamp = 1700000000;
    strcpy(r.summary, "gemm.cl 1024x512");
    return r;
}

static void assert_same(const aoe_record *a, const aoe_record *b)
{
    cr_assert_str_eq(a->runtime, b->runtime);
    cr_assert_str_eq(a->kernel_name, b->kernel_name);
    cr_assert_eq(a->policy.n_params, b->policy.n_params);
    for (uint32_t i = 0; i < a->policy.n_params; i++) {
        cr_assert_str_eq(a->policy.params[i].name, b->policy.params[i].name);
        cr_assert_eq(a->policy.params[i].value, b->policy.params[i].value);
        cr_assert_eq(a->policy.params[i].is_define, b->policy.params[i].is_define);
    }
    cr_assert_eq(a->policy.work_dim, b->policy.work_dim);
    cr_assert_arr_eq(a->policy.global, b->policy.global, sizeof a->policy.global);
    cr_assert_arr_eq(a->policy.local, b->policy.local, sizeof a->policy.local);
    cr_assert_eq(a->default_us, b->default_us);
    cr_assert_eq(a->default_spread_us, b->default_spread_us);
    cr_assert_eq(a->tuned_us, b->tuned_us);
    cr_assert_eq(a->tuned_spread_us, b->tuned_spread_us);
    cr_assert_eq(a->evaluations, b->evaluations);
    cr_assert_eq(a->tuning_seconds, b->tuning_seconds);
    cr_assert_str_eq(a->strategy, b->strategy);
    cr_assert_str_eq(a->tuner_version, b->tuner_version);
    cr_assert_eq(a->timestamp, b->timestamp);
    cr_assert_str_eq(a->summary, b->summary);
}

Test(record, round_trip_keeps_every_field)
{
    aoe_record r = sample(), back;
    uint8_t buf[AOE_RECORD_ENCODED_MAX];
    char err[160] = "";
    size_t n = aoe_record_encode(&r, buf, sizeof buf);
    cr_assert(n > AOE_RECORD_HEADER_LEN && n <= sizeof buf);
    cr_assert_eq(aoe_record_decode(buf, n, &back, err, sizeof err), 0, "%s", err);
    assert_same(&r, &back);
}

Test(record, full_record_fits_the_maximum)
{
    aoe_record r;
    memset(&r, 'x', sizeof r); /* every string at its maximum length */
    r.runtime[sizeof r.runtime - 1] = r.kernel_name[sizeof r.kernel_name - 1] = '\0';
    r.strategy[sizeof r.strategy - 1] = r.tuner_version[sizeof r.tuner_version - 1] = '\0';
    r.summary[sizeof r.summary - 1] = '\0';
    r.policy.n_params = AOE_MAX_PARAMS;
    for (int i = 0; i < AOE_MAX_PARAMS; i++) {
        r.policy.params[i].name[AOE_NAME_LEN - 1] = '\0';
        r.policy.params[i].name[0] = (char)('a' + i); /* names are unique */
        r.policy.params[i].value = -(1LL << 53);      /* the bound */
        r.policy.params[i].is_define = 1;
    }
    r.policy.work_dim = 3;
    for (int d = 0; d < 3; d++) r.policy.global[d] = 1ULL << 32, r.policy.local[d] = 16;
    r.default_us = r.default_spread_us = r.tuned_us = r.tuned_spread_us = r.tuning_seconds = 1;
    size_t n = aoe_record_encode(&r, NULL, 0);
    cr_assert_leq(n, AOE_RECORD_ENCODED_MAX);
    uint8_t buf[AOE_RECORD_ENCODED_MAX];
    aoe_record back;
    char err[160] = "";
    cr_assert_eq(aoe_record_encode(&r, buf, sizeof buf), n);
    cr_assert_eq(aoe_record_decode(buf, n, &back, err, sizeof err), 0, "%s", err);
    cr_assert_eq(back.policy.n_params, AOE_MAX_PARAMS);
    cr_assert_eq(strlen(back.summary), AOE_SUMMARY_LEN - 1);
}

Test(record, encode_reports_size_without_writing_past_cap)
{
    aoe_record r = sample();
    uint8_t buf[64];
    memset(buf, 0xAB, sizeof buf);
    size_t n = aoe_record_encode(&r, buf, 16);
    cr_assert_gt(n, 16);
    for (size_t i = 16; i < sizeof buf; i++) cr_assert_eq(buf[i], 0xAB);
}

Test(record, newer_version_is_refused_with_a_message)
{
    aoe_record r = sample(), back;
    uint8_t buf[AOE_RECORD_ENCODED_MAX];
    char err[160] = "";
    size_t n = aoe_record_encode(&r, buf, sizeof buf);
    buf[4] = AOE_RECORD_VERSION + 1;
    cr_assert_eq(aoe_record_decode(buf, n, &back, err, sizeof err), -1);
    cr_assert(strstr(err, "version 2"), "%s", err);
    buf[4] = 0;
    cr_assert_eq(aoe_record_decode(buf, n, &back, err, sizeof err), -1);
}

Test(record, unknown_tags_are_skipped)
{
    aoe_record r = sample(), back;
    uint8_t buf[AOE_RECORD_ENCODED_MAX + 32];
    char err[160] = "";
    size_t n = aoe_record_encode(&r, buf, sizeof buf);
    /* a field from a future writer: tag 999, 5 bytes */
    uint8_t extra[] = {0xE7, 0x03, 5, 0, 0, 0, 'h', 'e', 'l', 'l', 'o'};
    memcpy(buf + n, extra, sizeof extra);
    cr_assert_eq(aoe_record_decode(buf, n + sizeof extra, &back, err, sizeof err), 0, "%s", err);
    assert_same(&r, &back);
}

Test(record, every_truncation_is_an_error_not_a_crash)
{
    aoe_record r = sample(), back;
    uint8_t buf[AOE_RECORD_ENCODED_MAX];
    char err[160];
    size_t n = aoe_record_encode(&r, buf, sizeof buf);
    for (size_t len = 0; len < n; len++) {
        /* exact copy so ASan sees any read past len */
        uint8_t *cut = malloc(len ? len : 1);
        memcpy(cut, buf, len);
        int rc = aoe_record_decode(cut, len, &back, err, sizeof err);
        free(cut);
        /* a cut exactly between fields can still hold every required field
         * only at the very end; before tuned_us it must fail */
        if (len < 8) cr_assert_eq(rc, -1, "len %zu", len);
        if (rc) cr_assert(err[0], "no message at len %zu", len);
    }
}

Test(record, bad_magic_and_oversized_strings_are_rejected)
{
    aoe_record r = sample(), back;
    uint8_t buf[AOE_RECORD_ENCODED_MAX];
    char err[160] = "";
    size_t n = aoe_record_encode(&r, buf, sizeof buf);
    buf[0] = 'X';
    cr_assert_eq(aoe_record_decode(buf, n, &back, err, sizeof err), -1);
    cr_assert(strstr(err, "magic"), "%s", err);
    /* header + runtime field claiming 200 bytes (field holds 15) */
    uint8_t evil[8 + 6 + 200] = {'A', 'O', 'E', 'R', 1, 0, 0, 0, 1, 0, 200, 0, 0, 0};
    memset(evil + 14, 'a', 200);
    cr_assert_eq(aoe_record_decode(evil, sizeof evil, &back, err, sizeof err), -1);
    cr_assert(strstr(err, "runtime"), "%s", err);
    /* a length larger than what is left */
    uint8_t lie[] = {'A', 'O', 'E', 'R', 1, 0, 0, 0, 2, 0, 0xff, 0xff, 0xff, 0xff, 'k'};
    cr_assert_eq(aoe_record_decode(lie, sizeof lie, &back, err, sizeof err), -1);
    cr_assert(strstr(err, "truncated"), "%s", err);
}

Test(record, missing_required_fields_and_bad_times)
{
    aoe_record back;
    char err[160] = "";
    uint8_t hdr[] = {'A', 'O', 'E', 'R', 1, 0, 0, 0};
    cr_assert_eq(aoe_record_decode(hdr, sizeof hdr, &back, err, sizeof err), -1);
    cr_assert(strstr(err, "kernel_name"), "%s", err);
    aoe_record r = sample();
    r.tuned_us = -1;
    uint8_t buf[AOE_RECORD_ENCODED_MAX];
    size_t n = aoe_record_encode(&r, buf, sizeof buf);
    cr_assert_eq(aoe_record_decode(buf, n, &back, err, sizeof err), -1);
    cr_assert(strstr(err, "tuned_us"), "%s", err);
}

Test(record, key_hex_round_trip_and_rejects)
{
    aoe_key k = {0x0123456789abcdefull, 0xfedcba9876543210ull}, back;
    char hex[33];
    aoe_key_to_hex(&k, hex);
    cr_assert_str_eq(hex, "0123456789abcdeffedcba9876543210");
    cr_assert_eq(aoe_key_from_hex(hex, &back), 0);
    cr_assert_eq(back.hi, k.hi);
    cr_assert_eq(back.lo, k.lo);
    cr_assert_eq(aoe_key_from_hex("0123456789ABCDEFFEDCBA9876543210", &back), 0);
    cr_assert_eq(back.lo, k.lo);
    cr_assert_eq(aoe_key_from_hex("0123", &back), -1);
    cr_assert_eq(aoe_key_from_hex("0123456789abcdeffedcba98765432100", &back), -1);
    cr_assert_eq(aoe_key_from_hex("0123456789abcdeffedcba987654321g", &back), -1);
    cr_assert_eq(aoe_key_from_hex("", &back), -1);
    cr_assert_eq(aoe_key_from_hex(NULL, &back), -1);
}

/* Records a bank must never hand to the shim (item 6): each is encoded as a
 * hostile writer would (the encoder does not check) and refused on decode. */
static void expect_refused(aoe_record r, const char *reason)
{
    uint8_t buf[AOE_RECORD_ENCODED_MAX];
    aoe_record back;
    char err[256] = "";
    size_t n = aoe_record_encode(&r, buf, sizeof buf);
    cr_assert_eq(aoe_record_decode(buf, n, &back, err, sizeof err), -1, "accepted (%s)", reason);
    cr_expect(strstr(err, reason) != NULL, "reason '%s', expected '%s'", err, reason);
}

Test(record, records_the_shim_must_not_apply_are_refused)
{
    aoe_record r = sample();
    strcpy(r.policy.params[0].name, "A -cl-fast-relaxed-math -DB");
    expect_refused(r, "is not a C identifier");
    r = sample();
    strcpy(r.policy.params[0].name, "9X");
    expect_refused(r, "is not a C identifier");
    r = sample();
    strcpy(r.policy.params[1].name, "TILE");
    expect_refused(r, "appears twice");
    r = sample();
    r.policy.params[0].value = (1LL << 53) + 1;
    expect_refused(r, "is outside");
    r = sample();
    r.policy.work_dim = 0;
    expect_refused(r, "work_dim 0 is not 1..3");
    r = sample();
    r.policy.global[1] = 0;
    expect_refused(r, "some but not all");
    r = sample();
    r.policy.global[0] = (1ULL << 32) + 16;
    expect_refused(r, "global[0]");
    r = sample();
    r.policy.local[0] = 2048;
    expect_refused(r, "local[0] 2048 is above global[0] 1024");
    r = sample();
    r.policy.local[0] = 1024, r.policy.local[1] = 16;
    expect_refused(r, "product 16384");
    r = sample();
    r.policy.global[2] = 4;
    expect_refused(r, "beyond work_dim");
    r = sample();
    strcpy(r.kernel_name, "k\x1b[2J");
    expect_refused(r, "kernel_name");
    /* the program's own global size kept (all 0) and no local size: valid */
    r = sample();
    memset(r.policy.global, 0, sizeof r.policy.global);
    memset(r.policy.local, 0, sizeof r.policy.local);
    uint8_t buf[AOE_RECORD_ENCODED_MAX];
    aoe_record back;
    char err[256] = "";
    size_t n = aoe_record_encode(&r, buf, sizeof buf);
    cr_assert_eq(aoe_record_decode(buf, n, &back, err, sizeof err), 0, "%s", err);
}
