/* libFuzzer harness: a bank record as the shim reads it, bytes -> decoded
 * record -> applied policy (store/policy_check.c, what the shim's
 * aoe_policy_from_record calls). Whatever the bytes, a policy that comes out
 * is one the shim may apply: no library attribute, build options made only
 * of " -D<C identifier>=<integer>" (one per define parameter), work_dim 1..3, global all 0
 * or 1..2^32, local all 0 or at most global with a product <= 8192. */
// fuzz-sources: store/record.c store/record_check.c store/policy_check.c
#include "store/policy_check.h"
#include "store/record.h"

#include <stdlib.h>
#include <string.h>

static int is_ident_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_ident(char c)
{
    return is_ident_start(c) || (c >= '0' && c <= '9');
}

/* Exactly the define grammar; returns the number of -D options or -1. */
static int parse_defines(const char *s)
{
    int n = 0;
    while (*s) {
        if (strncmp(s, " -D", 3)) return -1;
        s += 3;
        if (!is_ident_start(*s)) return -1;
        while (is_ident(*s)) s++;
        if (*s++ != '=') return -1;
        if (*s == '-') s++;
        if (!(*s >= '0' && *s <= '9')) return -1;
        while (*s >= '0' && *s <= '9') s++;
        n++;
    }
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    aoe_record rec;
    char err[256], defines[1024];
    aoe_policy_sizes sz;
    if (aoe_record_decode(data, size, &rec, err, sizeof err)) return 0;
    if (aoe_policy_prepare(&rec, &sz, defines, sizeof defines, err, sizeof err)) return 0;
    int nd = 0;
    for (uint32_t i = 0; i < rec.policy.n_params; i++) {
        if (rec.policy.params[i].kind == AOE_PARAM_LIBRARY_ATTR) abort(); /* never for a launch */
        nd += rec.policy.params[i].kind == AOE_PARAM_DEFINE;
    }
    if (parse_defines(defines) != nd) abort();
    if (sz.work_dim < 1 || sz.work_dim > 3) abort();
    int gset = sz.global[0] != 0;
    size_t prod = 1;
    for (uint32_t d = 0; d < 3; d++) {
        if (d >= sz.work_dim) {
            if (sz.global[d] || sz.local[d]) abort();
            continue;
        }
        if ((sz.global[d] != 0) != gset || sz.global[d] > (1ULL << 32)) abort();
        if ((sz.local[d] != 0) != sz.has_local) abort();
        if (!sz.has_local) continue;
        if (gset && sz.local[d] > sz.global[d]) abort();
        prod *= sz.local[d];
    }
    if (prod > AOE_LOCAL_PRODUCT_MAX) abort();
    return 0;
}
