/* The GEMM verification tolerance (exec_gemm_tolerance.h). */
#include "tuner/exec_gemm_tolerance.h"

#include <math.h>

/* cublasComputeType_t values (cublas_api.h), as plain numbers here. */
double aoe_gemm_compute_roundoff(int32_t compute_type)
{
    switch (compute_type) {
    case 68: /* 32F */
    case 69: /* 32F_PEDANTIC */
    case 78: /* 32F_EMULATED_16BFX9 */
        return ldexp(1, -24);
    case 64: /* 16F */
    case 65: /* 16F_PEDANTIC */
    case 74: /* 32F_FAST_16F */
    case 77: /* 32F_FAST_TF32 */
        return ldexp(1, -11);
    case 75: /* 32F_FAST_16BF */
        return ldexp(1, -8);
    case 70: /* 64F */
    case 71: /* 64F_PEDANTIC */
    case 79: /* 64F_EMULATED_FIXEDPOINT */
        return ldexp(1, -53);
    case 72: /* 32I */
    case 73: /* 32I_PEDANTIC */
        return 0;
    default:
        return -1;
    }
}

aoe_tolerance aoe_gemm_tolerance(aoe_elem_type out, int32_t compute_type, uint64_t k)
{
    aoe_tolerance t = {0, 0, true};
    double u = aoe_gemm_compute_roundoff(compute_type);
    int is_float =
        out == AOE_ELEM_F32 || out == AOE_ELEM_F16 || out == AOE_ELEM_BF16 || out == AOE_ELEM_F64;
    if (u <= 0 || !is_float) return t; /* exact */
    double kk = k ? (double)k : 1;
    t.exact = false;
    t.rel_l2 = fmin(0.25, 4 * sqrt(kk) * u);
    t.max_abs = fmin(0.25, fmax(8 * u, kk * u));
    if (out == AOE_ELEM_F64) { /* declared as for float32: the verifier scales f64 by 2^-29 */
        t.rel_l2 = ldexp(t.rel_l2, 29);
        t.max_abs = ldexp(t.max_abs, 29);
    }
    return t;
}
