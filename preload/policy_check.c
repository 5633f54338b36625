/* See policy_check.h. Runs when a policy is about to be published (poller,
 * first sight), never on the launch path. */
#include "preload/policy_check.h"

#include "core/layout.h"
#include "core/log.h"
#include "preload/shim.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static int64_t param_value(const aoe_policy_entry *pol, const aoe_tunable_param *tp)
{
    const aoe_policy *p = &pol->rec.policy;
    for (uint32_t i = 0; i < p->n_params && i < AOE_MAX_PARAMS; i++)
        if (!strncmp(p->params[i].name, tp->name, AOE_NAME_LEN)) return p->params[i].value;
    return tp->def;
}

int aoe_policy_check(const aoe_policy_entry *pol, const aoe_launch_shape *l, char *why,
                     size_t whylen)
{
    uint32_t dim = l->dim;
    if (pol->work_dim && pol->work_dim != dim) {
        snprintf(why, whylen, "work_dim %" PRIu32 ", the launch's is %" PRIu32, pol->work_dim, dim);
        return -1;
    }
    /* The sizes the tuned launch would use (see launch_tuned). */
    uint64_t g[3], lo[3];
    int has_local = pol->work_dim ? pol->has_local : l->has_local;
    for (uint32_t d = 0; d < dim; d++) {
        g[d] = pol->work_dim && pol->global[0] ? pol->global[d] : l->global[d];
        lo[d] = pol->work_dim ? pol->local[d] : l->local[d];
    }
    /* The global size: the launch's, or what the declared rules derive from
     * the policy's parameters and the launch's sizes. */
    const aoe_tunable_kernel *k = l->decl;
    int64_t env[AOE_MAX_PARAMS + 6];
    if (k) {
        for (int i = 0; i < k->n_params; i++) env[i] = param_value(pol, &k->params[i]);
        for (int d = 0; d < 3; d++) {
            env[k->n_params + d] = (int64_t)(d < (int)dim ? l->global[d] : 0);
            env[k->n_params + 3 + d] = (int64_t)(d < (int)dim && l->has_local ? l->local[d] : 0);
        }
    }
    for (uint32_t d = 0; d < dim; d++) {
        uint64_t want = l->global[d];
        if (k && d < (uint32_t)k->n_global_rules) {
            int64_t v = 0;
            if (aoe_expr_eval(k->global_rule[d], env, &v) || v < 1) {
                snprintf(why, whylen, "the declared global rule %s does not evaluate",
                         aoe_expr_text(k->global_rule[d]));
                return -1;
            }
            want = (uint64_t)v;
        }
        if (g[d] != want) {
            snprintf(why, whylen, "global[%" PRIu32 "] %" PRIu64 ", the launch%s gives %" PRIu64, d,
                     g[d], k && d < (uint32_t)k->n_global_rules ? "'s declared rule" : "", want);
            return -1;
        }
    }
    if (!has_local) return 0;
    /* The program's own sizes (a default policy) are whatever the program
     * launches itself, non-uniform work-groups (OpenCL 2.0) included. */
    int own = l->has_local;
    for (uint32_t d = 0; d < dim && own; d++) own = g[d] == l->global[d] && lo[d] == l->local[d];
    if (own) return 0;
    uint64_t product = 1;
    for (uint32_t d = 0; d < dim; d++) {
        if (!lo[d] || g[d] % lo[d]) {
            snprintf(why, whylen, "local[%" PRIu32 "] %" PRIu64 " does not divide global %" PRIu64,
                     d, lo[d], g[d]);
            return -1;
        }
        if (l->max_item[d] && lo[d] > l->max_item[d]) {
            snprintf(why, whylen, "local[%" PRIu32 "] %" PRIu64 " exceeds the device's %" PRIu64, d,
                     lo[d], l->max_item[d]);
            return -1;
        }
        product *= lo[d];
    }
    if (l->max_wg && product > l->max_wg) {
        snprintf(why, whylen, "work-group of %" PRIu64 " exceeds the device's %" PRIu64, product,
                 l->max_wg);
        return -1;
    }
    return 0;
}

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static aoe_tunables g_tunables;

static void load(void)
{
    char dir[4200], err[512];
    if (aoe_layout_find(aoe_shim.self_dir, AOE_FROM_LIB, AOE_LAYOUT_TUNABLES, dir, sizeof dir))
        dir[0] = '\0';
    const char *extra = aoe_shim.cfg.text[AOE_CFG_TUNABLES];
    if (aoe_tunables_load(dir[0] ? dir : NULL, extra && *extra ? extra : NULL, &g_tunables, err,
                          sizeof err))
        AOE_WARN("tunables: %s (declared rules are not checked)", err);
}

const aoe_tunable_kernel *aoe_shim_tunables_for(const char *runtime, const char *kernel,
                                                const char *source, aoe_hash128 program)
{
    pthread_once(&g_once, load);
    return aoe_tunables_match(&g_tunables, runtime, kernel, source, program);
}
