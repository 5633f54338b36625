/* The algorithm configuration inside cublasLtMatmulAlgo_t (8 x uint64_t, as
 * the real API keeps it: the descriptor alone carries everything, so a tuned
 * configuration saved as its attribute values or its 64 bytes round-trips):
 *   data[0] magic << 32 | id        data[1] tile | stages << 32
 *   data[2] split-K | reduction << 32   data[3] swizzle | custom option << 32
 *   data[4] inner shape | cluster shape << 16
 *   data[5] A, B, C, D cudaDataType (16 bits each)
 *   data[6] compute type | scale type << 32    data[7] 0 */
#ifndef FC_ALGO_H
#define FC_ALGO_H

#include "fc_catalogue.h"

#include <cublasLt.h>

#define FC_ALGO_MAGIC 0x46414b45u /* "FAKE" */

struct fc_algo_types {
    int compute, scale, a, b, c, d;
};

void fc_algo_pack(cublasLtMatmulAlgo_t *algo, const struct fc_config *c,
                  const struct fc_algo_types *t);
/* 0, or -1 when algo was not made by AlgoInit or the heuristic. */
int fc_algo_unpack(const cublasLtMatmulAlgo_t *algo, struct fc_config *c, struct fc_algo_types *t);

/* Whether configuration c is one algorithm a accepts (CUBLAS_STATUS_SUCCESS
 * or CUBLAS_STATUS_NOT_SUPPORTED, as cublasLtMatmulAlgoCheck answers). */
cublasStatus_t fc_config_valid(const struct fc_algo_info *a, const struct fc_config *c);

#endif
