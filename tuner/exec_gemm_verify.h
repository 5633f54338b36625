/* The GEMM executor's element-wise check of an output against the default
 * algorithm's, after the generic one (tuner/verify.h) has passed: that one
 * bounds errors relative to the largest element of the buffer, which lets a
 * small element be off by many of its own ulps. Two correct algorithms
 * summing in f32 (or wider) round one result differently by at most an ulp of
 * the output type after an accumulation difference of about k roundoffs of
 * the compute type, so each finite element must satisfy
 *   |got - ref| <= 2 ulp_out(ref) + k u max |ref|
 * (u: aoe_gemm_compute_roundoff; ulp_out: the output type's spacing at ref,
 * its smallest subnormal spacing at least). No CUDA header. */
#ifndef AOE_EXEC_GEMM_VERIFY_H
#define AOE_EXEC_GEMM_VERIFY_H

#include "jobs/gemm.h"

#include <stddef.h>
#include <stdint.h>

/* 0 when D (size bytes of out_type elements) passes, else -1 and "wrong
 * result: args[3]: ..." naming the first element out of bounds. Non-finite
 * elements and types other than f32/f16/bf16/f64 are left to the generic
 * check. */
int aoe_gemm_check_output(const aoe_gemm_desc *d, const uint8_t *ref, const uint8_t *got,
                          uint64_t size, char *reason, size_t len);

/* Spacing of the output type's values near x (x finite). */
double aoe_gemm_ulp(aoe_elem_type t, double x);

#endif
