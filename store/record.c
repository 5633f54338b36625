/* Record codec. On disk a record is a small header (magic "AOER", format
 * version, flags) followed by tagged fields (tag u16, length u32, value), all
 * little-endian. Unknown tags are skipped so a newer writer that only adds
 * fields stays readable; a newer format version is refused. The decoder is
 * fuzzed: every read is bounds-checked against len. */
#include "store/record.h"
#include "store/record_format.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    uint8_t *buf;
    size_t cap, n;
} writer;

static void put_bytes(writer *w, const void *p, size_t len)
{
    if (w->n + len <= w->cap) memcpy(w->buf + w->n, p, len);
    w->n += len;
}

static void put_u16(writer *w, uint16_t v)
{
    uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    put_bytes(w, b, 2);
}

static void put_u32(writer *w, uint32_t v)
{
    uint8_t b[4];
    for (int i = 0; i < 4; i++) b[i] = (uint8_t)(v >> (8 * i));
    put_bytes(w, b, 4);
}

static void put_u64(writer *w, uint64_t v)
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
    put_bytes(w, b, 8);
}

static uint64_t get_u64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t dbl_bits(double d)
{
    uint64_t v;
    memcpy(&v, &d, 8);
    return v;
}

static double bits_dbl(uint64_t v)
{
    double d;
    memcpy(&d, &v, 8);
    return d;
}

static void field_u64(writer *w, uint16_t tag, uint64_t v)
{
    put_u16(w, tag);
    put_u32(w, 8);
    put_u64(w, v);
}

static void field_u32(writer *w, uint16_t tag, uint32_t v)
{
    put_u16(w, tag);
    put_u32(w, 4);
    put_u32(w, v);
}

/* Strings are stored without their NUL; never longer than the field allows. */
static void field_str(writer *w, uint16_t tag, const char *s, size_t fieldsize)
{
    size_t len = strnlen(s, fieldsize - 1);
    put_u16(w, tag);
    put_u32(w, (uint32_t)len);
    put_bytes(w, s, len);
}

size_t aoe_record_encode(const aoe_record *rec, uint8_t *buf, size_t cap)
{
    writer w = {buf, cap, 0};
    put_bytes(&w, AOE_RECORD_MAGIC, 4);
    put_u16(&w, AOE_RECORD_VERSION);
    put_u16(&w, 0); /* flags, none defined */
    field_str(&w, AOE_TAG_RUNTIME, rec->runtime, sizeof rec->runtime);
    field_str(&w, AOE_TAG_KERNEL_NAME, rec->kernel_name, sizeof rec->kernel_name);
    const aoe_policy *p = &rec->policy;
    uint32_t np = p->n_params > AOE_MAX_PARAMS ? AOE_MAX_PARAMS : p->n_params;
    for (uint32_t i = 0; i < np; i++) {
        size_t len = strnlen(p->params[i].name, AOE_NAME_LEN - 1);
        put_u16(&w, AOE_TAG_PARAM);
        put_u32(&w, (uint32_t)(9 + len));
        put_u64(&w, (uint64_t)p->params[i].value);
        uint8_t def = p->params[i].kind == AOE_PARAM_DEFINE; /* what readers before kinds use */
        put_bytes(&w, &def, 1);
        put_bytes(&w, p->params[i].name, len);
    }
    if (np) {
        put_u16(&w, AOE_TAG_PARAM_KINDS);
        put_u32(&w, np);
        for (uint32_t i = 0; i < np; i++) put_bytes(&w, &p->params[i].kind, 1);
    }
    field_u32(&w, AOE_TAG_WORK_DIM, p->work_dim);
    put_u16(&w, AOE_TAG_GLOBAL);
    put_u32(&w, 24);
    for (int d = 0; d < 3; d++) put_u64(&w, p->global[d]);
    put_u16(&w, AOE_TAG_LOCAL);
    put_u32(&w, 24);
    for (int d = 0; d < 3; d++) put_u64(&w, p->local[d]);
    field_u64(&w, AOE_TAG_DEFAULT_US, dbl_bits(rec->default_us));
    field_u64(&w, AOE_TAG_DEFAULT_SPREAD_US, dbl_bits(rec->default_spread_us));
    field_u64(&w, AOE_TAG_TUNED_US, dbl_bits(rec->tuned_us));
    field_u64(&w, AOE_TAG_TUNED_SPREAD_US, dbl_bits(rec->tuned_spread_us));
    field_u32(&w, AOE_TAG_EVALUATIONS, rec->evaluations);
    field_u64(&w, AOE_TAG_TUNING_SECONDS, dbl_bits(rec->tuning_seconds));
    field_str(&w, AOE_TAG_STRATEGY, rec->strategy, sizeof rec->strategy);
    field_str(&w, AOE_TAG_TUNER_VERSION, rec->tuner_version, sizeof rec->tuner_version);
    field_u64(&w, AOE_TAG_TIMESTAMP, (uint64_t)rec->timestamp);
    field_str(&w, AOE_TAG_SUMMARY, rec->summary, sizeof rec->summary);
    return w.n;
}

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        if (errlen) snprintf(err, errlen, __VA_ARGS__);                                            \
        return -1;                                                                                 \
    } while (0)

/* Copies a string field: must fit with its NUL and hold no NUL itself. */
static int get_str(char *dst, size_t dstsize, const uint8_t *v, uint32_t len, const char *what,
                   char *err, size_t errlen)
{
    if (len >= dstsize) FAIL("field %s: %u bytes, at most %zu allowed", what, len, dstsize - 1);
    if (memchr(v, 0, len)) FAIL("field %s: contains a NUL byte", what);
    memcpy(dst, v, len);
    dst[len] = '\0';
    return 0;
}

static int get_time(double *dst, const uint8_t *v, const char *what, char *err, size_t errlen)
{
    double d = bits_dbl(get_u64(v));
    if (!isfinite(d) || d < 0) FAIL("field %s: %g is not a finite time >= 0", what, d);
    *dst = d;
    return 0;
}

static const char *tag_name(uint16_t tag)
{
    switch (tag) {
    case AOE_TAG_WORK_DIM:
        return "work_dim";
    case AOE_TAG_GLOBAL:
        return "global";
    case AOE_TAG_LOCAL:
        return "local";
    case AOE_TAG_EVALUATIONS:
        return "evaluations";
    case AOE_TAG_TIMESTAMP:
        return "timestamp";
    default:
        return "time";
    }
}

static size_t tag_fixed_len(uint16_t tag)
{
    switch (tag) {
    case AOE_TAG_WORK_DIM:
    case AOE_TAG_EVALUATIONS:
        return 4;
    case AOE_TAG_GLOBAL:
    case AOE_TAG_LOCAL:
        return 24;
    case AOE_TAG_DEFAULT_US:
    case AOE_TAG_DEFAULT_SPREAD_US:
    case AOE_TAG_TUNED_US:
    case AOE_TAG_TUNED_SPREAD_US:
    case AOE_TAG_TUNING_SECONDS:
    case AOE_TAG_TIMESTAMP:
        return 8;
    default:
        return 0; /* variable length */
    }
}

/* What the fields seen so far say beyond the record itself. */
typedef struct {
    unsigned seen; /* 1: kernel_name, 2: tuned_us */
    int has_kinds;
    uint32_t nkinds;
    uint8_t kinds[AOE_MAX_PARAMS];
} decode_state;

static int decode_field(uint16_t tag, const uint8_t *v, uint32_t len, aoe_record *rec,
                        decode_state *st, char *err, size_t errlen)
{
    unsigned *seen = &st->seen;
    size_t fixed = tag_fixed_len(tag);
    if (fixed && len != fixed)
        FAIL("field %s (tag %u): length %u, expected %zu", tag_name(tag), tag, len, fixed);
    aoe_policy *p = &rec->policy;
    switch (tag) {
    case AOE_TAG_RUNTIME:
        return get_str(rec->runtime, sizeof rec->runtime, v, len, "runtime", err, errlen);
    case AOE_TAG_KERNEL_NAME:
        *seen |= 1u;
        return get_str(rec->kernel_name, sizeof rec->kernel_name, v, len, "kernel_name", err,
                       errlen);
    case AOE_TAG_PARAM: {
        if (len < 9) FAIL("field param: length %u, expected at least 9", len);
        if (p->n_params >= AOE_MAX_PARAMS) FAIL("more than %d parameters", AOE_MAX_PARAMS);
        aoe_param *pa = &p->params[p->n_params];
        if (v[8] > 1) FAIL("field param: define flag %u is not 0 or 1", v[8]);
        if (get_str(pa->name, sizeof pa->name, v + 9, len - 9, "param name", err, errlen))
            return -1;
        if (!pa->name[0]) FAIL("field param: empty name");
        pa->value = (int64_t)get_u64(v);
        pa->kind = v[8]; /* the define flag; AOE_TAG_PARAM_KINDS may refine it */
        p->n_params++;
        return 0;
    }
    case AOE_TAG_PARAM_KINDS:
        if (st->has_kinds) FAIL("field param_kinds: appears twice");
        if (len > AOE_MAX_PARAMS)
            FAIL("field param_kinds: %u entries, at most %d", len, AOE_MAX_PARAMS);
        st->has_kinds = 1;
        st->nkinds = len;
        memcpy(st->kinds, v, len);
        return 0;
    case AOE_TAG_WORK_DIM:
        p->work_dim = get_u32(v);
        if (p->work_dim > 3) FAIL("field work_dim: %u is not 0..3", p->work_dim);
        return 0;
    case AOE_TAG_GLOBAL:
        for (int d = 0; d < 3; d++) p->global[d] = get_u64(v + 8 * d);
        return 0;
    case AOE_TAG_LOCAL:
        for (int d = 0; d < 3; d++) p->local[d] = get_u64(v + 8 * d);
        return 0;
    case AOE_TAG_DEFAULT_US:
        return get_time(&rec->default_us, v, "default_us", err, errlen);
    case AOE_TAG_DEFAULT_SPREAD_US:
        return get_time(&rec->default_spread_us, v, "default_spread_us", err, errlen);
    case AOE_TAG_TUNED_US:
        *seen |= 2u;
        return get_time(&rec->tuned_us, v, "tuned_us", err, errlen);
    case AOE_TAG_TUNED_SPREAD_US:
        return get_time(&rec->tuned_spread_us, v, "tuned_spread_us", err, errlen);
    case AOE_TAG_EVALUATIONS:
        rec->evaluations = get_u32(v);
        return 0;
    case AOE_TAG_TUNING_SECONDS:
        return get_time(&rec->tuning_seconds, v, "tuning_seconds", err, errlen);
    case AOE_TAG_STRATEGY:
        return get_str(rec->strategy, sizeof rec->strategy, v, len, "strategy", err, errlen);
    case AOE_TAG_TUNER_VERSION:
        return get_str(rec->tuner_version, sizeof rec->tuner_version, v, len, "tuner_version", err,
                       errlen);
    case AOE_TAG_TIMESTAMP:
        rec->timestamp = (int64_t)get_u64(v);
        return 0;
    case AOE_TAG_SUMMARY:
        return get_str(rec->summary, sizeof rec->summary, v, len, "summary", err, errlen);
    default:
        return 0; /* a field from a newer writer: skipped */
    }
}

/* The kinds tag names one kind per parameter; a reader that predates it
 * sees only the define flags, so both must say the same about defines. */
static int apply_kinds(const decode_state *st, aoe_policy *p, char *err, size_t errlen)
{
    if (!st->has_kinds) return 0;
    if (st->nkinds != p->n_params)
        FAIL("field param_kinds: %u entries for %u parameters", st->nkinds, p->n_params);
    for (uint32_t i = 0; i < p->n_params; i++) {
        uint8_t k = st->kinds[i];
        if (k >= AOE_PARAM_KIND_COUNT) FAIL("param %s: unknown kind %u", p->params[i].name, k);
        if ((k == AOE_PARAM_DEFINE) != (p->params[i].kind == 1))
            FAIL("param %s: kind %s disagrees with its define flag %u", p->params[i].name,
                 aoe_param_kind_name(k), p->params[i].kind);
        p->params[i].kind = k;
    }
    return 0;
}

unsigned aoe_record_format(const uint8_t *buf, size_t len)
{
    if (!buf || len < AOE_RECORD_HEADER_LEN || memcmp(buf, AOE_RECORD_MAGIC, 4)) return 0;
    return buf[4] | (unsigned)buf[5] << 8;
}

int aoe_record_decode(const uint8_t *buf, size_t len, aoe_record *rec, char *err, size_t errlen)
{
    memset(rec, 0, sizeof *rec);
    if (!buf || len < AOE_RECORD_HEADER_LEN) FAIL("record truncated: %zu bytes", len);
    if (memcmp(buf, AOE_RECORD_MAGIC, 4)) FAIL("not an AOE record (bad magic)");
    unsigned version = aoe_record_format(buf, len);
    if (version == 0 || version > AOE_RECORD_VERSION)
        FAIL("record format version %u is not supported by this aoe (it reads 1..%d)", version,
             AOE_RECORD_VERSION);
    decode_state st = {0};
    size_t off = AOE_RECORD_HEADER_LEN;
    while (off < len) {
        if (len - off < 6) FAIL("record truncated in a field header at byte %zu", off);
        uint16_t tag = (uint16_t)(buf[off] | buf[off + 1] << 8);
        uint32_t flen = get_u32(buf + off + 2);
        off += 6;
        if (flen > len - off)
            FAIL("record truncated: field tag %u wants %u bytes, %zu left", tag, flen, len - off);
        if (decode_field(tag, buf + off, flen, rec, &st, err, errlen)) return -1;
        off += flen;
    }
    if (!(st.seen & 1u)) FAIL("record has no kernel_name");
    if (!(st.seen & 2u)) FAIL("record has no tuned_us");
    if (apply_kinds(&st, &rec->policy, err, errlen)) return -1;
    return aoe_record_check(rec, err, errlen); /* the shim never sees a bad record */
}

void aoe_key_to_hex(const aoe_key *k, char out[33])
{
    snprintf(out, 33, "%016llx%016llx", (unsigned long long)k->hi, (unsigned long long)k->lo);
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int aoe_key_from_hex(const char *hex, aoe_key *k)
{
    uint64_t part[2] = {0, 0};
    if (!hex) return -1;
    for (int i = 0; i < 32; i++) {
        int v = hexval(hex[i]); /* stops at the NUL of a short string */
        if (v < 0) return -1;
        part[i / 16] = part[i / 16] << 4 | (uint64_t)v;
    }
    if (hex[32]) return -1;
    k->hi = part[0];
    k->lo = part[1];
    return 0;
}
