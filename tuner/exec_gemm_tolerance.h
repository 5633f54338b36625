/* How close a GEMM candidate's output must be to the default algorithm's
 * (no CUDA header: unit-tested without a toolkit). */
#ifndef AOE_EXEC_GEMM_TOLERANCE_H
#define AOE_EXEC_GEMM_TOLERANCE_H

#include "core/elem_type.h"
#include "space/space.h"

#include <stdint.h>

/* Unit roundoff of the products and sums of a cublasComputeType_t (value as
 * an integer): 2^-24 for 32F, 2^-11 for 16F and the FAST_16F/FAST_TF32
 * forms, 2^-8 for FAST_16BF, 2^-53 for 64F; 0 for integer compute (exact);
 * -1 for a value it does not know. */
double aoe_gemm_compute_roundoff(int32_t compute_type);

/* The tolerance of a candidate against the default for an output of type
 * `out` and reduction length k: two algorithms sum the k products in a
 * different order (tiles, split-K), which moves a result by about sqrt(k)
 * roundoffs typically and k at worst, so
 *   rel_l2  = 4 sqrt(k) u   and   max_abs = k u  (at least 8 u)
 * with u the compute roundoff, both at most 0.25; the verifier adds the
 * output type's own rounding (aoe_verify_tolerance_for: 2 eps for f16/bf16).
 * Given as a float32-declared tolerance: for f64 outputs scaled by 2^29, which
 * the verifier's 2^-29 for f64 undoes. Integer compute, integer outputs and
 * unknown compute types: exact. */
aoe_tolerance aoe_gemm_tolerance(aoe_elem_type out, int32_t compute_type, uint64_t k);

#endif
