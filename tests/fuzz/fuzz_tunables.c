/* libFuzzer harness: the tunables reader (and the expressions in it) on
 * arbitrary bytes; what it accepts is evaluated at the declared defaults.
 * The same bytes, read as kernel source, go through the #define scanner.
 * fuzz-sources: space/tunables.c space/expr.c space/autodefine.c store/opkey.c core/log.c
 * fuzz-sources: core/json_text.c */
#include "space/autodefine.h"
#include "space/tunables.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    aoe_tunables t = {0};
    char err[512];
    int rc = aoe_tunables_parse((const char *)data, size, "fuzz.json", &t, err, sizeof err);
    if (rc && !err[0]) abort(); /* every rejection says why */
    for (int i = 0; i < t.n; i++) {
        const aoe_tunable_kernel *k = &t.k[i];
        int64_t env[AOE_MAX_PARAMS + 6] = {0}, v;
        for (int p = 0; p < k->n_params; p++) env[p] = k->params[p].def;
        for (int d = 0; d < 6; d++) env[k->n_params + d] = 64;
        for (int c = 0; c < k->n_constraints; c++) (void)aoe_expr_eval(k->constraints[c], env, &v);
        for (int d = 0; d < k->n_global_rules; d++) (void)aoe_expr_eval(k->global_rule[d], env, &v);
        for (int d = 0; d < k->n_local_rules; d++) (void)aoe_expr_eval(k->local_rule[d], env, &v);
    }
    aoe_tunables_free(&t); /* on failure too: *out keeps what earlier files added */
    char *src = malloc(size + 1);
    if (!src) return 0;
    memcpy(src, data, size);
    src[size] = '\0';
    aoe_autodefine found[AOE_AUTODEFINE_MAX];
    int n = aoe_autodefine_scan(src, "-DTS=4 -D WPT", found, AOE_AUTODEFINE_MAX);
    for (int i = 0; i < n; i++) {
        int64_t c[5], v;
        int has;
        if (aoe_autodefine_candidates(found[i].def, c) > 5) abort();
        if (aoe_source_defines(src, found[i].name, &v, &has)) abort(); /* a default is not fixed */
    }
    free(src);
    return 0;
}
