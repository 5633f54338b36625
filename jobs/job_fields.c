/* Job reader internals: typed field readers and the argument list, shared by
 * both formats. Every rejection names the field at fault, because a job may
 * come from another machine or a hand edit and the person reading the message
 * has only the file. */
#include "jobs/job_fields.h"

#include "core/base64.h"
#include "core/log.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int aoe_jf_uint(const cJSON *it, const char *field, double min, double max, uint64_t *out,
                char *err, size_t errlen)
{
    if (!cJSON_IsNumber(it) || it->valuedouble != floor(it->valuedouble) || it->valuedouble < min ||
        it->valuedouble > max)
        return aoe_errf(err, errlen, "%s: expected an integer in %.0f..%.0f", field, min, max);
    *out = (uint64_t)it->valuedouble;
    return 0;
}

int aoe_jf_string(const cJSON *obj, const char *name, const char *field, int required,
                  size_t maxlen, char **out, char *err, size_t errlen)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, name);
    *out = NULL;
    if (!it || (cJSON_IsNull(it) && !required)) {
        if (required) return aoe_errf(err, errlen, "%s: missing", field);
        return 0;
    }
    if (!cJSON_IsString(it) || !it->valuestring)
        return aoe_errf(err, errlen, "%s: expected a string", field);
    if (maxlen && strlen(it->valuestring) > maxlen)
        return aoe_errf(err, errlen, "%s: longer than %zu characters", field, maxlen);
    *out = strdup(it->valuestring);
    if (!*out) return aoe_errf(err, errlen, "%s: out of memory", field);
    return 0;
}

int aoe_jf_b64(const cJSON *it, const char *field, uint64_t expect, uint8_t **out, uint64_t *outlen,
               char *err, size_t errlen)
{
    if (!cJSON_IsString(it) || !it->valuestring)
        return aoe_errf(err, errlen, "%s: expected a base64 string", field);
    size_t n = 0;
    *out = aoe_b64_decode(it->valuestring, strlen(it->valuestring), &n);
    if (!*out) return aoe_errf(err, errlen, "%s: not valid base64", field);
    if (expect && n != expect) {
        free(*out);
        *out = NULL;
        return aoe_errf(err, errlen, "%s: holds %zu bytes but size is %llu", field, n,
                        (unsigned long long)expect);
    }
    if (outlen) *outlen = n;
    return 0;
}

int aoe_jf_known(const cJSON *obj, const char *const *known, const char *prefix, char *err,
                 size_t errlen)
{
    for (const cJSON *c = obj->child; c; c = c->next) {
        int ok = 0;
        for (const char *const *k = known; *k && !ok; k++) ok = c->string && !strcmp(c->string, *k);
        if (!ok)
            return aoe_errf(err, errlen, "%s%s: unknown field", prefix,
                            c->string ? c->string : "?");
        /* only known names get here: at most one pass over a few members */
        for (const cJSON *p = obj->child; p != c; p = p->next)
            if (!strcmp(p->string, c->string))
                return aoe_errf(err, errlen, "%s%s: appears twice", prefix, c->string);
    }
    return 0;
}

int aoe_jf_sizes(const cJSON *it, const char *field, uint32_t n, uint64_t out[3], char *err,
                 size_t errlen)
{
    char f[48];
    if (!cJSON_IsArray(it))
        return aoe_errf(err, errlen, "%s: expected an array of integers", field);
    if ((uint32_t)cJSON_GetArraySize(it) != n)
        return aoe_errf(err, errlen, "%s: expected %u entries (the dimensions), found %d", field, n,
                        cJSON_GetArraySize(it));
    uint32_t d = 0;
    for (const cJSON *c = it->child; c && d < n; c = c->next, d++) {
        snprintf(f, sizeof f, "%s[%u]", field, d);
        if (aoe_jf_uint(c, f, 1, AOE_JOB_MAX_INT, &out[d], err, errlen)) return -1;
    }
    return 0;
}

/* The element type of a format 2 argument ("type", optional: bytes), whose
 * size must hold whole elements. */
static int parse_type(const cJSON *a, uint32_t i, aoe_job_arg *arg, char *err, size_t errlen)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(a, "type");
    arg->elem = AOE_ELEM_BYTES;
    if (!t) return 0;
    if (arg->kind == AOE_JOB_ARG_NULLMEM || arg->kind == AOE_JOB_ARG_SAMPLER)
        return aoe_errf(err, errlen, "args[%u].type: a %s argument has no type", i,
                        arg->kind == AOE_JOB_ARG_NULLMEM ? "null" : "sampler");
    if (!cJSON_IsString(t) || aoe_elem_parse(t->valuestring, &arg->elem)) {
        char names[160] = "";
        for (int e = 0; e < AOE_ELEM_COUNT; e++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", e ? ", " : "",
                     aoe_elem_name((aoe_elem_type)e));
        return aoe_errf(err, errlen, "args[%u].type: expected one of %s", i, names);
    }
    size_t es = aoe_elem_size(arg->elem);
    if (arg->size % es)
        return aoe_errf(err, errlen, "args[%u].size: %llu bytes are not whole %s elements", i,
                        (unsigned long long)arg->size, aoe_elem_name(arg->elem));
    return 0;
}

static int parse_arg(const cJSON *a, uint32_t i, int format, aoe_job_arg *arg, char *err,
                     size_t errlen)
{
    static const char *const known1[] = {"kind", "size", "flags", "data_b64", "synthetic", NULL};
    static const char *const known2[] = {"kind",      "size",  "type",    "data_b64",
                                         "synthetic", "image", "sampler", NULL};
    char field[48], prefix[24];
    snprintf(prefix, sizeof prefix, "args[%u].", i);
    if (!cJSON_IsObject(a)) return aoe_errf(err, errlen, "args[%u]: expected an object", i);
    if (aoe_jf_known(a, format == 1 ? known1 : known2, prefix, err, errlen)) return -1;
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(a, "kind");
    const cJSON *size = cJSON_GetObjectItemCaseSensitive(a, "size");
    const cJSON *flags = cJSON_GetObjectItemCaseSensitive(a, "flags");
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(a, "data_b64");
    const cJSON *synth = cJSON_GetObjectItemCaseSensitive(a, "synthetic");
    const char *k = cJSON_IsString(kind) ? kind->valuestring : NULL;
    if (!k)
        return aoe_errf(err, errlen,
                        "args[%u].kind: expected \"scalar\", \"buffer\", \"local\" or \"null\"%s",
                        i, format == 1 ? "" : " (or \"image\", \"sampler\")");
    snprintf(field, sizeof field, "args[%u].size", i);
    if (format != 1 && !strcmp(k, "image"))
        return aoe_jf_image_arg(a, i, arg, err, errlen) || parse_type(a, i, arg, err, errlen) ? -1
                                                                                              : 0;
    if (format != 1 && !strcmp(k, "sampler"))
        return aoe_jf_sampler_arg(a, i, arg, err, errlen) || parse_type(a, i, arg, err, errlen) ? -1
                                                                                                : 0;
    const char *only = cJSON_GetObjectItemCaseSensitive(a, "image")     ? "image"
                       : cJSON_GetObjectItemCaseSensitive(a, "sampler") ? "sampler"
                                                                        : NULL;
    if (only)
        return aoe_errf(err, errlen, "args[%u].%s: only %s arguments have this field", i, only,
                        only);
    if (!strcmp(k, "scalar")) {
        arg->kind = AOE_JOB_ARG_SCALAR;
        if (aoe_jf_uint(size, field, 1, AOE_JOB_MAX_SCALAR, &arg->size, err, errlen)) return -1;
        snprintf(field, sizeof field, "args[%u].data_b64", i);
        if (!data) return aoe_errf(err, errlen, "%s: missing (a scalar needs its bytes)", field);
        if (aoe_jf_b64(data, field, arg->size, &arg->data, NULL, err, errlen)) return -1;
        return format == 1 ? 0 : parse_type(a, i, arg, err, errlen);
    }
    if (!strcmp(k, "buffer")) {
        arg->kind = AOE_JOB_ARG_BUFFER;
        if (aoe_jf_uint(size, field, 1, AOE_JOB_MAX_INT, &arg->size, err, errlen)) return -1;
        snprintf(field, sizeof field, "args[%u].flags", i);
        if (flags && aoe_jf_uint(flags, field, 0, AOE_JOB_MAX_INT, &arg->flags, err, errlen))
            return -1;
        int synthetic = cJSON_IsTrue(synth);
        if (synth && !cJSON_IsBool(synth))
            return aoe_errf(err, errlen, "args[%u].synthetic: expected true or false", i);
        if (synthetic == (data != NULL))
            return aoe_errf(err, errlen,
                            "args[%u].data_b64: a buffer needs either data_b64 or "
                            "\"synthetic\": true (exactly one)",
                            i);
        snprintf(field, sizeof field, "args[%u].data_b64", i);
        if (!synthetic && aoe_jf_b64(data, field, arg->size, &arg->data, NULL, err, errlen))
            return -1;
        return format == 1 ? 0 : parse_type(a, i, arg, err, errlen);
    }
    if (strcmp(k, "local") && strcmp(k, "null"))
        return aoe_errf(
            err, errlen,
            "args[%u].kind: unknown kind \"%s\" (expected scalar, buffer, local%s or null)", i, k,
            format == 1 ? "" : ", image, sampler");
    if (flags || data || synth) {
        const char *extra = flags ? "flags" : data ? "data_b64" : "synthetic";
        return aoe_errf(err, errlen, "args[%u].%s: only buffer arguments have this field", i,
                        extra);
    }
    if (!strcmp(k, "local")) {
        arg->kind = AOE_JOB_ARG_LOCAL;
        if (aoe_jf_uint(size, field, 1, AOE_JOB_MAX_INT, &arg->size, err, errlen)) return -1;
        return format == 1 ? 0 : parse_type(a, i, arg, err, errlen);
    }
    arg->kind = AOE_JOB_ARG_NULLMEM; /* "null": the only kind left */
    if (size) return aoe_errf(err, errlen, "%s: a null argument has no size", field);
    return format == 1 ? 0 : parse_type(a, i, arg, err, errlen);
}

int aoe_jf_args(const cJSON *root, aoe_job *job, int format, char *err, size_t errlen)
{
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(root, "args");
    if (!args) return aoe_errf(err, errlen, "args: missing");
    if (!cJSON_IsArray(args)) return aoe_errf(err, errlen, "args: expected an array");
    int n = cJSON_GetArraySize(args);
    if (n > AOE_JOB_MAX_ARGS)
        return aoe_errf(err, errlen, "args: more than %d arguments", AOE_JOB_MAX_ARGS);
    job->args = calloc(n ? (size_t)n : 1, sizeof *job->args);
    if (!job->args) return aoe_errf(err, errlen, "args: out of memory");
    job->nargs = (uint32_t)n;
    uint32_t i = 0;
    for (const cJSON *a = args->child; a; a = a->next, i++)
        if (parse_arg(a, i, format, &job->args[i], err, errlen)) return -1;
    return 0;
}
