/* Tunables declarations reader. Every rejection is one message naming the
 * file, the kernel entry and the field, since these files are written by hand. */
#include "core/json_text.h"
#include "core/log.h"
#include "space/tunables.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const aoe_tunables_size_names[6] = {"G0", "G1", "G2", "L0", "L1", "L2"};

static int is_identifier(const char *s)
{
    if (!(s[0] == '_' || (s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z'))) return 0;
    for (const char *p = s; *p; p++)
        if (!(*p == '_' || (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
              (*p >= '0' && *p <= '9')))
            return 0;
    return 1;
}

/* Names the space reserves for itself: sizes and work-group parameters. */
static int is_reserved(const char *s)
{
    static const char *const r[] = {"G0", "G1", "G2", "L0", "L1", "L2", "WG0", "WG1", "WG2"};
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
        if (!strcmp(s, r[i])) return 1;
    return 0;
}

static int get_int(const cJSON *it, int64_t *out)
{
    if (!cJSON_IsNumber(it) || it->valuedouble != floor(it->valuedouble) ||
        fabs(it->valuedouble) > 1e15)
        return -1;
    *out = (int64_t)it->valuedouble;
    return 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int parse_param(const cJSON *p, const char *at, int i, aoe_tunable_param *out, char *err,
                       size_t errlen)
{
    if (!cJSON_IsObject(p))
        return aoe_errf(err, errlen, "%s.parameters[%d]: expected an object", at, i);
    for (const cJSON *c = p->child; c; c = c->next)
        if (strcmp(c->string, "name") && strcmp(c->string, "values") &&
            strcmp(c->string, "default"))
            return aoe_errf(err, errlen, "%s.parameters[%d].%s: unknown field", at, i, c->string);
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(p, "name");
    if (!cJSON_IsString(name) || !is_identifier(name->valuestring) ||
        strlen(name->valuestring) >= AOE_NAME_LEN)
        return aoe_errf(err, errlen,
                        "%s.parameters[%d].name: expected an identifier of at most %d characters",
                        at, i, AOE_NAME_LEN - 1);
    if (is_reserved(name->valuestring))
        return aoe_errf(err, errlen,
                        "%s.parameters[%d].name: \"%s\" is reserved (G0..G2, L0..L2, WG0..WG2)", at,
                        i, name->valuestring);
    snprintf(out->name, sizeof out->name, "%s", name->valuestring);
    const cJSON *vals = cJSON_GetObjectItemCaseSensitive(p, "values");
    int n = cJSON_IsArray(vals) ? cJSON_GetArraySize(vals) : 0;
    if (n < 1 || n > AOE_SPACE_MAX_VALUES)
        return aoe_errf(err, errlen,
                        "%s.parameters[%d].values: expected an array of 1..%d integers", at, i,
                        AOE_SPACE_MAX_VALUES);
    int k = 0;
    for (const cJSON *v = vals->child; v; v = v->next, k++)
        if (get_int(v, &out->values[k]))
            return aoe_errf(err, errlen, "%s.parameters[%d].values[%d]: expected an integer", at, i,
                            k);
    out->n_values = n;
    qsort(out->values, (size_t)n, sizeof out->values[0], cmp_i64);
    for (k = 1; k < n; k++)
        if (out->values[k] == out->values[k - 1])
            return aoe_errf(err, errlen, "%s.parameters[%d].values: %lld appears twice", at, i,
                            (long long)out->values[k]);
    const cJSON *def = cJSON_GetObjectItemCaseSensitive(p, "default");
    if (!def) return aoe_errf(err, errlen, "%s.parameters[%d].default: missing", at, i);
    if (get_int(def, &out->def))
        return aoe_errf(err, errlen, "%s.parameters[%d].default: expected an integer", at, i);
    for (k = 0; k < n && out->values[k] != out->def; k++) continue;
    if (k == n)
        return aoe_errf(err, errlen, "%s.parameters[%d].default: %lld is not one of the values", at,
                        i, (long long)out->def);
    return 0;
}

/* Parses an expression (a string, or an integer for a constant) and binds it
 * to the declared parameters and the size names. */
static aoe_expr *parse_bound(const cJSON *it, const char *field, const aoe_tunable_kernel *k,
                             char *err, size_t errlen)
{
    char text[32], msg[256];
    const char *src;
    int64_t v;
    if (cJSON_IsString(it))
        src = it->valuestring;
    else if (!get_int(it, &v) && v >= 0)
        snprintf(text, sizeof text, "%lld", (long long)v), src = text;
    else {
        aoe_errf(err, errlen, "%s: expected an expression string or a non-negative integer", field);
        return NULL;
    }
    const char *names[AOE_MAX_PARAMS + 6];
    int n = 0;
    for (int i = 0; i < k->n_params; i++) names[n++] = k->params[i].name;
    for (int i = 0; i < 6; i++) names[n++] = aoe_tunables_size_names[i];
    aoe_expr *e = aoe_expr_parse(src, msg, sizeof msg);
    if (e && aoe_expr_bind(e, names, n, msg, sizeof msg)) {
        aoe_expr_free(e);
        e = NULL;
    }
    if (!e) aoe_errf(err, errlen, "%s: %s", field, msg);
    return e;
}

static int parse_tolerance(const cJSON *t, const char *at, double *rel_l2, double *max_abs,
                           char *err, size_t errlen)
{
    if (!t) return 0;
    if (!cJSON_IsObject(t)) return aoe_errf(err, errlen, "%s.tolerance: expected an object", at);
    for (const cJSON *c = t->child; c; c = c->next) {
        double *dst = !strcmp(c->string, "rel_l2")    ? rel_l2
                      : !strcmp(c->string, "max_abs") ? max_abs
                                                      : NULL;
        if (!dst) return aoe_errf(err, errlen, "%s.tolerance.%s: unknown field", at, c->string);
        if (!cJSON_IsNumber(c) || !isfinite(c->valuedouble) || c->valuedouble < 0)
            return aoe_errf(err, errlen, "%s.tolerance.%s: expected a non-negative number", at,
                            c->string);
        *dst = c->valuedouble;
    }
    return 0;
}

static int parse_rules(const cJSON *kobj, const char *key, const char *at, aoe_tunable_kernel *k,
                       aoe_expr **rules, int *nrules, char *err, size_t errlen)
{
    char field[300];
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(kobj, key);
    if (!r || cJSON_IsNull(r)) return 0;
    int n = cJSON_IsArray(r) ? cJSON_GetArraySize(r) : 0;
    if (n < 1 || n > 3)
        return aoe_errf(err, errlen,
                        "%s.%s: expected an array of 1..3 expressions (one per dimension)", at,
                        key);
    int d = 0;
    for (const cJSON *it = r->child; it; it = it->next, d++) {
        snprintf(field, sizeof field, "%s.%s[%d]", at, key, d);
        if (!(rules[d] = parse_bound(it, field, k, err, errlen))) return -1;
    }
    *nrules = n;
    return 0;
}

/* "scalars": the indexes of the kernel arguments (scalars) whose values the
 * best tunables depend on; declared even when empty (keys across runs). */
static int parse_scalars(const cJSON *kobj, const char *at, aoe_tunable_kernel *k, char *err,
                         size_t errlen)
{
    const cJSON *sc = cJSON_GetObjectItemCaseSensitive(kobj, "scalars");
    if (!sc) return 0;
    if (!cJSON_IsArray(sc))
        return aoe_errf(err, errlen, "%s.scalars: expected an array of argument indexes", at);
    int i = 0;
    for (const cJSON *c = sc->child; c; c = c->next, i++) {
        if (!cJSON_IsNumber(c) || c->valuedouble < 0 || c->valuedouble > 63 ||
            c->valuedouble != (double)(int)c->valuedouble)
            return aoe_errf(err, errlen, "%s.scalars[%d]: expected an argument index 0..63", at, i);
        uint64_t bit = 1ull << (int)c->valuedouble;
        if (k->scalars & bit)
            return aoe_errf(err, errlen, "%s.scalars[%d]: argument %d listed twice", at, i,
                            (int)c->valuedouble);
        k->scalars |= bit;
    }
    k->has_scalars = 1;
    return 0;
}

static int parse_kernel(const cJSON *kobj, const char *at, int need_name, aoe_tunable_kernel *k,
                        char *err, size_t errlen)
{
    static const char *const known[] = {
        "kernel", "runtime", "source_hash", "source_contains", "parameters", "constraints",
        "global", "local",   "tolerance",   "scalars",         NULL};
    char field[300];
    memset(k, 0, sizeof *k);
    k->rel_l2 = k->max_abs = -1;
    snprintf(k->origin, sizeof k->origin, "%s", at);
    if (!cJSON_IsObject(kobj)) return aoe_errf(err, errlen, "%s: expected an object", at);
    for (const cJSON *c = kobj->child; c; c = c->next) {
        const char *const *p = known;
        while (*p && strcmp(*p, c->string)) p++;
        if (!*p) return aoe_errf(err, errlen, "%s.%s: unknown field", at, c->string);
    }
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(kobj, "kernel");
    if (name || need_name) {
        if (!name || !cJSON_IsString(name) || !name->valuestring[0] ||
            strlen(name->valuestring) >= AOE_KERNEL_NAME_LEN)
            return aoe_errf(err, errlen, "%s.kernel: expected the kernel's name", at);
        snprintf(k->kernel, sizeof k->kernel, "%s", name->valuestring);
    }
    const cJSON *rt = cJSON_GetObjectItemCaseSensitive(kobj, "runtime");
    snprintf(k->runtime, sizeof k->runtime, "opencl");
    if (rt) {
        if (!cJSON_IsString(rt) ||
            (strcmp(rt->valuestring, "opencl") && strcmp(rt->valuestring, "cuda")))
            return aoe_errf(err, errlen, "%s.runtime: expected one of %s", at,
                            AOE_TUNABLES_RUNTIMES);
        snprintf(k->runtime, sizeof k->runtime, "%s", rt->valuestring);
    }
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(kobj, "source_hash");
    if (h) {
        int ok = cJSON_IsString(h) && strlen(h->valuestring) == 32;
        for (int i = 0; ok && i < 32; i++)
            ok = strchr("0123456789abcdefABCDEF", h->valuestring[i]) != NULL;
        if (!ok) return aoe_errf(err, errlen, "%s.source_hash: expected 32 hexadecimal digits", at);
        for (int i = 0; i < 32; i++) k->source_hash[i] = (char)(h->valuestring[i] | 0x20);
    }
    const cJSON *sc = cJSON_GetObjectItemCaseSensitive(kobj, "source_contains");
    if (sc) {
        if (!cJSON_IsString(sc) || !sc->valuestring[0])
            return aoe_errf(err, errlen, "%s.source_contains: expected a non-empty string", at);
        if (!(k->source_contains = strdup(sc->valuestring)))
            return aoe_errf(err, errlen, "%s: out of memory", at);
    }
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(kobj, "parameters");
    int np = cJSON_IsArray(params) ? cJSON_GetArraySize(params) : -1;
    if (params && (np < 0 || np > AOE_MAX_PARAMS))
        return aoe_errf(err, errlen, "%s.parameters: expected an array of at most %d parameters",
                        at, AOE_MAX_PARAMS);
    int i = 0;
    for (const cJSON *p = params ? params->child : NULL; p; p = p->next, i++) {
        if (parse_param(p, at, i, &k->params[i], err, errlen)) return -1;
        for (int j = 0; j < i; j++)
            if (!strcmp(k->params[j].name, k->params[i].name))
                return aoe_errf(err, errlen, "%s.parameters[%d].name: \"%s\" declared twice", at, i,
                                k->params[i].name);
        k->n_params = i + 1;
    }
    const cJSON *cons = cJSON_GetObjectItemCaseSensitive(kobj, "constraints");
    int nc = cJSON_IsArray(cons) ? cJSON_GetArraySize(cons) : -1;
    if (cons && (nc < 0 || nc > AOE_TUNABLES_MAX_CONSTRAINTS))
        return aoe_errf(err, errlen, "%s.constraints: expected an array of at most %d expressions",
                        at, AOE_TUNABLES_MAX_CONSTRAINTS);
    i = 0;
    for (const cJSON *c = cons ? cons->child : NULL; c; c = c->next, i++) {
        snprintf(field, sizeof field, "%s.constraints[%d]", at, i);
        if (!cJSON_IsString(c))
            return aoe_errf(err, errlen, "%s: expected an expression string", field);
        if (!(k->constraints[i] = parse_bound(c, field, k, err, errlen))) return -1;
        k->n_constraints = i + 1;
    }
    if (parse_rules(kobj, "global", at, k, k->global_rule, &k->n_global_rules, err, errlen) ||
        parse_rules(kobj, "local", at, k, k->local_rule, &k->n_local_rules, err, errlen) ||
        parse_scalars(kobj, at, k, err, errlen))
        return -1;
    return parse_tolerance(cJSON_GetObjectItemCaseSensitive(kobj, "tolerance"), at, &k->rel_l2,
                           &k->max_abs, err, errlen);
}

int aoe_tunables_parse(const char *text, size_t len, const char *origin, aoe_tunables *out,
                       char *err, size_t errlen)
{
    char at[256];
    bool oom;
    cJSON *root = aoe_json_parse(text, len, NULL, &oom);
    if (oom) return aoe_errf(err, errlen, "%s: out of memory", origin);
    if (!root) {
        const char *e = cJSON_GetErrorPtr();
        long off = e && e >= text && e <= text + len ? (long)(e - text) : -1;
        return aoe_errf(err, errlen, "%s: not valid JSON (near byte %ld)", origin, off);
    }
    int rc = -1;
    double rel_l2 = -1, max_abs = -1;
    const cJSON *kernels = cJSON_GetObjectItemCaseSensitive(root, "kernels");
    if (!cJSON_IsObject(root)) {
        aoe_errf(err, errlen, "%s: expected a JSON object with \"kernels\"", origin);
        goto out;
    }
    for (const cJSON *c = root->child; c; c = c->next)
        if (strcmp(c->string, "format") && strcmp(c->string, "kernels") &&
            strcmp(c->string, "tolerance")) {
            aoe_errf(err, errlen, "%s: %s: unknown field", origin, c->string);
            goto out;
        }
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(root, "format");
    if (fmt && !(cJSON_IsNumber(fmt) && fmt->valuedouble == 1)) {
        aoe_errf(err, errlen, "%s: format: expected 1", origin);
        goto out;
    }
    if (parse_tolerance(cJSON_GetObjectItemCaseSensitive(root, "tolerance"), origin, &rel_l2,
                        &max_abs, err, errlen))
        goto out;
    int n = cJSON_IsArray(kernels) ? cJSON_GetArraySize(kernels) : -1;
    if (n < 1 || n > 4096) {
        aoe_errf(err, errlen, "%s: kernels: expected a non-empty array of kernel declarations",
                 origin);
        goto out;
    }
    aoe_tunable_kernel *k = realloc(out->k, (size_t)(out->n + n) * sizeof *k);
    if (!k) {
        aoe_errf(err, errlen, "%s: out of memory", origin);
        goto out;
    }
    out->k = k;
    int i = 0;
    for (const cJSON *kobj = kernels->child; kobj; kobj = kobj->next, i++) {
        snprintf(at, sizeof at, "%.200s: kernels[%d]", origin, i);
        aoe_tunable_kernel *dst = &out->k[out->n];
        int bad = parse_kernel(kobj, at, 1, dst, err, errlen);
        if (bad) {
            aoe_tunable_kernel_clear(dst);
            goto out;
        }
        if (dst->rel_l2 < 0) dst->rel_l2 = rel_l2; /* the kernel's own wins over the file's */
        if (dst->max_abs < 0) dst->max_abs = max_abs;
        out->n++;
    }
    rc = 0;
out:
    cJSON_Delete(root);
    return rc;
}

int aoe_tunables_parse_kernel_json(const char *json, const char *origin, aoe_tunable_kernel *k,
                                   char *err, size_t errlen)
{
    bool oom;
    cJSON *root = aoe_json_parse(json, json ? strlen(json) : 0, NULL, &oom);
    if (!root) {
        memset(k, 0, sizeof *k);
        return aoe_errf(err, errlen, "%s: %s", origin, oom ? "out of memory" : "not valid JSON");
    }
    int rc = parse_kernel(root, origin, 0, k, err, errlen);
    cJSON_Delete(root);
    if (rc) aoe_tunable_kernel_clear(k);
    return rc;
}

int aoe_tunables_read(const char *path, aoe_tunables *out, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) return aoe_errf(err, errlen, "cannot open tunables file %s: %s", path, strerror(errno));
    char *text = malloc(AOE_TUNABLES_MAX_FILE + 1);
    if (!text) {
        fclose(f);
        return aoe_errf(err, errlen, "%s: out of memory", path);
    }
    size_t n = fread(text, 1, AOE_TUNABLES_MAX_FILE + 1, f);
    int bad = ferror(f);
    fclose(f);
    int rc;
    if (bad)
        rc = aoe_errf(err, errlen, "cannot read tunables file %s", path);
    else if (n > AOE_TUNABLES_MAX_FILE)
        rc = aoe_errf(err, errlen, "%s: larger than %u bytes", path, AOE_TUNABLES_MAX_FILE);
    else
        rc = aoe_tunables_parse(text, n, path, out, err, errlen);
    free(text);
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int load_dir(const char *dir, aoe_tunables *out, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT ? 0
                               : aoe_errf(err, errlen, "cannot open %s: %s", dir, strerror(errno));
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") || e->d_name[0] == '.') continue;
        if (n == cap) {
            char **nn = realloc(names, (cap = cap ? cap * 2 : 16) * sizeof *nn);
            if (!nn) {
                rc = aoe_errf(err, errlen, "out of memory");
                break;
            }
            names = nn;
        }
        if (!(names[n] = strdup(e->d_name))) {
            rc = aoe_errf(err, errlen, "out of memory");
            break;
        }
        n++;
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, cmp_str); /* a stable order: later files override */
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (!rc) rc = aoe_tunables_read(path, out, err, errlen);
        free(names[i]);
    }
    free(names);
    return rc;
}

int aoe_tunables_load(const char *dir, const char *extra, aoe_tunables *out, char *err,
                      size_t errlen)
{
    if (dir && *dir && load_dir(dir, out, err, errlen)) return -1;
    for (const char *p = extra; p && *p;) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len) {
            char path[4096];
            if (len >= sizeof path) return aoe_errf(err, errlen, "AOE_TUNABLES: path too long");
            memcpy(path, p, len);
            path[len] = '\0';
            if (aoe_tunables_read(path, out, err, errlen)) return -1;
        }
        p = end ? end + 1 : p + len;
    }
    return 0;
}

const aoe_tunable_kernel *aoe_tunables_match(const aoe_tunables *t, const char *runtime,
                                             const char *kernel, const char *source,
                                             aoe_hash128 program)
{
    if (!runtime || !*runtime) runtime = "opencl";
    char hex[33];
    snprintf(hex, sizeof hex, "%016llx%016llx", (unsigned long long)program.hi,
             (unsigned long long)program.lo);
    for (int i = t->n - 1; i >= 0; i--) {
        const aoe_tunable_kernel *k = &t->k[i];
        if (strcmp(k->kernel, kernel) || strcmp(k->runtime, runtime)) continue;
        if (k->source_hash[0] && strcmp(k->source_hash, hex)) continue;
        if (k->source_contains && (!source || !strstr(source, k->source_contains))) continue;
        return k;
    }
    return NULL;
}

void aoe_tunable_kernel_clear(aoe_tunable_kernel *k)
{
    free(k->source_contains);
    for (int i = 0; i < AOE_TUNABLES_MAX_CONSTRAINTS; i++) aoe_expr_free(k->constraints[i]);
    for (int d = 0; d < 3; d++) {
        aoe_expr_free(k->global_rule[d]);
        aoe_expr_free(k->local_rule[d]);
    }
    memset(k, 0, sizeof *k);
}

void aoe_tunables_free(aoe_tunables *t)
{
    for (int i = 0; i < t->n; i++) aoe_tunable_kernel_clear(&t->k[i]);
    free(t->k);
    memset(t, 0, sizeof *t);
}
