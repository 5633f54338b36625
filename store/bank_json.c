/* JSON export and import. The importer treats its input as hostile (it is
 * fuzzed): every field is type- and range-checked, and a bad entry is
 * rejected with its index and reason while the good ones are kept. */
#include "core/json_text.h"
#include "core/log.h"
#include "store/bank_admin.h"
#include "store/bank_internal.h"
#include "store/record_format.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define JSON_INT_MAX 9007199254740992.0 /* 2^53: larger integers lose precision in JSON */

/* ---- export ---- */

/* cJSON prints doubles with 15 digits and an approximate round-trip check,
 * which loses precision: numbers are formatted here, exactly. */
static cJSON *num_double(double d)
{
    char buf[40];
    snprintf(buf, sizeof buf, "%.15g", d);
    if (strtod(buf, NULL) != d) snprintf(buf, sizeof buf, "%.17g", d);
    return cJSON_CreateRaw(buf);
}

static cJSON *num_int(long long v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", v);
    return cJSON_CreateRaw(buf);
}

static cJSON *num_uint(unsigned long long v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", v);
    return cJSON_CreateRaw(buf);
}

/* Adds item to the object (name) or the array (name NULL); on any failure
 * (memory) the item is freed and *bad set, so a record is whole or absent. */
static void put(cJSON *to, const char *name, cJSON *item, int *bad)
{
    int ok = to && item &&
             (name ? cJSON_AddItemToObject(to, name, item) : cJSON_AddItemToArray(to, item));
    if (!ok) {
        cJSON_Delete(item);
        *bad = 1;
    }
}

static cJSON *record_json(const char *fp, const aoe_key *key, const aoe_record *r)
{
    char hex[33];
    int bad = 0;
    aoe_key_to_hex(key, hex);
    cJSON *o = cJSON_CreateObject(), *pol = cJSON_CreateObject(), *params = cJSON_CreateArray();
    cJSON *g = cJSON_CreateArray(), *l = cJSON_CreateArray();
    put(o, "fingerprint", cJSON_CreateString(fp), &bad);
    put(o, "key", cJSON_CreateString(hex), &bad);
    put(o, "runtime", cJSON_CreateString(r->runtime), &bad);
    put(o, "kernel_name", cJSON_CreateString(r->kernel_name), &bad);
    for (uint32_t i = 0; i < r->policy.n_params && i < AOE_MAX_PARAMS; i++) {
        cJSON *p = cJSON_CreateObject();
        put(p, "name", cJSON_CreateString(r->policy.params[i].name), &bad);
        put(p, "value", num_int(r->policy.params[i].value), &bad);
        put(p, "kind", cJSON_CreateString(aoe_param_kind_name(r->policy.params[i].kind)), &bad);
        /* for importers that predate "kind" */
        put(p, "define", cJSON_CreateBool(r->policy.params[i].kind == AOE_PARAM_DEFINE), &bad);
        put(params, NULL, p, &bad);
    }
    put(pol, "params", params, &bad);
    put(pol, "work_dim", num_uint(r->policy.work_dim), &bad);
    for (int d = 0; d < 3; d++) {
        put(g, NULL, num_uint(r->policy.global[d]), &bad);
        put(l, NULL, num_uint(r->policy.local[d]), &bad);
    }
    put(pol, "global", g, &bad);
    put(pol, "local", l, &bad);
    put(o, "policy", pol, &bad);
    put(o, "default_us", num_double(r->default_us), &bad);
    put(o, "default_spread_us", num_double(r->default_spread_us), &bad);
    put(o, "tuned_us", num_double(r->tuned_us), &bad);
    put(o, "tuned_spread_us", num_double(r->tuned_spread_us), &bad);
    put(o, "evaluations", num_uint(r->evaluations), &bad);
    put(o, "tuning_seconds", num_double(r->tuning_seconds), &bad);
    put(o, "strategy", cJSON_CreateString(r->strategy), &bad);
    put(o, "tuner_version", cJSON_CreateString(r->tuner_version), &bad);
    put(o, "timestamp", num_int(r->timestamp), &bad);
    put(o, "summary", cJSON_CreateString(r->summary), &bad);
    if (bad) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

char *aoe_bank_record_json_text(const char *fp, const aoe_key *key, const aoe_record *rec)
{
    cJSON *o = record_json(fp, key, rec);
    char *s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return s;
}

typedef struct {
    FILE *out;
    long n;
    int failed;
    int werr; /* the first failed write's errno: the walk stops there */
} export_ctx;

static void wrote(export_ctx *c, int r)
{
    if (r < 0 && !c->werr) c->werr = errno ? errno : EIO;
}

static int export_one(void *vctx, const char *fp, const aoe_key *key, const aoe_record *rec)
{
    export_ctx *c = vctx;
    cJSON *o = record_json(fp, key, rec);
    char *s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!s) return c->failed = 1;
    errno = 0;
    wrote(c, fprintf(c->out, "%s\n    %s", c->n ? "," : "", s));
    free(s);
    c->n++;
    return c->werr != 0;
}

long aoe_bank_export_json(aoe_bank *b, const char *fp, FILE *out, char *err, size_t errlen)
{
    export_ctx c = {out, 0, 0, 0};
    /* Streamed one record at a time: memory stays flat however large the bank. */
    errno = 0;
    wrote(&c, fprintf(out,
                      "{\n  \"format\": \"aoe-bank\",\n  \"version\": %d,\n  \"exported\": %lld,\n"
                      "  \"records\": [",
                      AOE_BANK_FORMAT, (long long)time(NULL)));
    int rc = c.werr ? 0 : aoe_bank_foreach(b, fp, export_one, &c);
    errno = 0;
    if (!c.werr) wrote(&c, fprintf(out, "\n  ]\n}\n"));
    if (!c.werr) wrote(&c, fflush(out)); /* the records reached the output, or err says why */
    const char *why = c.werr ? strerror(c.werr) : ferror(out) ? "a write failed" : NULL;
    if (rc || c.failed || why) {
        snprintf(err, errlen, "export of %s failed%s%s", b->path,
                 why ? ": the records could not be written: " : "", why ? why : "");
        return -1;
    }
    return c.n;
}

/* ---- import: validation ---- */

#define REJECT(...)                                                                                \
    do {                                                                                           \
        snprintf(err, errlen, __VA_ARGS__);                                                        \
        return -1;                                                                                 \
    } while (0)

static int get_string(const cJSON *o, const char *name, char *dst, size_t cap, bool required,
                      char *err, size_t errlen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    dst[0] = '\0';
    if (!v) {
        if (required) REJECT("%s: missing", name);
        return 0;
    }
    if (!cJSON_IsString(v) || !v->valuestring) REJECT("%s: expected a string", name);
    size_t len = strlen(v->valuestring);
    if (len >= cap) REJECT("%s: string of %zu bytes, at most %zu allowed", name, len, cap - 1);
    memcpy(dst, v->valuestring, len + 1);
    return 0;
}

/* A JSON number that must be an integer in [lo, hi]. */
static int int_value(const cJSON *v, const char *name, double lo, double hi, double *out, char *err,
                     size_t errlen)
{
    if (!cJSON_IsNumber(v)) REJECT("%s: expected a number", name);
    double d = v->valuedouble;
    if (!isfinite(d) || d != floor(d) || d < lo || d > hi)
        REJECT("%s: %g is not an integer in %.0f..%.0f", name, d, lo, hi);
    *out = d;
    return 0;
}

static int get_int(const cJSON *o, const char *name, double lo, double hi, bool required,
                   double *out, char *err, size_t errlen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    *out = 0;
    if (!v) {
        if (required) REJECT("%s: missing", name);
        return 0;
    }
    return int_value(v, name, lo, hi, out, err, errlen);
}

static int get_time(const cJSON *o, const char *name, bool required, double *out, char *err,
                    size_t errlen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    *out = 0;
    if (!v) {
        if (required) REJECT("%s: missing", name);
        return 0;
    }
    if (!cJSON_IsNumber(v)) REJECT("%s: expected a number", name);
    if (!isfinite(v->valuedouble) || v->valuedouble < 0)
        REJECT("%s: %g is not a finite time >= 0", name, v->valuedouble);
    *out = v->valuedouble;
    return 0;
}

static int get_sizes(const cJSON *pol, const char *name, uint64_t out[3], char *err, size_t errlen)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(pol, name);
    char what[48];
    out[0] = out[1] = out[2] = 0;
    if (!a) return 0;
    if (!cJSON_IsArray(a)) REJECT("policy.%s: expected an array of up to 3 integers", name);
    int n = cJSON_GetArraySize(a);
    if (n > 3) REJECT("policy.%s: %d entries, at most 3", name, n);
    for (int i = 0; i < n; i++) {
        double d;
        snprintf(what, sizeof what, "policy.%s[%d]", name, i);
        if (int_value(cJSON_GetArrayItem(a, i), what, 0, JSON_INT_MAX, &d, err, errlen)) return -1;
        out[i] = (uint64_t)d;
    }
    return 0;
}

static int parse_policy(const cJSON *o, aoe_policy *p, char *err, size_t errlen)
{
    const cJSON *pol = cJSON_GetObjectItemCaseSensitive(o, "policy");
    double d;
    char what[48];
    if (!pol) REJECT("policy: missing");
    if (!cJSON_IsObject(pol)) REJECT("policy: expected an object");
    if (get_int(pol, "work_dim", 0, 3, true, &d, err, errlen)) {
        memmove(err + 7, err, strnlen(err, errlen - 8) + 1);
        memcpy(err, "policy.", 7);
        return -1;
    }
    p->work_dim = (uint32_t)d;
    if (get_sizes(pol, "global", p->global, err, errlen)) return -1;
    if (get_sizes(pol, "local", p->local, err, errlen)) return -1;
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(pol, "params");
    if (!params) return 0;
    if (!cJSON_IsArray(params)) REJECT("policy.params: expected an array");
    int n = cJSON_GetArraySize(params);
    if (n > AOE_MAX_PARAMS) REJECT("policy.params: %d entries, at most %d", n, AOE_MAX_PARAMS);
    for (int i = 0; i < n; i++) {
        const cJSON *pa = cJSON_GetArrayItem(params, i);
        aoe_param *dst = &p->params[i];
        char sub[160];
        if (!cJSON_IsObject(pa)) REJECT("policy.params[%d]: expected an object", i);
        if (get_string(pa, "name", dst->name, sizeof dst->name, true, sub, sizeof sub))
            REJECT("policy.params[%d].%s", i, sub);
        if (!dst->name[0]) REJECT("policy.params[%d].name: empty", i);
        snprintf(what, sizeof what, "policy.params[%d].value", i);
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(pa, "value");
        if (!v) REJECT("%s: missing", what);
        if (int_value(v, what, -JSON_INT_MAX, JSON_INT_MAX, &d, err, errlen)) return -1;
        dst->value = (int64_t)d;
        const cJSON *def = cJSON_GetObjectItemCaseSensitive(pa, "define");
        if (def && !cJSON_IsBool(def))
            REJECT("policy.params[%d].define: expected true or false", i);
        /* "kind" absent (exports before it): the define flag decides */
        dst->kind = cJSON_IsTrue(def) ? AOE_PARAM_DEFINE : AOE_PARAM_WORK_SIZE;
        const cJSON *kind = cJSON_GetObjectItemCaseSensitive(pa, "kind");
        if (kind) {
            if (!cJSON_IsString(kind) || aoe_param_kind_parse(kind->valuestring, &dst->kind))
                REJECT("policy.params[%d].kind: expected \"work_size\", \"define\" or "
                       "\"library_attribute\"",
                       i);
            if (def && cJSON_IsTrue(def) != (dst->kind == AOE_PARAM_DEFINE))
                REJECT("policy.params[%d]: kind \"%s\" disagrees with define %s", i,
                       kind->valuestring, cJSON_IsTrue(def) ? "true" : "false");
        }
        p->n_params++;
    }
    return 0;
}

/* One entry of "records": the whole record, or a reason in err. */
static int parse_entry(const cJSON *o, aoe_bank_entry *e, char *err, size_t errlen)
{
    char hex[64];
    double d;
    aoe_record *r = &e->rec;
    memset(e, 0, sizeof *e);
    if (!cJSON_IsObject(o)) REJECT("expected an object");
    if (get_string(o, "fingerprint", e->fingerprint, sizeof e->fingerprint, true, err, errlen))
        return -1;
    if (!e->fingerprint[0]) REJECT("fingerprint: empty");
    if (get_string(o, "key", hex, sizeof hex, true, err, errlen)) return -1;
    if (aoe_key_from_hex(hex, &e->key)) REJECT("key: '%s' is not 32 hex digits", hex);
    if (get_string(o, "runtime", r->runtime, sizeof r->runtime, false, err, errlen) ||
        get_string(o, "kernel_name", r->kernel_name, sizeof r->kernel_name, true, err, errlen) ||
        get_string(o, "strategy", r->strategy, sizeof r->strategy, false, err, errlen) ||
        get_string(o, "tuner_version", r->tuner_version, sizeof r->tuner_version, false, err,
                   errlen) ||
        get_string(o, "summary", r->summary, sizeof r->summary, false, err, errlen))
        return -1;
    if (!r->kernel_name[0]) REJECT("kernel_name: empty");
    if (parse_policy(o, &r->policy, err, errlen)) return -1;
    if (get_time(o, "default_us", false, &r->default_us, err, errlen) ||
        get_time(o, "default_spread_us", false, &r->default_spread_us, err, errlen) ||
        get_time(o, "tuned_us", true, &r->tuned_us, err, errlen) ||
        get_time(o, "tuned_spread_us", false, &r->tuned_spread_us, err, errlen) ||
        get_time(o, "tuning_seconds", false, &r->tuning_seconds, err, errlen))
        return -1;
    if (get_int(o, "evaluations", 0, 4294967295.0, false, &d, err, errlen)) return -1;
    r->evaluations = (uint32_t)d;
    if (get_int(o, "timestamp", -JSON_INT_MAX, JSON_INT_MAX, false, &d, err, errlen)) return -1;
    r->timestamp = (int64_t)d;
    for (const char *c = e->fingerprint; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) REJECT("fingerprint: control characters");
    return aoe_record_check(r, err, errlen); /* what decode would refuse is never stored */
}

int aoe_bank_parse_json(const char *text, size_t len, aoe_bank_entry_fn on_entry,
                        aoe_bank_reject_fn on_reject, void *ctx, char *err, size_t errlen)
{
    bool oom;
    cJSON *doc = aoe_json_parse(text, len, NULL, &oom);
    if (oom) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (!doc) {
        const char *at = cJSON_GetErrorPtr();
        size_t off = at && at >= text && at <= text + len ? (size_t)(at - text) : 0;
        snprintf(err, errlen, "not valid JSON (error near byte %zu)", off);
        return -1;
    }
    int ret = -1;
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(doc, "format");
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(doc, "version");
    const cJSON *recs = cJSON_GetObjectItemCaseSensitive(doc, "records");
    if (!cJSON_IsObject(doc) || !cJSON_IsString(fmt) || strcmp(fmt->valuestring, "aoe-bank")) {
        snprintf(err, errlen, "not an AOE bank export (no \"format\": \"aoe-bank\")");
        goto out;
    }
    if (!cJSON_IsNumber(ver) || ver->valuedouble < 1 || ver->valuedouble > AOE_BANK_FORMAT) {
        snprintf(err, errlen, "export version %s is not supported by this aoe (it reads 1..%d)",
                 cJSON_IsNumber(ver) ? "out of range" : "missing", AOE_BANK_FORMAT);
        goto out;
    }
    if (!cJSON_IsArray(recs)) {
        snprintf(err, errlen, "\"records\": expected an array");
        goto out;
    }
    aoe_bank_entry *e = malloc(sizeof *e);
    if (!e) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    size_t i = 0;
    ret = 0;
    for (const cJSON *o = recs->child; o; o = o->next, i++) {
        char why[256];
        if (parse_entry(o, e, why, sizeof why)) {
            if (on_reject) on_reject(ctx, i, why);
        } else if (on_entry && on_entry(ctx, i, e)) {
            snprintf(err, errlen, "records[%zu]: could not be stored", i);
            ret = -1;
            break;
        }
    }
    free(e);
out:
    cJSON_Delete(doc);
    return ret;
}

/* ---- import into a bank ---- */

typedef struct {
    const char *fp; /* points into fps[] */
    aoe_key key;
    bank_times t;
    uint16_t enclen;
    uint8_t enc[];
} packed_entry;

typedef struct {
    aoe_bank *b;
    aoe_bank_reject_fn on_reject;
    void *ctx;
    char *fps[AOE_BANK_MAX_FPS];
    MDB_dbi dbis[AOE_BANK_MAX_FPS];
    int n_fp;
    packed_entry **entries;
    size_t n, cap;
    size_t rejected;
    double margin;
    aoe_bank_counts counts;
} import_ctx;

static void import_reject(void *vctx, size_t index, const char *reason)
{
    import_ctx *c = vctx;
    c->rejected++;
    if (c->on_reject) c->on_reject(c->ctx, index, reason);
}

static int import_entry(void *vctx, size_t index, const aoe_bank_entry *e)
{
    import_ctx *c = vctx;
    int f;
    for (f = 0; f < c->n_fp && strcmp(c->fps[f], e->fingerprint); f++) {
    }
    if (f == c->n_fp) {
        if (c->n_fp == AOE_BANK_MAX_FPS) {
            import_reject(c, index, "fingerprint: too many fingerprints in one bank");
            return 0;
        }
        if (!(c->fps[f] = strdup(e->fingerprint))) return -1;
        c->n_fp++;
    }
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 64;
        packed_entry **p = realloc(c->entries, cap * sizeof *p);
        if (!p) return -1;
        c->entries = p, c->cap = cap;
    }
    uint8_t enc[AOE_RECORD_ENCODED_MAX];
    size_t n = aoe_record_encode(&e->rec, enc, sizeof enc);
    packed_entry *pe = malloc(sizeof *pe + n);
    if (!pe) return -1;
    pe->fp = c->fps[f];
    pe->key = e->key;
    pe->t = bank_times_of(&e->rec);
    pe->enclen = (uint16_t)n;
    memcpy(pe->enc, enc, n);
    c->entries[c->n++] = pe;
    return 0;
}

static int import_write(aoe_bank *b, MDB_txn *txn, void *vctx)
{
    import_ctx *c = vctx;
    memset(&c->counts, 0, sizeof c->counts); /* the transaction may be retried */
    for (size_t i = 0; i < c->n; i++) {
        packed_entry *pe = c->entries[i];
        int f = 0;
        while (c->fps[f] != pe->fp) f++;
        aoe_put_result r;
        int rc = bank_put_in_txn(b, txn, c->dbis[f], &pe->key, pe->enc, pe->enclen, pe->t,
                                 c->margin, &r);
        if (rc) return rc;
        bank_count_put(&c->counts, r);
    }
    return bank_finish_puts(b, txn, &c->counts);
}

int aoe_bank_import_json(aoe_bank *b, const char *text, size_t len, double margin,
                         aoe_bank_reject_fn on_reject, void *ctx, aoe_bank_counts *counts,
                         char *err, size_t errlen)
{
    import_ctx *c = calloc(1, sizeof *c);
    if (!c) return snprintf(err, errlen, "out of memory"), -1;
    c->b = b, c->on_reject = on_reject, c->ctx = ctx, c->margin = margin;
    int ret = -1;
    if (b->readonly) {
        snprintf(err, errlen, "bank %s is read-only: nothing imported", b->path);
        goto out;
    }
    if (aoe_bank_parse_json(text, len, import_entry, import_reject, c, err, errlen)) goto out;
    for (int f = 0; f < c->n_fp; f++) {
        int rc = bank_fp_dbi(b, c->fps[f], true, &c->dbis[f]);
        if (rc) {
            snprintf(err, errlen, "bank %s: fingerprint '%s': %s", b->path, c->fps[f],
                     bank_strerror(rc));
            goto out;
        }
    }
    int rc = c->n ? bank_write(b, import_write, c) : 0;
    if (rc && rc != BANK_NOCHANGE) {
        snprintf(err, errlen, "bank %s: import failed, nothing written: %s", b->path,
                 bank_strerror(rc));
        goto out;
    }
    ret = 0;
out:
    if (counts) {
        *counts = ret ? (aoe_bank_counts){0} : c->counts;
        counts->rejected = c->rejected;
    }
    for (size_t i = 0; i < c->n; i++) free(c->entries[i]);
    free(c->entries);
    aoe_bank_free_fingerprints(c->fps, c->n_fp);
    free(c);
    return ret;
}
