/* Element-wise GEMM output check (exec_gemm_verify.h). */
#include "tuner/exec_gemm_verify.h"
#include "tuner/exec_gemm_tolerance.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static double load(aoe_elem_type t, const uint8_t *p)
{
    float f;
    double v;
    uint16_t h;
    uint32_t w;
    switch (t) {
    case AOE_ELEM_F32:
        memcpy(&f, p, 4);
        return f;
    case AOE_ELEM_F64:
        memcpy(&v, p, 8);
        return v;
    case AOE_ELEM_BF16:
        memcpy(&h, p, 2);
        w = (uint32_t)h << 16;
        memcpy(&f, &w, 4);
        return f;
    default: /* F16 */
        memcpy(&h, p, 2);
        {
            int e = (h >> 10) & 0x1f;
            double m = h & 0x3ff, s = h & 0x8000 ? -1 : 1;
            if (e == 31) return m ? NAN : s * INFINITY;
            return s * (e ? ldexp(1 + m / 1024, e - 15) : ldexp(m, -24));
        }
    }
}

double aoe_gemm_ulp(aoe_elem_type t, double x)
{
    int p, emin; /* stored mantissa bits, smallest normal exponent */
    switch (t) {
    case AOE_ELEM_F64:
        p = 52, emin = -1022;
        break;
    case AOE_ELEM_F16:
        p = 10, emin = -14;
        break;
    case AOE_ELEM_BF16:
        p = 7, emin = -126;
        break;
    default:
        p = 23, emin = -126;
        break;
    }
    int e;
    frexp(fabs(x), &e); /* |x| = m 2^e, m in [0.5, 1): its binade starts at 2^(e-1) */
    if (x == 0 || e - 1 < emin) e = emin + 1;
    return ldexp(1, e - 1 - p);
}

int aoe_gemm_check_output(const aoe_gemm_desc *d, const uint8_t *ref, const uint8_t *got,
                          uint64_t size, char *reason, size_t len)
{
    aoe_elem_type t = aoe_gemm_elem(d->d_type);
    if (t != AOE_ELEM_F32 && t != AOE_ELEM_F64 && t != AOE_ELEM_F16 && t != AOE_ELEM_BF16) return 0;
    double u = aoe_gemm_compute_roundoff(d->compute_type);
    if (u < 0) return 0; /* unknown compute: the generic check alone */
    size_t es = aoe_elem_size(t);
    uint64_t n = size / es;
    double maxref = 0;
    for (uint64_t i = 0; i < n; i++) {
        double r = load(t, ref + i * es);
        if (isfinite(r) && fabs(r) > maxref) maxref = fabs(r);
    }
    double slack = (double)(d->k ? d->k : 1) * u * maxref;
    for (uint64_t i = 0; i < n; i++) {
        if (!memcmp(ref + i * es, got + i * es, es)) continue;
        double r = load(t, ref + i * es), g = load(t, got + i * es);
        if (!isfinite(r) || !isfinite(g)) continue; /* placement: the generic check */
        double bound = 2 * aoe_gemm_ulp(t, r) + slack;
        if (fabs(g - r) > bound) {
            snprintf(reason, len,
                     "wrong result: args[3]: %s element %" PRIu64 " is %g, expected %g (off by "
                     "%.3g, more than %.3g: 2 ulps + k x roundoff x max |D|)",
                     aoe_elem_name(t), i, g, r, fabs(g - r), bound);
            return -1;
        }
    }
    return 0;
}
