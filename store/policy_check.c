/* Record -> applied policy. The record is checked again here although decode
 * checks it: the shim must never depend on where a record came from. */
#include "store/policy_check.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

int aoe_policy_prepare(const aoe_record *rec, aoe_policy_sizes *sizes, char *defines, size_t cap,
                       char *err, size_t errlen)
{
    if (!cap) return -1;
    defines[0] = '\0';
    if (aoe_record_check(rec, err, errlen)) return -1;
    const aoe_policy *p = &rec->policy;
    memset(sizes, 0, sizeof *sizes);
    sizes->work_dim = p->work_dim;
    for (uint32_t d = 0; d < p->work_dim; d++) {
        sizes->global[d] = (size_t)p->global[d];
        sizes->local[d] = (size_t)p->local[d];
        if (p->local[d]) sizes->has_local = 1;
    }
    size_t n = 0;
    for (uint32_t i = 0; i < p->n_params; i++) {
        const aoe_param *prm = &p->params[i];
        if (prm->kind == AOE_PARAM_LIBRARY_ATTR) {
            /* a library call's policy: applied as if tuned, it would not be */
            defines[0] = '\0';
            if (errlen)
                snprintf(err, errlen,
                         "param %s: a library attribute, not applicable to a kernel launch",
                         prm->name);
            return -1;
        }
        if (prm->kind != AOE_PARAM_DEFINE) continue;
        /* names are C identifiers (checked): nothing but one -D option */
        int w = snprintf(defines + n, cap - n, " -D%s=%" PRId64, prm->name, prm->value);
        if (w < 0 || (size_t)w >= cap - n) {
            defines[0] = '\0';
            if (errlen) snprintf(err, errlen, "defines longer than %zu bytes", cap - 1);
            return -1;
        }
        n += (size_t)w;
    }
    return 0;
}
