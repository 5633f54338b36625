/* The catalogue's JSON form (README.md): every field but "id" optional. */
#include "fc_catalogue.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

static double num(const cJSON *o, const char *key, double dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : cJSON_IsBool(v) ? (cJSON_IsTrue(v) ? 1 : 0) : dflt;
}

/* A list of unsigned ids into out[FC_MAX_LIST]; -1 when it is not one. */
static int ids(const cJSON *o, const char *key, uint32_t *out)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, key), *v;
    if (!arr) return 0;
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) > FC_MAX_LIST) return -1;
    int n = 0;
    cJSON_ArrayForEach(v, arr)
    {
        if (!cJSON_IsNumber(v) || v->valuedouble < 0) return -1;
        out[n++] = (uint32_t)v->valuedouble;
    }
    return n;
}

static int parse_types(const cJSON *o, unsigned *out)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, "types"), *v;
    if (!arr) return 0;
    static const char *names[FC_ELEM_COUNT] = {"f32", "f16", "bf16"};
    *out = 0;
    cJSON_ArrayForEach(v, arr)
    {
        int found = 0;
        for (int i = 0; i < FC_ELEM_COUNT; i++)
            if (cJSON_IsString(v) && strcmp(v->valuestring, names[i]) == 0)
                *out |= 1u << i, found = 1;
        if (!found) return -1;
    }
    return 0;
}

static int parse_planted(const cJSON *o, enum fc_planted *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "planted");
    static const char *names[] = {"none", "off", "nan", "oob", "nondet"};
    if (!v) return 0;
    for (int i = 0; i < 5; i++)
        if (cJSON_IsString(v) && strcmp(v->valuestring, names[i]) == 0) {
            *out = (enum fc_planted)i;
            return 0;
        }
    return -1;
}

static int parse_algo(const cJSON *o, struct fc_algo_info *a)
{
    memset(a, 0, sizeof *a);
    if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o, "id"))) return -1;
    a->id = (int)num(o, "id", 0);
    a->types = (1u << FC_F32) | (1u << FC_F16) | (1u << FC_BF16);
    uint32_t clusters[FC_MAX_LIST];
    float tspeed[FC_MAX_LIST];
    int nts = 0;
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(o, "tile_speed"), *v;
    cJSON_ArrayForEach(v, ts)
    {
        if (!cJSON_IsNumber(v) || nts == FC_MAX_LIST) return -1;
        tspeed[nts++] = (float)v->valuedouble;
    }
    if (parse_types(o, &a->types) < 0 || parse_planted(o, &a->planted) < 0 ||
        (a->n_tiles = ids(o, "tiles", a->tiles)) < 0 ||
        (a->n_stages = ids(o, "stages", a->stages)) < 0 ||
        (a->n_clusters = ids(o, "clusters", clusters)) < 0 || (nts && nts != a->n_tiles))
        return -1;
    for (int i = 0; i < a->n_tiles; i++) a->tile_speed[i] = nts ? tspeed[i] : 1.0f;
    for (int i = 0; i < a->n_clusters; i++) a->clusters[i] = (uint16_t)clusters[i];
    a->split_k = num(o, "split_k", 0) != 0;
    a->reduction_mask = (uint32_t)num(o, "reduction_mask", a->split_k ? 7 : 0);
    a->swizzle = num(o, "swizzle", 0) != 0;
    a->custom_option_max = (int32_t)num(o, "custom_option_max", 0);
    a->epilogue_mask = (uint32_t)num(o, "epilogue_mask", 1 | 2 | 4 | 32);
    a->workspace_base = (uint64_t)num(o, "workspace_base", 0);
    a->workspace_split = (uint64_t)num(o, "workspace_split", 4);
    a->align = (uint32_t)num(o, "align", 16);
    const cJSON *speed = cJSON_GetObjectItemCaseSensitive(o, "speed");
    a->speed[FC_CLASS_SKINNY] = (float)num(speed, "skinny", 1);
    a->speed[FC_CLASS_SMALL] = (float)num(speed, "small", 1);
    a->speed[FC_CLASS_LARGE] = (float)num(speed, "large", 1);
    a->split_k_gain = (float)num(o, "split_k_gain", 0);
    a->swizzle_gain = (float)num(o, "swizzle_gain", 0);
    a->custom_gain = (float)num(o, "custom_gain", 0);
    a->heuristic = num(o, "heuristic", 1) != 0;
    a->planted_amount = (float)num(o, "planted_amount", 0.05);
    if (a->align == 0 || (a->align & (a->align - 1)) || a->custom_option_max < 0) return -1;
    for (int i = 0; i < FC_CLASS_COUNT; i++)
        if (!(a->speed[i] > 0)) return -1;
    return 0;
}

int fc_catalogue_parse(const char *json, struct fc_catalogue *out, char *why, size_t why_size)
{
    memset(out, 0, sizeof *out);
    cJSON *root = cJSON_Parse(json);
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "algorithms"), *v;
    int rc = 0;
    if (!root)
        rc = -1, snprintf(why, why_size, "not JSON");
    else if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) > FC_MAX_ALGOS)
        rc = -1,
        snprintf(why, why_size, "\"algorithms\" is not a list of at most %d", FC_MAX_ALGOS);
    const cJSON *list = rc == 0 ? arr : NULL;
    cJSON_ArrayForEach(v, list)
    {
        if (parse_algo(v, &out->algos[out->n]) < 0 ||
            fc_catalogue_find(out, out->algos[out->n].id)) {
            snprintf(why, why_size, "algorithm #%d is invalid or repeats an id", out->n);
            rc = -1;
            break;
        }
        out->n++;
    }
    if (rc == 0) {
        out->cublas_default = (int)num(root, "cublas_default", out->n ? out->algos[0].id : 0);
        if (!fc_catalogue_find(out, out->cublas_default))
            rc = -1, snprintf(why, why_size, "\"cublas_default\" names no algorithm");
    }
    cJSON_Delete(root);
    return rc;
}
