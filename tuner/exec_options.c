/* Variant build options, shared by every executor: the program's options are
 * kept as they are and -D values are appended, never replacing a macro the
 * program sets itself (such programs carry their own tuned values). */
#include "tuner/exec.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* True when options contain "-DNAME" or "-D NAME" followed by '=', space or end. */
static int sets_macro(const char *opts, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = opts; (p = strstr(p, "-D")) != NULL; p += 2) {
        if (p != opts && !isspace((unsigned char)p[-1])) continue;
        const char *q = p + 2;
        while (*q == ' ' || *q == '\t') q++;
        if (!strncmp(q, name, n) && (q[n] == '\0' || q[n] == '=' || isspace((unsigned char)q[n])))
            return 1;
    }
    return 0;
}

aoe_exec_status aoe_exec_variant_options(const char *base, const aoe_policy *pol, char *out,
                                         size_t outlen, char *err, size_t errlen)
{
    if (!base) base = "";
    int n = snprintf(out, outlen, "%s", base);
    if (n < 0 || (size_t)n >= outlen) goto too_long;
    for (uint32_t i = 0; pol && i < pol->n_params && i < AOE_MAX_PARAMS; i++) {
        const aoe_param *p = &pol->params[i];
        if (p->kind != AOE_PARAM_DEFINE) continue;
        if (sets_macro(base, p->name)) {
            snprintf(err, errlen, "the program sets -D%s itself; it is never overridden", p->name);
            return AOE_EXEC_REFUSED;
        }
        int m = snprintf(out + n, outlen - (size_t)n, "%s-D%s=%" PRId64, n ? " " : "", p->name,
                         p->value);
        if (m < 0 || (size_t)(n + m) >= outlen) goto too_long;
        n += m;
    }
    return AOE_EXEC_OK;
too_long:
    snprintf(err, errlen, "build options longer than %zu bytes", outlen);
    return AOE_EXEC_RUNTIME_ERROR;
}
