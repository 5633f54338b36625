/* A tuned cuBLASLt algorithm configuration, stored as a bank policy: one
 * library attribute (AOE_PARAM_LIBRARY_ATTR) per configuration attribute,
 * under stable names. The hook rebuilds the algorithm from it with
 * cublasLtMatmulAlgoInit + AlgoConfigSetAttribute + AlgoCheck; the raw
 * cublasLtMatmulAlgo_t bytes are not stored (valid for one library version
 * only). Such a policy is never applied to a kernel launch
 * (aoe_policy_prepare refuses it). Format: docs/formats.md, "GEMM records". */
#ifndef AOE_GEMM_ALGO_H
#define AOE_GEMM_ALGO_H

#include "store/record.h"

#include <stddef.h>
#include <stdint.h>

/* The values are cublasLtMatmulAlgoConfigAttributes_t's, in its C types. */
typedef struct {
    int32_t algo;           /* "algo": CUBLASLT_ALGO_CONFIG_ID, 0..2^31-1 (required) */
    uint32_t tile;          /* "tile": TILE_ID (cublasLtMatmulTile_t), default 0 */
    uint32_t stages;        /* "stages": STAGES_ID (cublasLtMatmulStages_t), default 0 */
    int32_t splitk;         /* "splitk": SPLITK_NUM, 1..2^31-1, default 1 */
    uint32_t reduction;     /* "reduction": REDUCTION_SCHEME, 0, 1, 2 or 4, default 0 */
    uint32_t swizzle;       /* "swizzle": CTA_SWIZZLING, 0 or 1, default 0 */
    uint32_t custom;        /* "custom": CUSTOM_OPTION, default 0 */
    uint16_t inner_shape;   /* "inner_shape": INNER_SHAPE_ID, default 0 */
    uint16_t cluster_shape; /* "cluster_shape": CLUSTER_SHAPE_ID, default 0 */
    uint32_t workspace;     /* "workspace": bytes the algorithm needs (AlgoCheck), default 0 */
} aoe_gemm_algo;

#define AOE_GEMM_ALGO_NPARAMS 10

/* The defaults above (algo 0). */
void aoe_gemm_algo_init(aoe_gemm_algo *a);

/* 0 when every value is in its range; -1 and a message naming the field. */
int aoe_gemm_algo_check(const aoe_gemm_algo *a, char *err, size_t errlen);

/* The policy of a GEMM record: the ten parameters in the order above, kind
 * library attribute; work_dim 1 and all sizes 0 (a library call has no work
 * sizes; the record rules ask for a work dimension). Returns 0, or -1 with
 * the message of aoe_gemm_algo_check. */
int aoe_gemm_algo_to_policy(const aoe_gemm_algo *a, aoe_policy *p, char *err, size_t errlen);

/* The configuration a policy holds: every parameter a library attribute with
 * a known name (in any order, each once), "algo" present (the others default),
 * values in range, no work sizes. Returns 0, or -1 with the reason (also for
 * the library-default form: callers test aoe_gemm_policy_is_library_default
 * first). */
int aoe_gemm_algo_from_policy(const aoe_policy *p, aoe_gemm_algo *a, char *err, size_t errlen);

/* The library-default form: a GEMM policy with no parameters (work_dim 1,
 * every work size 0, n_params 0). It says the library's own choice is the
 * best known for the key (a cuBLAS-path call that no cuBLASLt configuration
 * beat): the hook passes the call through unchanged, and the key is tuned. */
int aoe_gemm_policy_is_library_default(const aoe_policy *p);
/* Writes the library-default form into p. */
void aoe_gemm_library_default_policy(aoe_policy *p);

#endif
