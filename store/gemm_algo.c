/* cuBLASLt algorithm configuration <-> bank policy. One table of names,
 * offsets and ranges for both directions. Names are stored in banks: never
 * rename. */
#include "store/gemm_algo.h"

#include <stdio.h>
#include <string.h>

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        if (errlen) snprintf(err, errlen, __VA_ARGS__);                                            \
        return -1;                                                                                 \
    } while (0)

typedef enum { T_I32, T_U32, T_U16 } ctype;

typedef struct {
    const char *name;
    size_t off;
    ctype type;
    int64_t min, max;
    const char *what; /* the cuBLASLt attribute, for messages */
} attr;

#define A(field, name, t, lo, hi, what)                                                            \
    {                                                                                              \
        name, offsetof(aoe_gemm_algo, field), t, lo, hi, what                                      \
    }

static const attr attrs[AOE_GEMM_ALGO_NPARAMS] = {
    A(algo, "algo", T_I32, 0, 2147483647, "CUBLASLT_ALGO_CONFIG_ID"),
    A(tile, "tile", T_U32, 0, 4294967295, "CUBLASLT_ALGO_CONFIG_TILE_ID"),
    A(stages, "stages", T_U32, 0, 4294967295, "CUBLASLT_ALGO_CONFIG_STAGES_ID"),
    A(splitk, "splitk", T_I32, 1, 2147483647, "CUBLASLT_ALGO_CONFIG_SPLITK_NUM"),
    A(reduction, "reduction", T_U32, 0, 4, "CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME"),
    A(swizzle, "swizzle", T_U32, 0, 1, "CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING"),
    A(custom, "custom", T_U32, 0, 4294967295, "CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION"),
    A(inner_shape, "inner_shape", T_U16, 0, 65535, "CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID"),
    A(cluster_shape, "cluster_shape", T_U16, 0, 65535, "CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID"),
    A(workspace, "workspace", T_U32, 0, 4294967295, "workspace bytes"),
};

static int64_t get(const aoe_gemm_algo *a, const attr *t)
{
    const char *p = (const char *)a + t->off;
    switch (t->type) {
    case T_I32:
        return *(const int32_t *)p;
    case T_U32:
        return *(const uint32_t *)p;
    default:
        return *(const uint16_t *)p;
    }
}

static void set(aoe_gemm_algo *a, const attr *t, int64_t v)
{
    char *p = (char *)a + t->off;
    switch (t->type) {
    case T_I32:
        *(int32_t *)p = (int32_t)v;
        break;
    case T_U32:
        *(uint32_t *)p = (uint32_t)v;
        break;
    default:
        *(uint16_t *)p = (uint16_t)v;
        break;
    }
}

/* One range check for both directions: a policy value is an int64. */
static int in_range(const attr *t, int64_t v, char *err, size_t errlen)
{
    if (v < t->min || v > t->max)
        FAIL("%s: %lld is outside %lld..%lld (%s)", t->name, (long long)v, (long long)t->min,
             (long long)t->max, t->what);
    /* a single scheme: NONE 0, INPLACE 1, COMPUTE_TYPE 2, OUTPUT_TYPE 4 */
    if (!strcmp(t->name, "reduction") && v == 3)
        FAIL("reduction: 3 is not one cublasLtReductionScheme_t (0, 1, 2 or 4)");
    return 0;
}

void aoe_gemm_algo_init(aoe_gemm_algo *a)
{
    memset(a, 0, sizeof *a);
    a->splitk = 1;
}

int aoe_gemm_algo_check(const aoe_gemm_algo *a, char *err, size_t errlen)
{
    for (size_t i = 0; i < AOE_GEMM_ALGO_NPARAMS; i++)
        if (in_range(&attrs[i], get(a, &attrs[i]), err, errlen)) return -1;
    return 0;
}

int aoe_gemm_algo_to_policy(const aoe_gemm_algo *a, aoe_policy *p, char *err, size_t errlen)
{
    if (aoe_gemm_algo_check(a, err, errlen)) return -1;
    memset(p, 0, sizeof *p);
    p->work_dim = 1;
    p->n_params = AOE_GEMM_ALGO_NPARAMS;
    for (size_t i = 0; i < AOE_GEMM_ALGO_NPARAMS; i++) {
        snprintf(p->params[i].name, sizeof p->params[i].name, "%s", attrs[i].name);
        p->params[i].value = get(a, &attrs[i]);
        p->params[i].kind = AOE_PARAM_LIBRARY_ATTR;
    }
    return 0;
}

int aoe_gemm_algo_from_policy(const aoe_policy *p, aoe_gemm_algo *a, char *err, size_t errlen)
{
    int seen[AOE_GEMM_ALGO_NPARAMS] = {0};
    aoe_gemm_algo_init(a);
    if (p->n_params > AOE_MAX_PARAMS)
        FAIL("%u parameters, at most %d", p->n_params, AOE_MAX_PARAMS);
    if (aoe_gemm_policy_is_library_default(p))
        FAIL("no parameters: the library-default form (the library's own call), no configuration");
    for (uint32_t d = 0; d < 3; d++)
        if (p->global[d] || p->local[d]) FAIL("work sizes set: a GEMM's policy has none");
    for (uint32_t i = 0; i < p->n_params; i++) {
        const aoe_param *prm = &p->params[i];
        size_t k = 0;
        while (k < AOE_GEMM_ALGO_NPARAMS && strncmp(prm->name, attrs[k].name, sizeof prm->name))
            k++;
        if (k == AOE_GEMM_ALGO_NPARAMS)
            FAIL("param %.*s: not a GEMM algorithm attribute", (int)sizeof prm->name, prm->name);
        if (prm->kind != AOE_PARAM_LIBRARY_ATTR)
            FAIL("param %s: kind %s, expected library_attribute", attrs[k].name,
                 aoe_param_kind_name(prm->kind));
        if (seen[k]++) FAIL("param %s appears twice", attrs[k].name);
        if (in_range(&attrs[k], prm->value, err, errlen)) return -1;
        set(a, &attrs[k], prm->value);
    }
    if (!seen[0]) FAIL("param algo: missing (the algorithm id is required)");
    return 0;
}

int aoe_gemm_policy_is_library_default(const aoe_policy *p)
{
    if (p->work_dim != 1 || p->n_params) return 0;
    for (uint32_t d = 0; d < 3; d++)
        if (p->global[d] || p->local[d]) return 0;
    return 1;
}

void aoe_gemm_library_default_policy(aoe_policy *p)
{
    memset(p, 0, sizeof *p);
    p->work_dim = 1;
}
