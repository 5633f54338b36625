/* The one validation of a bank record. A bank is input (copied, merged,
 * imported), so decode, import, merge and put all refuse a record the shim
 * must never apply: a parameter name that is not a C identifier would be
 * pasted into build options, and work sizes out of range break launches. */
#include "store/record.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        if (errlen) snprintf(err, errlen, __VA_ARGS__);                                            \
        return -1;                                                                                 \
    } while (0)

int aoe_is_identifier(const char *s, size_t cap)
{
    size_t n = strnlen(s, cap);
    if (n == 0 || n == cap) return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
        if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return 0;
    }
    return 1;
}

/* NUL-terminated within cap and printable ASCII (space only if allowed);
 * free text (summary) may also hold tabs and UTF-8, never other control
 * bytes (a terminal escape in `aoe bank show`). */
static int printable(const char *s, size_t cap, int allow_space, int free_text)
{
    size_t n = strnlen(s, cap);
    if (n == cap) return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (free_text && (c >= 0x80 || c == '\t')) continue;
        if (c < 0x20 || c >= 0x7f || (c == ' ' && !allow_space)) return 0;
    }
    return 1;
}

static int check_sizes(const aoe_policy *p, char *err, size_t errlen)
{
    uint32_t wd = p->work_dim;
    if (wd < 1 || wd > 3) FAIL("work_dim %u is not 1..3", wd);
    int gset = 0, lset = 0;
    for (uint32_t d = 0; d < 3; d++) {
        if (d >= wd && (p->global[d] || p->local[d]))
            FAIL("global/local[%u] set beyond work_dim %u", d, wd);
        if (d < wd) gset += p->global[d] != 0, lset += p->local[d] != 0;
    }
    /* global all 0: the launch's own global size is kept */
    if (gset && gset != (int)wd) FAIL("global: some but not all of %u sizes set", wd);
    if (lset && lset != (int)wd) FAIL("local: some but not all of %u sizes set", wd);
    uint64_t prod = 1;
    for (uint32_t d = 0; d < wd; d++) {
        if (p->global[d] > AOE_GLOBAL_MAX)
            FAIL("global[%u] %llu is not 1..%llu", d, (unsigned long long)p->global[d],
                 (unsigned long long)AOE_GLOBAL_MAX);
        if (!lset) continue;
        if (p->local[d] > AOE_LOCAL_PRODUCT_MAX)
            FAIL("local[%u] %llu is above %d", d, (unsigned long long)p->local[d],
                 AOE_LOCAL_PRODUCT_MAX);
        /* Non-uniform work-groups (OpenCL 2.0) let a program's own local size
         * leave a remainder; the launch-relative check decides per launch. */
        if (gset && p->local[d] > p->global[d])
            FAIL("local[%u] %llu is above global[%u] %llu", d, (unsigned long long)p->local[d], d,
                 (unsigned long long)p->global[d]);
        prod *= p->local[d];
    }
    if (prod > AOE_LOCAL_PRODUCT_MAX)
        FAIL("local size product %llu is above %d", (unsigned long long)prod,
             AOE_LOCAL_PRODUCT_MAX);
    return 0;
}

static int check_params(const aoe_policy *p, char *err, size_t errlen)
{
    if (p->n_params > AOE_MAX_PARAMS)
        FAIL("%u parameters, at most %d", p->n_params, AOE_MAX_PARAMS);
    for (uint32_t i = 0; i < p->n_params; i++) {
        const aoe_param *a = &p->params[i];
        if (!aoe_is_identifier(a->name, sizeof a->name)) {
            char shown[AOE_NAME_LEN * 4 + 1];
            size_t n = 0, len = strnlen(a->name, sizeof a->name);
            for (size_t j = 0; j < len && n + 5 < sizeof shown; j++) {
                unsigned char c = (unsigned char)a->name[j];
                n += (size_t)snprintf(shown + n, sizeof shown - n,
                                      c >= 0x20 && c < 0x7f ? "%c" : "\\x%02x", c);
            }
            FAIL("param %u name '%s' is not a C identifier", i, shown);
        }
        if (a->kind >= AOE_PARAM_KIND_COUNT) FAIL("param %s: unknown kind %u", a->name, a->kind);
        if (a->value < AOE_PARAM_VALUE_MIN || a->value > AOE_PARAM_VALUE_MAX)
            FAIL("param %s: value %lld is outside %lld..%lld", a->name, (long long)a->value,
                 (long long)AOE_PARAM_VALUE_MIN, (long long)AOE_PARAM_VALUE_MAX);
        /* a library takes its attributes as 32-bit integers */
        if (a->kind == AOE_PARAM_LIBRARY_ATTR &&
            (a->value < AOE_LIBRARY_ATTR_MIN || a->value > AOE_LIBRARY_ATTR_MAX))
            FAIL("param %s: library attribute value %lld is outside %lld..%lld", a->name,
                 (long long)a->value, (long long)AOE_LIBRARY_ATTR_MIN,
                 (long long)AOE_LIBRARY_ATTR_MAX);
        for (uint32_t j = 0; j < i; j++)
            if (!strcmp(p->params[j].name, a->name)) FAIL("param %s appears twice", a->name);
    }
    return 0;
}

int aoe_record_check(const aoe_record *rec, char *err, size_t errlen)
{
    if (!printable(rec->runtime, sizeof rec->runtime, 0, 0)) FAIL("runtime: not printable ASCII");
    if (!rec->kernel_name[0]) FAIL("kernel_name: empty");
    if (!printable(rec->kernel_name, sizeof rec->kernel_name, 0, 0))
        FAIL("kernel_name: not printable ASCII without spaces");
    if (!printable(rec->strategy, sizeof rec->strategy, 1, 0) ||
        !printable(rec->tuner_version, sizeof rec->tuner_version, 1, 0))
        FAIL("strategy/tuner_version: not printable ASCII");
    if (!printable(rec->summary, sizeof rec->summary, 1, 1)) FAIL("summary: control characters");
    const double t[] = {rec->default_us, rec->default_spread_us, rec->tuned_us,
                        rec->tuned_spread_us, rec->tuning_seconds};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!isfinite(t[i]) || t[i] < 0) FAIL("time %g is not finite and >= 0", t[i]);
    if (check_params(&rec->policy, err, errlen)) return -1;
    return check_sizes(&rec->policy, err, errlen);
}

static const char *const kind_names[AOE_PARAM_KIND_COUNT] = {
    [AOE_PARAM_WORK_SIZE] = "work_size",
    [AOE_PARAM_DEFINE] = "define",
    [AOE_PARAM_LIBRARY_ATTR] = "library_attribute",
};

const char *aoe_param_kind_name(unsigned kind)
{
    return kind < AOE_PARAM_KIND_COUNT ? kind_names[kind] : "?";
}

int aoe_param_kind_parse(const char *name, uint8_t *kind)
{
    for (unsigned k = 0; name && k < AOE_PARAM_KIND_COUNT; k++)
        if (!strcmp(name, kind_names[k])) {
            *kind = (uint8_t)k;
            return 0;
        }
    return -1;
}
