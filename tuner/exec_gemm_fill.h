/* Synthetic operands for a GEMM the tuner replays (no CUDA header). The rows
 * of op(A) come in three bands: normal (0, 1), uniform [-1, 1) and wide (signed
 * powers of two 2^-E..2^E, E up to 4 and as large as the output type allows for k,
 * so results reach well into the type's range without overflowing); B, C and
 * the bias alternate normal and uniform halves. Integer types get small
 * integers (-4..4), types without an element type (fp8, fp4) small bytes.
 * Deterministic: the same job gives the same bytes. */
#ifndef AOE_EXEC_GEMM_FILL_H
#define AOE_EXEC_GEMM_FILL_H

#include "jobs/gemm.h"

#include <stdint.h>

void aoe_gemm_fill(const aoe_gemm_desc *d, aoe_gemm_arg which, uint8_t *dst, uint64_t size);

/* The exponent bound E of the wide band for an output of cudaDataType_t
 * out_type and reduction length k (1..4). */
int aoe_gemm_fill_wide_exponent(int32_t out_type, uint64_t k);

/* IEEE float to binary16 / bfloat16, rounded to nearest even. */
uint16_t aoe_f32_to_f16(float f);
uint16_t aoe_f32_to_bf16(float f);

#endif
