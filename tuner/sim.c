/* Loader and scorer of recorded search spaces (simulation mode). */
#include "tuner/sim.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

static void fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

void aoe_sim_free(aoe_sim_dataset *ds)
{
    if (!ds) return;
    for (int p = 0; ds->param_names && p < ds->n_params; p++) free(ds->param_names[p]);
    free(ds->param_names);
    free(ds->n_values);
    free(ds->value_list_id);
    free(ds->configs);
    free(ds->times);
    free(ds->name);
    free(ds->kernel);
    free(ds->device);
    free(ds);
}

/* The values of one parameter, and the order they take as indices. */
typedef struct {
    cJSON *list;
    int n;
    cJSON **sorted; /* index -> value */
} param_values;

static int cmp_number(const void *a, const void *b)
{
    double x = (*(cJSON *const *)a)->valuedouble, y = (*(cJSON *const *)b)->valuedouble;
    return x < y ? -1 : x > y;
}

static bool same_value(const cJSON *a, const cJSON *b)
{
    if (cJSON_IsNumber(a) && cJSON_IsNumber(b)) return a->valuedouble == b->valuedouble;
    if (cJSON_IsString(a) && cJSON_IsString(b)) return !strcmp(a->valuestring, b->valuestring);
    if (cJSON_IsBool(a) && cJSON_IsBool(b)) return cJSON_IsTrue(a) == cJSON_IsTrue(b);
    return false;
}

/* Same values in the same index order. */
static bool same_list(const param_values *a, const param_values *b)
{
    if (a->n != b->n) return false;
    for (int i = 0; i < a->n; i++)
        if (!same_value(a->sorted[i], b->sorted[i])) return false;
    return true;
}

/* Index of `v` among the parameter's values, or -1. */
static int value_index(const param_values *pv, const cJSON *v)
{
    for (int i = 0; i < pv->n; i++)
        if (same_value(pv->sorted[i], v)) return i;
    return -1;
}

/* Index of a value written as text in a cache key, or -1. */
static int token_index(const param_values *pv, const char *tok, size_t len)
{
    char buf[128];
    if (len >= sizeof buf) return -1;
    memcpy(buf, tok, len);
    buf[len] = 0;
    char *end;
    double d = strtod(buf, &end);
    bool numeric = len > 0 && *end == 0;
    for (int i = 0; i < pv->n; i++) {
        const cJSON *v = pv->sorted[i];
        if (numeric && cJSON_IsNumber(v) && v->valuedouble == d) return i;
        if (cJSON_IsString(v) && !strcmp(v->valuestring, buf)) return i;
        if (cJSON_IsBool(v) && !strcmp(buf, cJSON_IsTrue(v) ? "True" : "False")) return i;
    }
    return -1;
}

static const char *text_or_empty(const cJSON *root, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* Fills ds from a parsed cache file; returns 0 or -1 with err set. */
static int build(aoe_sim_dataset *ds, cJSON *root, param_values *pv, char *err, size_t errlen)
{
    const cJSON *keys = cJSON_GetObjectItemCaseSensitive(root, "tune_params_keys");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(root, "tune_params");
    const cJSON *cache = cJSON_GetObjectItemCaseSensitive(root, "cache");
    if (!cJSON_IsArray(keys) || !cJSON_IsObject(params) || !cJSON_IsObject(cache)) {
        fail(err, errlen,
             "not a Kernel Tuner cache file: needs \"tune_params_keys\" (array), "
             "\"tune_params\" (object) and \"cache\" (object)");
        return -1;
    }
    int np = cJSON_GetArraySize(keys);
    if (np < 1 || np > AOE_SIM_MAX_PARAMS) {
        fail(err, errlen, "\"tune_params_keys\" has %d entries (1..%d allowed)", np,
             AOE_SIM_MAX_PARAMS);
        return -1;
    }
    ds->n_params = np;
    ds->param_names = calloc((size_t)np, sizeof(char *));
    ds->n_values = calloc((size_t)np, sizeof(int));
    ds->value_list_id = calloc((size_t)np, sizeof(int));
    if (!ds->param_names || !ds->n_values || !ds->value_list_id) goto oom;
    for (int p = 0; p < np; p++) {
        const cJSON *k = cJSON_GetArrayItem(keys, p);
        if (!cJSON_IsString(k)) {
            fail(err, errlen, "\"tune_params_keys\"[%d] is not a string", p);
            return -1;
        }
        if (!(ds->param_names[p] = dup_str(k->valuestring))) goto oom;
        cJSON *list = cJSON_GetObjectItemCaseSensitive(params, k->valuestring);
        int n = cJSON_GetArraySize(list);
        if (!cJSON_IsArray(list) || n < 1 || n > UINT16_MAX) {
            fail(err, errlen, "\"tune_params\".\"%s\" must be an array of 1..%d values",
                 k->valuestring, UINT16_MAX);
            return -1;
        }
        pv[p].list = list;
        pv[p].n = n;
        if (!(pv[p].sorted = malloc((size_t)n * sizeof(cJSON *)))) goto oom;
        bool numeric = true;
        int i = 0;
        for (cJSON *v = list->child; v && i < n; v = v->next, i++) {
            pv[p].sorted[i] = v;
            if (!cJSON_IsNumber(v)) numeric = false;
        }
        if (numeric) qsort(pv[p].sorted, (size_t)n, sizeof(cJSON *), cmp_number);
        ds->n_values[p] = n;
        ds->value_list_id[p] = p;
        for (int q = 0; q < p && ds->value_list_id[p] == p; q++)
            if (same_list(&pv[q], &pv[p])) ds->value_list_id[p] = q;
    }

    size_t ne = (size_t)cJSON_GetArraySize(cache);
    ds->configs = malloc((ne ? ne : 1) * (size_t)np * sizeof(uint16_t));
    ds->times = malloc((ne ? ne : 1) * sizeof(double));
    if (!ds->configs || !ds->times) goto oom;
    size_t rows = 0;
    ds->optimum = INFINITY;
    for (const cJSON *e = cache->child; e; e = e->next) {
        if (!cJSON_IsObject(e) || !e->string) {
            fail(err, errlen, "cache entry %zu is not an object", rows);
            return -1;
        }
        uint16_t *row = ds->configs + rows * (size_t)np;
        const char *tok = e->string;
        for (int p = 0; p < np; p++) {
            /* The entry's own fields name the values; the key is the fallback. */
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, ds->param_names[p]);
            const char *comma = tok ? strchr(tok, ',') : NULL;
            size_t len = tok ? (comma ? (size_t)(comma - tok) : strlen(tok)) : 0;
            int idx = v ? value_index(&pv[p], v) : tok ? token_index(&pv[p], tok, len) : -1;
            if (idx < 0) {
                fail(err, errlen, "cache entry \"%.60s\": value of \"%s\" is not in tune_params",
                     e->string, ds->param_names[p]);
                return -1;
            }
            row[p] = (uint16_t)idx;
            tok = comma ? comma + 1 : NULL;
        }
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(e, "time");
        double time = -1;
        if (cJSON_IsNumber(t) && t->valuedouble > 0 && isfinite(t->valuedouble))
            time = t->valuedouble;
        else if (!cJSON_IsString(t)) {
            fail(err, errlen,
                 "cache entry \"%.60s\": \"time\" must be a positive number or a "
                 "failure string",
                 e->string);
            return -1;
        }
        ds->times[rows] = time;
        if (time < 0)
            ds->n_failed++;
        else if (time < ds->optimum)
            ds->optimum = time;
        rows++;
    }
    if (!isfinite(ds->optimum)) {
        fail(err, errlen, "no successful configuration in \"cache\" (%zu entries)", rows);
        return -1;
    }
    ds->space.n_params = np;
    ds->space.n_values = ds->n_values;
    ds->space.n_configs = rows;
    ds->space.configs = ds->configs;
    ds->space.value_list_id = ds->value_list_id;
    ds->kernel = dup_str(text_or_empty(root, "kernel_name"));
    ds->device = dup_str(text_or_empty(root, "device_name"));
    if (!ds->kernel || !ds->device) goto oom;
    return 0;
oom:
    fail(err, errlen, "out of memory");
    return -1;
}

aoe_sim_dataset *aoe_sim_parse(const char *json, size_t len, const char *name, char *err,
                               size_t errlen)
{
    cJSON *root = cJSON_ParseWithLength(json, len);
    if (!root) {
        fail(err, errlen, "not a JSON document (parse error near byte %zu)",
             cJSON_GetErrorPtr() ? (size_t)(cJSON_GetErrorPtr() - json) : (size_t)0);
        return NULL;
    }
    aoe_sim_dataset *ds = calloc(1, sizeof *ds);
    param_values *pv = calloc(AOE_SIM_MAX_PARAMS, sizeof *pv);
    int rc = -1;
    if (!ds || !pv || !(ds->name = dup_str(name ? name : "")))
        fail(err, errlen, "out of memory");
    else
        rc = build(ds, root, pv, err, errlen);
    for (int p = 0; pv && p < AOE_SIM_MAX_PARAMS; p++) free(pv[p].sorted);
    free(pv);
    cJSON_Delete(root);
    if (rc) {
        aoe_sim_free(ds);
        return NULL;
    }
    return ds;
}

aoe_sim_dataset *aoe_sim_load(const char *path, char *err, size_t errlen)
{
    gzFile f = gzopen(path, "rb");
    if (!f) {
        fail(err, errlen, "%s: cannot open", path);
        return NULL;
    }
    size_t cap = 1 << 20, len = 0;
    char *buf = malloc(cap);
    int n = 0;
    while (buf && (n = gzread(f, buf + len, (unsigned)(cap - len))) > 0) {
        len += (size_t)n;
        if (len == cap) {
            if (cap >= AOE_SIM_MAX_BYTES) {
                n = -2;
                break;
            }
            char *bigger = realloc(buf, cap * 2);
            if (!bigger) break;
            buf = bigger;
            cap *= 2;
        }
    }
    int zerr = 0;
    const char *zmsg = n < 0 ? gzerror(f, &zerr) : NULL;
    char reason[160];
    snprintf(reason, sizeof reason, "%s", zmsg ? zmsg : "");
    gzclose(f);
    aoe_sim_dataset *ds = NULL;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char inner[512] = "";
    if (!buf || (n >= 0 && len == cap))
        fail(err, errlen, "%s: out of memory", path);
    else if (n == -2)
        fail(err, errlen, "%s: larger than %u bytes uncompressed", path, AOE_SIM_MAX_BYTES);
    else if (n < 0)
        fail(err, errlen, "%s: cannot decompress (%s)", path, reason);
    else if (len == 0)
        fail(err, errlen, "%s: empty file", path);
    else if (!(ds = aoe_sim_parse(buf, len, base, inner, sizeof inner)))
        fail(err, errlen, "%s: %s", path, inner);
    free(buf);
    return ds;
}

double aoe_sim_eval(void *ctx, size_t config)
{
    aoe_sim_run *run = ctx;
    double t = config < run->ds->space.n_configs ? run->ds->times[config] : -1;
    if (run->n < run->cap) run->trace[run->n++] = t;
    return t;
}

double aoe_sim_fraction(double optimum, const double *trace, size_t n_trace, size_t n)
{
    double best = INFINITY;
    for (size_t i = 0; i < n && i < n_trace; i++)
        if (trace[i] > 0 && trace[i] < best) best = trace[i];
    return isfinite(best) ? optimum / best : 0.0;
}

int aoe_sim_score(const aoe_sim_dataset *ds, const char *strategy, size_t max_evals, int runs,
                  uint64_t seed, const size_t *at, size_t n_at, double *mean_at)
{
    return aoe_sim_score_stats(ds, strategy, max_evals, runs, seed, at, n_at, mean_at, NULL, NULL);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

int aoe_sim_score_stats(const aoe_sim_dataset *ds, const char *strategy, size_t max_evals, int runs,
                        uint64_t seed, const size_t *at, size_t n_at, double *mean_at,
                        double *stderr_at, double *ms_per_eval)
{
    aoe_sim_run run = {.ds = ds, .cap = max_evals};
    run.trace = malloc((max_evals ? max_evals : 1) * sizeof(double));
    double *sq = calloc(n_at ? n_at : 1, sizeof(double));
    if (!run.trace || !sq) {
        free(run.trace);
        free(sq);
        return -1;
    }
    for (size_t j = 0; j < n_at; j++) mean_at[j] = 0;
    size_t evals = 0;
    double t0 = now_ms();
    for (int r = 0; r < runs; r++) {
        aoe_budget b = {.max_evals = max_evals, .seed = seed + (uint64_t)r, .start_config = -1};
        aoe_search_result res;
        run.n = 0;
        if (aoe_strategy_run(strategy, &ds->space, aoe_sim_eval, &run, &b, &res)) {
            free(run.trace);
            free(sq);
            return -1;
        }
        evals += res.evaluations;
        for (size_t j = 0; j < n_at; j++) {
            double f = aoe_sim_fraction(ds->optimum, run.trace, run.n, at[j]);
            mean_at[j] += f;
            sq[j] += f * f;
        }
    }
    /* The look-up is free: the wall time is the strategy's own, choosing. */
    if (ms_per_eval) *ms_per_eval = evals ? (now_ms() - t0) / (double)evals : 0;
    for (size_t j = 0; j < n_at && runs > 0; j++) {
        mean_at[j] /= runs;
        double var = runs > 1 ? (sq[j] - runs * mean_at[j] * mean_at[j]) / (runs - 1) : 0;
        if (stderr_at) stderr_at[j] = var > 0 ? sqrt(var / runs) : 0;
    }
    free(run.trace);
    free(sq);
    return 0;
}
