/* Output verification: a variant must leave every buffer as the default
 * does, write every byte the default writes and nothing the default leaves
 * alone, and stay inside its buffers. */
#include "tuner/verify.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int aoe_verify_classify(const uint8_t *plain, const uint8_t *p1, const uint8_t *p2, uint64_t size,
                        uint8_t *written)
{
    int pure = 1;
    for (uint64_t i = 0; i < size; i++) {
        written[i] = !(p1[i] == AOE_POISON_1 && p2[i] == AOE_POISON_2);
        if (written[i] && (p1[i] != p2[i] || p1[i] != plain[i])) pure = 0;
    }
    return pure;
}

static float as_float(const uint8_t *p)
{
    float f;
    memcpy(&f, p, 4);
    return f;
}

static int word_written(const uint8_t *written, uint64_t i)
{
    return !written || (written[i] && written[i + 1] && written[i + 2] && written[i + 3]);
}

/* >= 90 % of the written 4-byte words are zero or plausible float32 values. */
static int looks_float(const uint8_t *ref, uint64_t size, const uint8_t *written)
{
    uint64_t n = 0, ok = 0;
    for (uint64_t i = 0; i + 4 <= size; i += 4) {
        if (!word_written(written, i)) continue;
        float f = as_float(ref + i);
        float a = fabsf(f);
        n++;
        ok += f == 0.0f || (isfinite(f) && a >= 1e-30f && a <= 1e30f);
    }
    return n > 0 && size % 4 == 0 && ok * 10 >= n * 9;
}

static int compare_float(const uint8_t *ref, const uint8_t *got, uint64_t size,
                         const uint8_t *written, const aoe_tolerance *tol, char *reason,
                         size_t reasonlen)
{
    double d2 = 0, r2 = 0, maxabs = 0, maxref = 0;
    uint64_t worst = 0;
    for (uint64_t i = 0; i + 4 <= size; i += 4) {
        if (!word_written(written, i)) continue;
        if (!memcmp(ref + i, got + i, 4)) {
            double r = as_float(ref + i);
            if (isfinite(r)) r2 += r * r, maxref = fmax(maxref, fabs(r));
            continue;
        }
        float r = as_float(ref + i), g = as_float(got + i);
        if (isnan(g) || isnan(r) || isinf(g) || isinf(r)) {
            snprintf(reason, reasonlen,
                     "wrong result: float element %" PRIu64 " is %g, expected %g", i / 4, (double)g,
                     (double)r);
            return -1;
        }
        double d = (double)g - (double)r;
        d2 += d * d;
        r2 += (double)r * r;
        maxref = fmax(maxref, fabs(r));
        if (fabs(d) > maxabs) maxabs = fabs(d), worst = i / 4;
    }
    double rel = sqrt(d2) / fmax(sqrt(r2), 1e-30);
    double abs_bound = tol->max_abs * fmax(1.0, maxref);
    if (rel > tol->rel_l2 || maxabs > abs_bound) {
        snprintf(reason, reasonlen,
                 "wrong result: float relative L2 error %.3g (limit %.3g), max abs error %.3g at "
                 "element %" PRIu64 " (limit %.3g)",
                 rel, tol->rel_l2, maxabs, worst, abs_bound);
        return -1;
    }
    return 0;
}

int aoe_verify_buffer(const uint8_t *ref, const uint8_t *got, uint64_t size, int poisoned,
                      const uint8_t *written, const aoe_tolerance *tol, char *reason,
                      size_t reasonlen)
{
    uint64_t extra = 0, unwritten = 0, diff = 0, first = UINT64_MAX;
    for (uint64_t i = 0; i < size; i++) {
        int w = !written || written[i];
        if (poisoned && !w) {
            extra += got[i] != AOE_POISON_1;
            continue;
        }
        if (got[i] == ref[i]) continue;
        if (poisoned && got[i] == AOE_POISON_1) unwritten++;
        diff++;
        if (first == UINT64_MAX) first = i;
    }
    if (extra) {
        snprintf(reason, reasonlen,
                 "out-of-bounds write: %" PRIu64 " bytes written that the default leaves untouched",
                 extra);
        return -1;
    }
    if (!diff) return 0;
    /* Poison left where the default wrote, and not explained by float noise:
     * an element the variant never wrote. Checked per 4-byte word. */
    if (poisoned && unwritten) {
        uint64_t words = 0;
        for (uint64_t i = 0; i + 4 <= size; i += 4)
            if (word_written(written, i) && !memcmp(got + i, "\xff\xff\xff\xff", 4) &&
                memcmp(ref + i, "\xff\xff\xff\xff", 4))
                words++;
        if (words || size % 4) {
            snprintf(reason, reasonlen,
                     "unwritten output: %" PRIu64 " of the elements the default writes were not "
                     "written",
                     words ? words : unwritten);
            return -1;
        }
    }
    if (!tol->exact && looks_float(ref, size, written))
        return compare_float(ref, got, size, written, tol, reason, reasonlen);
    snprintf(reason, reasonlen,
             "wrong result: %" PRIu64 " bytes differ (first at byte %" PRIu64 ": 0x%02x, expected "
             "0x%02x)%s",
             diff, first, got[first], ref[first], tol->exact ? " (exact match required)" : "");
    return -1;
}

int aoe_verify_outputs(const aoe_reference *ref, const uint8_t *const *got, uint64_t oob_bytes,
                       int oob_arg, const aoe_tolerance *tol, char *reason, size_t reasonlen)
{
    char why[384];
    if (oob_bytes > ref->oob_bytes) {
        snprintf(reason, reasonlen,
                 "out-of-bounds write: %" PRIu64 " guard bytes around args[%d] overwritten",
                 oob_bytes, oob_arg);
        return -1;
    }
    for (uint32_t i = 0; i < ref->nargs; i++) {
        if (!ref->ref[i] || !got[i]) continue;
        if (aoe_verify_buffer(ref->ref[i], got[i], ref->size[i], ref->poisoned[i],
                              ref->poisoned[i] ? ref->written[i] : NULL, tol, why, sizeof why)) {
            char cat[64];
            const char *rest = strchr(why, ':');
            aoe_reason_category(why, cat, sizeof cat);
            snprintf(reason, reasonlen, "%s: args[%u]:%s", cat, i, rest ? rest + 1 : "");
            return -1;
        }
    }
    return 0;
}

int aoe_reference_init(aoe_reference *r, uint32_t nargs)
{
    memset(r, 0, sizeof *r);
    size_t n = nargs ? nargs : 1;
    r->nargs = nargs;
    r->size = calloc(n, sizeof *r->size);
    r->ref = calloc(n, sizeof *r->ref);
    r->poisoned = calloc(n, 1);
    r->written = calloc(n, sizeof *r->written);
    if (r->size && r->ref && r->poisoned && r->written) return 0;
    aoe_reference_free(r);
    return -1;
}

void aoe_reference_free(aoe_reference *r)
{
    for (uint32_t i = 0; i < r->nargs; i++) {
        if (r->ref) free(r->ref[i]);
        if (r->written) free(r->written[i]);
    }
    free(r->size);
    free(r->ref);
    free(r->poisoned);
    free(r->written);
    memset(r, 0, sizeof *r);
}

void aoe_reason_category(const char *reason, char *out, size_t outlen)
{
    const char *c = strchr(reason, ':');
    size_t n = c ? (size_t)(c - reason) : strlen(reason);
    if (n >= outlen) n = outlen - 1;
    memcpy(out, reason, n);
    out[n] = '\0';
}
