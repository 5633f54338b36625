/* The search space of one job: gathers parameters from the three sources
 * (work-group size, declared tunables, auto-detected defines), then enumerates
 * every configuration that satisfies the constraints and yields legal work
 * sizes, so strategies never spend an evaluation on an invalid one. */
#include "core/log.h"
#include "space/space.h"

#include "store/opkey.h"
#include "space/autodefine.h"
#include "space/tunables.h"
#include "space/wgsize.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { SRC_WG, SRC_DECL, SRC_AUTO } param_source;

typedef struct {
    char name[AOE_NAME_LEN];
    param_source src;
    int index; /* SRC_WG: dimension; SRC_DECL: index in decl.params */
    int n_values;
    int64_t values[AOE_SPACE_MAX_VALUES]; /* ascending */
    int def;                              /* index of the default value, -1: none */
} space_param;

struct aoe_space {
    int n_params;
    space_param p[AOE_MAX_PARAMS];
    int has_decl;
    aoe_tunable_kernel decl;            /* owned: its expressions are evaluated per configuration */
    int64_t decl_fixed[AOE_MAX_PARAMS]; /* values of declared params the program fixes */
    int decl_tuned[AOE_MAX_PARAMS];     /* 1: the param is in the space */
    uint32_t work_dim;
    uint64_t global[3], local[3]; /* the program's sizes (local all 0: NULL) */
    aoe_device_limits lim;
    int n_values[AOE_MAX_PARAMS];
    int value_list_id[AOE_MAX_PARAMS];
    uint16_t *configs;
    size_t n_configs, cap_configs;
    aoe_search_space ss;
    aoe_tolerance tol;
    char *desc;
};

/* Work sizes of one configuration (values[i] for sp->p[i]). Returns 0 when
 * the configuration is valid: constraints hold, sizes are positive, local
 * divides global and fits the device. */
static int derive(const aoe_space *sp, const int64_t *values, uint64_t global[3], uint64_t local[3])
{
    int64_t env[AOE_MAX_PARAMS + 6], v;
    int wg = 0;
    const aoe_tunable_kernel *k = &sp->decl;
    if (sp->has_decl) {
        for (int i = 0; i < k->n_params; i++) env[i] = sp->decl_fixed[i];
        for (int d = 0; d < 3; d++) {
            env[k->n_params + d] = (int64_t)sp->global[d];
            env[k->n_params + 3 + d] = (int64_t)sp->local[d];
        }
    }
    for (int i = 0; i < sp->n_params; i++) {
        if (sp->p[i].src == SRC_DECL) env[sp->p[i].index] = values[i];
        if (sp->p[i].src == SRC_WG) wg = 1;
    }
    for (int c = 0; sp->has_decl && c < k->n_constraints; c++)
        if (aoe_expr_eval(k->constraints[c], env, &v) || !v) return -1;
    uint64_t product = 1;
    for (uint32_t d = 0; d < sp->work_dim; d++) {
        global[d] = sp->global[d];
        local[d] = sp->local[d];
        if (sp->has_decl && d < (uint32_t)k->n_global_rules) {
            if (aoe_expr_eval(k->global_rule[d], env, &v) || v < 1) return -1;
            global[d] = (uint64_t)v;
        }
        if (sp->has_decl && d < (uint32_t)k->n_local_rules) {
            if (aoe_expr_eval(k->local_rule[d], env, &v) || v < 1) return -1;
            local[d] = (uint64_t)v;
        }
    }
    for (int i = 0; wg && i < sp->n_params; i++)
        if (sp->p[i].src == SRC_WG) local[sp->p[i].index] = (uint64_t)values[i];
    int has_local = local[0] != 0;
    for (uint32_t d = 0; has_local && d < sp->work_dim; d++) {
        if (!local[d] || global[d] % local[d]) return -1;
        if (sp->lim.max_work_item_sizes[d] && local[d] > sp->lim.max_work_item_sizes[d]) return -1;
        if (sp->lim.reqd_work_group_size[0] && local[d] != sp->lim.reqd_work_group_size[d])
            return -1;
        product *= local[d];
    }
    if (has_local && sp->lim.max_work_group_size && product > sp->lim.max_work_group_size)
        return -1;
    for (uint32_t d = sp->work_dim; d < 3; d++) global[d] = local[d] = 0;
    return 0;
}

static int add_param(aoe_space *sp, const char *name, param_source src, int index,
                     const int64_t *values, int n, int64_t def, int has_def, char *err,
                     size_t errlen)
{
    if (sp->n_params == AOE_MAX_PARAMS)
        return aoe_errf(err, errlen, "more than %d tunable parameters (at %s)", AOE_MAX_PARAMS,
                        name);
    space_param *p = &sp->p[sp->n_params++];
    snprintf(p->name, sizeof p->name, "%.*s", (int)sizeof p->name - 1, name);
    p->src = src, p->index = index, p->n_values = n, p->def = -1;
    for (int i = 0; i < n; i++) {
        p->values[i] = values[i];
        if (has_def && values[i] == def) p->def = i;
    }
    return 0;
}

/* Finds the declaration for this job (its own "space", else the last match in
 * the tunables files) and moves it into sp. */
static int find_declaration(aoe_space *sp, const aoe_job *job, const aoe_space_options *opt,
                            char *err, size_t errlen)
{
    if (job->space_json) {
        if (aoe_tunables_parse_kernel_json(job->space_json, "job space", &sp->decl, err, errlen))
            return -1;
        sp->has_decl = 1;
        return 0;
    }
    aoe_tunables all = {0};
    if (aoe_tunables_load(opt ? opt->tunables_dir : NULL, opt ? opt->tunables_extra : NULL, &all,
                          err, errlen)) {
        aoe_tunables_free(&all);
        return -1;
    }
    aoe_hash128 h = job->source ? aoe_program_hash(job->source, strlen(job->source))
                                : aoe_program_hash(job->binary, (size_t)job->binary_size);
    const aoe_tunable_kernel *k =
        aoe_tunables_match(&all, job->runtime, job->kernel_name, job->source, h);
    if (k) {
        sp->decl = *k; /* move: the list must not free what sp now owns */
        memset((aoe_tunable_kernel *)k, 0, sizeof *k);
        sp->has_decl = 1;
    }
    aoe_tunables_free(&all);
    return 0;
}

static int check_rule_dims(const aoe_space *sp, char *err, size_t errlen)
{
    const aoe_tunable_kernel *k = &sp->decl;
    if (k->n_global_rules && (uint32_t)k->n_global_rules != sp->work_dim)
        return aoe_errf(err, errlen, "%s.global: declares %d dimensions, the launch has %u",
                        k->origin, k->n_global_rules, sp->work_dim);
    if (k->n_local_rules && (uint32_t)k->n_local_rules != sp->work_dim)
        return aoe_errf(err, errlen, "%s.local: declares %d dimensions, the launch has %u",
                        k->origin, k->n_local_rules, sp->work_dim);
    return 0;
}

/* Declared parameters, minus those the program fixes itself (-D or #define):
 * those keep the program's value (or the default) in constraints and rules. */
static int add_declared(aoe_space *sp, const aoe_job *job, char *err, size_t errlen)
{
    const aoe_tunable_kernel *k = &sp->decl;
    for (int i = 0; i < k->n_params; i++) {
        const aoe_tunable_param *tp = &k->params[i];
        int64_t v = tp->def;
        int has = 0;
        sp->decl_fixed[i] = tp->def;
        if (aoe_options_define(job->options, tp->name, &v, &has) ||
            aoe_source_defines(job->source, tp->name, &v, &has)) {
            if (has) sp->decl_fixed[i] = v;
            continue;
        }
        sp->decl_tuned[i] = 1;
        if (add_param(sp, tp->name, SRC_DECL, i, tp->values, tp->n_values, tp->def, 1, err, errlen))
            return -1;
    }
    return 0;
}

static int add_workgroup(aoe_space *sp, char *err, size_t errlen)
{
    static const char *const names[3] = {"WG0", "WG1", "WG2"};
    int derived_global = sp->has_decl && sp->decl.n_global_rules;
    for (uint32_t d = 0; d < sp->work_dim; d++) {
        uint64_t c[AOE_SPACE_MAX_VALUES];
        int64_t v[AOE_SPACE_MAX_VALUES];
        int n;
        if (sp->lim.reqd_work_group_size[0]) {
            c[0] = sp->lim.reqd_work_group_size[d];
            n = 1;
        } else {
            n = aoe_wgsize_candidates(sp->global[d], sp->lim.max_work_item_sizes[d],
                                      sp->lim.max_work_group_size, sp->lim.preferred_multiple,
                                      derived_global, c, AOE_SPACE_MAX_VALUES);
        }
        for (int i = 0; i < n; i++) v[i] = (int64_t)c[i];
        if (add_param(sp, names[d], SRC_WG, (int)d, v, n, 0, 0, err, errlen)) return -1;
    }
    return 0;
}

static int is_declared(const aoe_space *sp, const char *name)
{
    for (int i = 0; sp->has_decl && i < sp->decl.n_params; i++)
        if (!strcmp(sp->decl.params[i].name, name)) return 1;
    return 0;
}

static int add_autodefines(aoe_space *sp, const aoe_job *job, char *err, size_t errlen)
{
    aoe_autodefine found[AOE_AUTODEFINE_MAX];
    int n = aoe_autodefine_scan(job->source, job->options, found, AOE_AUTODEFINE_MAX);
    for (int i = 0; i < n; i++) {
        int64_t c[5];
        int nc = aoe_autodefine_candidates(found[i].def, c);
        if (nc < 2 || is_declared(sp, found[i].name)) continue;
        if (add_param(sp, found[i].name, SRC_AUTO, i, c, nc, found[i].def, 1, err, errlen))
            return -1;
        sp->tol.exact = true; /* auto-detected: only bit-exact variants are acceptable */
    }
    return 0;
}

static int push_config(aoe_space *sp, const int *idx)
{
    if (sp->n_configs == sp->cap_configs) {
        size_t cap = sp->cap_configs ? sp->cap_configs * 2 : 256;
        uint16_t *c = realloc(sp->configs, cap * (size_t)(sp->n_params ? sp->n_params : 1) * 2);
        if (!c) return -1;
        sp->configs = c, sp->cap_configs = cap;
    }
    uint16_t *row = sp->configs + sp->n_configs * (size_t)sp->n_params;
    for (int i = 0; i < sp->n_params; i++) row[i] = (uint16_t)idx[i];
    sp->n_configs++;
    return 0;
}

static int enumerate(aoe_space *sp, char *err, size_t errlen)
{
    double product = 1;
    for (int i = 0; i < sp->n_params; i++) {
        product *= sp->p[i].n_values;
        sp->n_values[i] = sp->p[i].n_values;
        sp->value_list_id[i] = i;
        for (int q = 0; q < i && sp->value_list_id[i] == i; q++)
            if (sp->p[q].n_values == sp->p[i].n_values &&
                !memcmp(sp->p[q].values, sp->p[i].values,
                        (size_t)sp->p[i].n_values * sizeof(int64_t)))
                sp->value_list_id[i] = q;
        if (!sp->p[i].n_values)
            return aoe_errf(err, errlen, "%s: no legal value (global size and device limits)",
                            sp->p[i].name);
    }
    if (product > AOE_SPACE_MAX_COMBINATIONS)
        return aoe_errf(err, errlen,
                        "search space too large: %.0f combinations (limit %d); narrow "
                        "the value lists",
                        product, AOE_SPACE_MAX_COMBINATIONS);
    int idx[AOE_MAX_PARAMS] = {0};
    int64_t values[AOE_MAX_PARAMS];
    for (;;) { /* odometer over value indices; the last parameter turns fastest */
        uint64_t g[3], l[3];
        for (int i = 0; i < sp->n_params; i++) values[i] = sp->p[i].values[idx[i]];
        if (!derive(sp, values, g, l) && push_config(sp, idx))
            return aoe_errf(err, errlen, "out of memory enumerating the search space");
        int i = sp->n_params - 1;
        while (i >= 0 && ++idx[i] == sp->p[i].n_values) idx[i--] = 0;
        if (i < 0) break;
    }
    sp->ss = (aoe_search_space){sp->n_params, sp->n_values, sp->n_configs, sp->configs,
                                sp->value_list_id};
    return 0;
}

static void describe(aoe_space *sp)
{
    size_t cap = 256 + (size_t)sp->n_params * 200, n = 0;
    if (!(sp->desc = malloc(cap))) return;
    sp->desc[0] = '\0';
    for (int i = 0; i < sp->n_params; i++) {
        const space_param *p = &sp->p[i];
        n += (size_t)snprintf(sp->desc + n, cap - n, "%s%s in {", i ? " x " : "", p->name);
        for (int j = 0; j < p->n_values && n < cap; j++) {
            if (j == 6 && p->n_values > 8) { /* long lists: the first six, "..", the last */
                j = p->n_values - 1;
                n += (size_t)snprintf(sp->desc + n, cap - n, ",..");
            }
            n += (size_t)snprintf(sp->desc + n, cap - n, "%s%lld", j ? "," : "",
                                  (long long)p->values[j]);
        }
        if (n < cap) n += (size_t)snprintf(sp->desc + n, cap - n, "}");
    }
    if (n < cap) snprintf(sp->desc + n, cap - n, ": %zu configurations", sp->n_configs);
}

aoe_space *aoe_space_build(const aoe_job *job, const aoe_device_limits *lim,
                           const aoe_space_options *opt, char *err, size_t errlen)
{
    aoe_space *sp = calloc(1, sizeof *sp);
    if (!sp) {
        aoe_errf(err, errlen, "out of memory");
        return NULL;
    }
    sp->work_dim = job->work_dim > 3 ? 3 : job->work_dim;
    uint64_t global[3], local[3];
    int has_local;
    aoe_job_launch_sizes(job, global, local, &has_local); /* threads, for any launch kind */
    for (uint32_t d = 0; d < sp->work_dim; d++) {
        sp->global[d] = global[d];
        sp->local[d] = has_local ? local[d] : 0;
    }
    if (lim) sp->lim = *lim;
    sp->tol = (aoe_tolerance){AOE_TOLERANCE_REL_L2, AOE_TOLERANCE_MAX_ABS, false};
    if (find_declaration(sp, job, opt, err, errlen)) goto bad;
    if (sp->has_decl) {
        if (check_rule_dims(sp, err, errlen) || add_declared(sp, job, err, errlen)) goto bad;
        if (sp->decl.rel_l2 >= 0) sp->tol.rel_l2 = sp->decl.rel_l2;
        if (sp->decl.max_abs >= 0) sp->tol.max_abs = sp->decl.max_abs;
    } else {
        /* Work-group size alone is the implementation's choice by the spec,
         * but the program must not see a single bit change: a size that
         * reorders a float reduction is rejected, not tolerated. */
        sp->tol.exact = true;
    }
    /* A grid/block launch's block is baked into its kernel: never searched. */
    int grid = job->launch_kind == AOE_LAUNCH_GRID_BLOCK;
    if (!grid && !has_local && !(sp->has_decl && sp->decl.n_local_rules) &&
        add_workgroup(sp, err, errlen))
        goto bad;
    if (opt && opt->auto_defines && add_autodefines(sp, job, err, errlen)) goto bad;
    if (!sp->n_params) {
        aoe_errf(err, errlen,
                 "nothing to tune for kernel %s: %sno tunables declaration matches it%s%s",
                 job->kernel_name, grid ? "" : "it has its own local size, ",
                 opt && opt->auto_defines ? " and it has no #ifndef defaults"
                                          : " (auto-defines are off)",
                 grid ? " (a grid/block launch's sizes are never searched)" : "");
        goto bad;
    }
    if (enumerate(sp, err, errlen)) goto bad;
    if (sp->n_configs == 0) {
        aoe_errf(err, errlen,
                 "no configuration of kernel %s satisfies the constraints and device "
                 "limits",
                 job->kernel_name);
        goto bad;
    }
    if (sp->n_configs == 1) {
        aoe_errf(err, errlen, "nothing to tune for kernel %s: only one configuration is legal",
                 job->kernel_name);
        goto bad;
    }
    describe(sp);
    return sp;
bad:
    aoe_space_free(sp);
    return NULL;
}

int aoe_space_nothing_to_tune(const char *err)
{
    return !strncmp(err, "nothing to tune", 15);
}

void aoe_space_free(aoe_space *sp)
{
    if (!sp) return;
    aoe_tunable_kernel_clear(&sp->decl);
    free(sp->configs);
    free(sp->desc);
    free(sp);
}

const aoe_search_space *aoe_space_configs(const aoe_space *sp)
{
    return &sp->ss;
}

int aoe_space_policy(const aoe_space *sp, const aoe_job *job, size_t config, aoe_policy *out)
{
    (void)job; /* the program's sizes were copied into sp at build time */
    if (config >= sp->n_configs) return -1;
    const uint16_t *row = sp->configs + config * (size_t)sp->n_params;
    int64_t values[AOE_MAX_PARAMS];
    memset(out, 0, sizeof *out);
    for (int i = 0; i < sp->n_params; i++) {
        values[i] = sp->p[i].values[row[i]];
        aoe_param *p = &out->params[i];
        snprintf(p->name, sizeof p->name, "%s", sp->p[i].name);
        p->value = values[i];
        p->kind = sp->p[i].src != SRC_WG ? AOE_PARAM_DEFINE : AOE_PARAM_WORK_SIZE;
    }
    out->n_params = (uint32_t)sp->n_params;
    out->work_dim = sp->work_dim;
    return derive(sp, values, out->global, out->local);
}

aoe_tolerance aoe_space_tolerance(const aoe_space *sp)
{
    return sp->tol;
}

const char *aoe_space_describe(const aoe_space *sp)
{
    return sp->desc ? sp->desc : "";
}

long aoe_space_default_config(const aoe_space *sp)
{
    for (int i = 0; i < sp->n_params; i++)
        if (sp->p[i].def < 0) return -1; /* work-group size: the default is NULL, not a row */
    for (size_t c = 0; c < sp->n_configs; c++) {
        const uint16_t *row = sp->configs + c * (size_t)sp->n_params;
        int i = 0;
        while (i < sp->n_params && row[i] == sp->p[i].def) i++;
        if (i == sp->n_params) return (long)c;
    }
    return -1;
}

const aoe_tunable_kernel *aoe_space_declaration(const aoe_space *sp)
{
    return sp && sp->has_decl ? &sp->decl : NULL;
}
