/* Job reader internals: image and sampler arguments (format 2 only; format 1
 * never had them). An image carries its descriptor in the runtime's own
 * numbers and, like a buffer, its packed contents or "synthetic": true; a
 * sampler carries its properties and nothing else. */
#include "jobs/job_fields.h"

#include "core/log.h"

#include <stdio.h>
#include <string.h>

#define U32_MAX 4294967295.0

/* One member of obj, required (every descriptor field is). */
static int member(const cJSON *obj, const char *name, const char *prefix, double min, double max,
                  uint64_t *out, char *err, size_t errlen)
{
    char field[64];
    snprintf(field, sizeof field, "%s%s", prefix, name);
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!it) return aoe_errf(err, errlen, "%s: missing", field);
    return aoe_jf_uint(it, field, min, max, out, err, errlen);
}

static int parse_descriptor(const cJSON *d, uint32_t i, aoe_job_image *im, char *err, size_t errlen)
{
    static const char *const known[] = {"type",   "order", "data_type",  "pixel_bytes", "width",
                                        "height", "depth", "array_size", NULL};
    char prefix[40];
    uint64_t v[8];
    snprintf(prefix, sizeof prefix, "args[%u].image.", i);
    if (!d)
        return aoe_errf(err, errlen, "args[%u].image: missing (an image needs its descriptor)", i);
    if (!cJSON_IsObject(d)) return aoe_errf(err, errlen, "args[%u].image: expected an object", i);
    if (aoe_jf_known(d, known, prefix, err, errlen)) return -1;
    for (int f = 0; f < 8; f++) {
        double min = f == 3 ? 1 : f == 4 ? 1 : 0;
        double max = f == 3 ? AOE_JOB_MAX_PIXEL : f >= 4 ? AOE_JOB_MAX_IMAGE_EXTENT : U32_MAX;
        if (member(d, known[f], prefix, min, max, &v[f], err, errlen)) return -1;
    }
    *im = (aoe_job_image){(uint32_t)v[0], (uint32_t)v[1], (uint32_t)v[2], (uint32_t)v[3],
                          v[4],           v[5],           v[6],           v[7]};
    return 0;
}

int aoe_jf_image_arg(const cJSON *a, uint32_t i, aoe_job_arg *arg, char *err, size_t errlen)
{
    char field[48];
    const cJSON *size = cJSON_GetObjectItemCaseSensitive(a, "size");
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(a, "data_b64");
    const cJSON *synth = cJSON_GetObjectItemCaseSensitive(a, "synthetic");
    arg->kind = AOE_JOB_ARG_IMAGE;
    if (cJSON_GetObjectItemCaseSensitive(a, "sampler"))
        return aoe_errf(err, errlen, "args[%u].sampler: only sampler arguments have this field", i);
    snprintf(field, sizeof field, "args[%u].size", i);
    if (aoe_jf_uint(size, field, 1, AOE_JOB_MAX_INT, &arg->size, err, errlen)) return -1;
    if (parse_descriptor(cJSON_GetObjectItemCaseSensitive(a, "image"), i, &arg->image, err, errlen))
        return -1;
    uint64_t want = aoe_job_image_bytes(&arg->image);
    if (!want || (double)want > AOE_JOB_MAX_INT)
        return aoe_errf(err, errlen, "args[%u].image: its extents overflow a size", i);
    if (arg->size != want)
        return aoe_errf(err, errlen,
                        "args[%u].size: %llu bytes, but the image's packed contents are %llu", i,
                        (unsigned long long)arg->size, (unsigned long long)want);
    int synthetic = cJSON_IsTrue(synth);
    if (synth && !cJSON_IsBool(synth))
        return aoe_errf(err, errlen, "args[%u].synthetic: expected true or false", i);
    if (synthetic == (data != NULL))
        return aoe_errf(err, errlen,
                        "args[%u].data_b64: an image needs either data_b64 or \"synthetic\": true "
                        "(exactly one)",
                        i);
    snprintf(field, sizeof field, "args[%u].data_b64", i);
    if (!synthetic && aoe_jf_b64(data, field, arg->size, &arg->data, NULL, err, errlen)) return -1;
    return 0;
}

int aoe_jf_sampler_arg(const cJSON *a, uint32_t i, aoe_job_arg *arg, char *err, size_t errlen)
{
    static const char *const known[] = {"normalized", "addressing", "filter", NULL};
    static const char *const not_here[] = {"size", "data_b64", "synthetic", "image", NULL};
    char prefix[40];
    uint64_t v[2];
    arg->kind = AOE_JOB_ARG_SAMPLER;
    for (const char *const *f = not_here; *f; f++)
        if (cJSON_GetObjectItemCaseSensitive(a, *f))
            return aoe_errf(err, errlen, "args[%u].%s: a sampler has no %s", i, *f, *f);
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(a, "sampler");
    if (!s)
        return aoe_errf(err, errlen, "args[%u].sampler: missing (a sampler needs its properties)",
                        i);
    if (!cJSON_IsObject(s)) return aoe_errf(err, errlen, "args[%u].sampler: expected an object", i);
    snprintf(prefix, sizeof prefix, "args[%u].sampler.", i);
    if (aoe_jf_known(s, known, prefix, err, errlen)) return -1;
    const cJSON *norm = cJSON_GetObjectItemCaseSensitive(s, "normalized");
    if (!norm) return aoe_errf(err, errlen, "%snormalized: missing", prefix);
    if (!cJSON_IsBool(norm))
        return aoe_errf(err, errlen, "%snormalized: expected true or false", prefix);
    for (int f = 1; f < 3; f++)
        if (member(s, known[f], prefix, 0, U32_MAX, &v[f - 1], err, errlen)) return -1;
    arg->sampler = (aoe_job_sampler){cJSON_IsTrue(norm) ? 1u : 0u, (uint32_t)v[0], (uint32_t)v[1]};
    return 0;
}
