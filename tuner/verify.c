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

/* Element index i (bytes i..i+esize) written wherever the default wrote. */
static int elem_written(const uint8_t *written, uint64_t i, size_t esize)
{
    if (!written) return 1;
    for (size_t k = 0; k < esize; k++)
        if (!written[i + k]) return 0;
    return 1;
}

static float as_float(const uint8_t *p)
{
    float f;
    memcpy(&f, p, 4);
    return f;
}

/* >= 90 % of the written 4-byte words are zero or plausible float32 values. */
static int looks_float(const uint8_t *ref, uint64_t size, const uint8_t *written)
{
    uint64_t n = 0, ok = 0;
    for (uint64_t i = 0; i + 4 <= size; i += 4) {
        if (!elem_written(written, i, 4)) continue;
        float f = as_float(ref + i);
        float a = fabsf(f);
        n++;
        ok += f == 0.0f || (isfinite(f) && a >= 1e-30f && a <= 1e30f);
    }
    return n > 0 && size % 4 == 0 && ok * 10 >= n * 9;
}

/* IEEE binary16 -> double (exact). */
static double half_to_double(uint16_t h)
{
    int exp = (h >> 10) & 0x1f;
    double mant = h & 0x3ff;
    double v = exp == 0    ? ldexp(mant, -24)             /* subnormal */
               : exp == 31 ? (mant != 0 ? NAN : INFINITY) /* NaN, inf */
                           : ldexp(1.0 + mant / 1024.0, exp - 15);
    return h & 0x8000 ? -v : v;
}

/* One element of a float type as a double (exact for every type). */
static double load_float(aoe_elem_type t, const uint8_t *p)
{
    uint16_t h;
    double d;
    switch (t) {
    case AOE_ELEM_F64:
        memcpy(&d, p, 8);
        return d;
    case AOE_ELEM_F16:
        memcpy(&h, p, 2);
        return half_to_double(h);
    case AOE_ELEM_BF16: {
        memcpy(&h, p, 2);
        uint32_t bits = (uint32_t)h << 16;
        float f;
        memcpy(&f, &bits, 4);
        return f;
    }
    default:
        return as_float(p);
    }
}

aoe_tolerance aoe_verify_tolerance_for(aoe_elem_type type, const aoe_tolerance *declared)
{
    aoe_tolerance t = *declared;
    switch (type) {
    case AOE_ELEM_F64:
        t.rel_l2 = ldexp(t.rel_l2, -29), t.max_abs = ldexp(t.max_abs, -29);
        break;
    case AOE_ELEM_F16:
        t.rel_l2 += ldexp(2.0, -10), t.max_abs += ldexp(2.0, -10);
        break;
    case AOE_ELEM_BF16:
        t.rel_l2 += ldexp(2.0, -7), t.max_abs += ldexp(2.0, -7);
        break;
    default:
        break;
    }
    return t;
}

/* 1 when the element is a subnormal of its own type (f32, bf16, f64; never
 * for f16, whose subnormals are ordinary values). */
static int subnormal(aoe_elem_type t, const uint8_t *p)
{
    uint16_t h;
    uint32_t w;
    uint64_t q;
    switch (t) {
    case AOE_ELEM_F32:
        memcpy(&w, p, 4);
        return !(w & 0x7f800000u) && (w & 0x007fffffu);
    case AOE_ELEM_BF16:
        memcpy(&h, p, 2);
        return !(h & 0x7f80u) && (h & 0x007fu);
    case AOE_ELEM_F64:
        memcpy(&q, p, 8);
        return !(q & 0x7ff0000000000000ull) && (q & 0x000fffffffffffffull);
    default:
        return 0;
    }
}

/* Float comparison. legacy: the untyped float32 guess, which fails any
 * non-finite element that is not bit-identical (as it always has); typed
 * comparisons let a NaN face a NaN with another payload. */
static int compare_floats(aoe_elem_type t, int legacy, const uint8_t *ref, const uint8_t *got,
                          uint64_t size, const uint8_t *written, const aoe_tolerance *tol,
                          char *reason, size_t reasonlen)
{
    const size_t es = aoe_elem_size(t);
    const char *what = legacy ? "float" : aoe_elem_name(t);
    double d2 = 0, r2 = 0, maxabs = 0, maxref = 0;
    uint64_t worst = 0;
    for (uint64_t i = 0; i + es <= size; i += es) {
        if (!elem_written(written, i, es)) continue;
        double r = load_float(t, ref + i);
        if (!memcmp(ref + i, got + i, es)) {
            if (isfinite(r)) r2 += r * r, maxref = fmax(maxref, fabs(r));
            continue;
        }
        double g = load_float(t, got + i);
        if (!legacy && isnan(r) && isnan(g)) continue;
        /* A subnormal is what small integers bit-cast into a float buffer
         * look like (an argmax index): such an element must match exactly.
         * Not for f16, whose subnormals (below 6.1e-5) are ordinary values. */
        int bitcast = !legacy && (subnormal(t, ref + i) || subnormal(t, got + i));
        if (isnan(g) || isnan(r) || isinf(g) || isinf(r) || bitcast) {
            snprintf(reason, reasonlen, "wrong result: %s element %" PRIu64 " is %g, expected %g",
                     what, i / es, g, r);
            return -1;
        }
        double d = g - r;
        d2 += d * d;
        r2 += r * r;
        maxref = fmax(maxref, fabs(r));
        if (fabs(d) > maxabs) maxabs = fabs(d), worst = i / es;
    }
    double rel = sqrt(d2) / fmax(sqrt(r2), t == AOE_ELEM_F64 ? 1e-300 : 1e-30);
    double abs_bound = tol->max_abs * fmax(1.0, maxref);
    if (rel > tol->rel_l2 || maxabs > abs_bound) {
        snprintf(reason, reasonlen,
                 "wrong result: %s relative L2 error %.3g (limit %.3g), max abs error %.3g at "
                 "element %" PRIu64 " (limit %.3g)",
                 what, rel, tol->rel_l2, maxabs, worst, abs_bound);
        return -1;
    }
    return 0;
}

/* Integers: the first element that differs, with both values. */
static void describe_int(aoe_elem_type t, const uint8_t *ref, const uint8_t *got, uint64_t first,
                         char *reason, size_t reasonlen)
{
    const size_t es = aoe_elem_size(t);
    uint64_t i = first / es * es;
    uint64_t rv = 0, gv = 0;
    memcpy(&rv, ref + i, es); /* little-endian hosts: the low bytes */
    memcpy(&gv, got + i, es);
    int is_signed = t == AOE_ELEM_I8 || t == AOE_ELEM_I16 || t == AOE_ELEM_I32 || t == AOE_ELEM_I64;
    if (is_signed && es < 8) {
        uint64_t sign = 1ull << (8 * es - 1);
        rv = (rv ^ sign) - sign, gv = (gv ^ sign) - sign; /* sign-extend */
    }
    if (is_signed)
        snprintf(reason, reasonlen,
                 "wrong result: %s element %" PRIu64 " is %" PRId64 ", expected %" PRId64,
                 aoe_elem_name(t), i / es, (int64_t)gv, (int64_t)rv);
    else
        snprintf(reason, reasonlen,
                 "wrong result: %s element %" PRIu64 " is %" PRIu64 ", expected %" PRIu64,
                 aoe_elem_name(t), i / es, gv, rv);
}

#define GUESS_F32 AOE_ELEM_COUNT /* element type unknown: float32 when it looks like it */

static int verify(unsigned type, const uint8_t *ref, const uint8_t *got, uint64_t size,
                  int poisoned, const uint8_t *written, const aoe_tolerance *tol, char *reason,
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
     * an element the variant never wrote. Checked per element (4 bytes when
     * the type is unknown). */
    size_t es = type == GUESS_F32 ? 4 : aoe_elem_size((aoe_elem_type)type);
    if (poisoned && unwritten) {
        uint64_t elems = 0;
        for (uint64_t i = 0; i + es <= size; i += es) {
            if (!elem_written(written, i, es)) continue;
            int got_poison = 1, ref_poison = 1;
            for (size_t k = 0; k < es; k++) {
                got_poison &= got[i + k] == AOE_POISON_1;
                ref_poison &= ref[i + k] == AOE_POISON_1;
            }
            elems += got_poison && !ref_poison;
        }
        if (elems || size % es) {
            snprintf(reason, reasonlen,
                     "unwritten output: %" PRIu64 " of the elements the default writes were not "
                     "written",
                     elems ? elems : unwritten);
            return -1;
        }
    }
    if (!tol->exact) {
        if (type == GUESS_F32 && looks_float(ref, size, written))
            return compare_floats(AOE_ELEM_F32, 1, ref, got, size, written, tol, reason, reasonlen);
        if (type != GUESS_F32 && aoe_elem_is_float((aoe_elem_type)type)) {
            /* a trailing partial element is not a number: exact */
            for (uint64_t i = size / es * es; i < size; i++)
                if (got[i] != ref[i] && (!written || written[i])) goto bytes;
            aoe_tolerance t = aoe_verify_tolerance_for((aoe_elem_type)type, tol);
            return compare_floats((aoe_elem_type)type, 0, ref, got, size, written, &t, reason,
                                  reasonlen);
        }
    }
    if (type != GUESS_F32 && type != AOE_ELEM_BYTES && !aoe_elem_is_float((aoe_elem_type)type) &&
        first / es * es + es <= size) {
        describe_int((aoe_elem_type)type, ref, got, first, reason, reasonlen);
        return -1;
    }
bytes:
    snprintf(reason, reasonlen,
             "wrong result: %" PRIu64 " bytes differ (first at byte %" PRIu64 ": 0x%02x, expected "
             "0x%02x)%s",
             diff, first, got[first], ref[first], tol->exact ? " (exact match required)" : "");
    return -1;
}

int aoe_verify_buffer(const uint8_t *ref, const uint8_t *got, uint64_t size, int poisoned,
                      const uint8_t *written, const aoe_tolerance *tol, char *reason,
                      size_t reasonlen)
{
    return verify(GUESS_F32, ref, got, size, poisoned, written, tol, reason, reasonlen);
}

int aoe_verify_buffer_typed(aoe_elem_type type, const uint8_t *ref, const uint8_t *got,
                            uint64_t size, int poisoned, const uint8_t *written,
                            const aoe_tolerance *tol, char *reason, size_t reasonlen)
{
    if ((unsigned)type >= AOE_ELEM_COUNT) type = AOE_ELEM_BYTES; /* unknown: exact */
    return verify((unsigned)type, ref, got, size, poisoned, written, tol, reason, reasonlen);
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
        unsigned type = ref->elem && ref->elem[i] < AOE_ELEM_COUNT ? ref->elem[i] : GUESS_F32;
        if (verify(type, ref->ref[i], got[i], ref->size[i], ref->poisoned[i],
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

void aoe_reference_types_from_job(aoe_reference *r, const aoe_job *job)
{
    for (uint32_t i = 0; r->elem && i < r->nargs && i < job->nargs; i++)
        if (job->args[i].elem != AOE_ELEM_BYTES && (unsigned)job->args[i].elem < AOE_ELEM_COUNT)
            r->elem[i] = (uint8_t)job->args[i].elem;
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
    r->elem = malloc(n);
    if (r->elem) memset(r->elem, AOE_VERIFY_UNTYPED, n);
    if (r->size && r->ref && r->poisoned && r->written && r->elem) return 0;
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
    free(r->elem);
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
