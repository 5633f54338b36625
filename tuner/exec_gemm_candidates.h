/* The candidates the GEMM executor measures, as plain configurations (no
 * CUDA header: unit-tested without a toolkit). The executor asks cuBLASLt
 * for the heuristic's answers and for each algorithm's capabilities; this
 * turns them into one bounded list in a deterministic order: the
 * heuristic's answers first (its first is the default), then
 * configurations built from the capabilities, one per algorithm in turn, each
 * kept only when `check` (cublasLtMatmulAlgoCheck against the caller's
 * workspace limit) accepts it, duplicates dropped. */
#ifndef AOE_EXEC_GEMM_CANDIDATES_H
#define AOE_EXEC_GEMM_CANDIDATES_H

#include "store/gemm_algo.h"

#include <stddef.h>
#include <stdint.h>

#define AOE_GEMM_MAX_HEURISTIC 32 /* heuristic answers asked for */
#define AOE_GEMM_MAX_BUILT 64     /* configurations built from capabilities, at most */
#define AOE_GEMM_MAX_CANDIDATES (AOE_GEMM_MAX_HEURISTIC + AOE_GEMM_MAX_BUILT)
#define AOE_GEMM_MAX_IDS 64      /* algorithm ids looked at */
#define AOE_GEMM_CAP_LIST 32     /* tiles or stages kept per algorithm */
#define AOE_GEMM_MAX_CHECKS 4096 /* configurations checked at most */

/* What cublasLtMatmulAlgoCapGetAttribute says about one algorithm id. */
typedef struct {
    int32_t id;
    uint32_t tiles[AOE_GEMM_CAP_LIST]; /* TILE_IDS (none: the tile is not enumerable, 0) */
    uint32_t ntiles;
    uint32_t stages[AOE_GEMM_CAP_LIST]; /* STAGES_IDS (none: 0) */
    uint32_t nstages;
    int splitk;              /* SPLITK_SUPPORT */
    uint32_t reduction_mask; /* REDUCTION_SCHEME_MASK (INPLACE 1, COMPUTE_TYPE 2, OUTPUT_TYPE 4) */
    int swizzle;             /* CTA_SWIZZLING_SUPPORT */
    uint32_t custom_max;     /* CUSTOM_OPTION_MAX */
} aoe_gemm_caps;

/* Split-K values tried with an algorithm that supports split-K (1: none). */
#define AOE_GEMM_SPLITS                                                                            \
    {                                                                                              \
        1, 2, 4, 8, 16                                                                             \
    }
#define AOE_GEMM_CUSTOM_MAX 3 /* custom options tried: 0..min(cap, this) */

/* 0 when the configuration is valid for the job (a->workspace set to what
 * it needs), -1 when refused. */
typedef int (*aoe_gemm_check_fn)(void *ctx, aoe_gemm_algo *a);

typedef struct {
    size_t heuristic; /* heuristic answers kept */
    size_t built;     /* built configurations kept */
    size_t refused;   /* configurations check refused */
    size_t duplicate; /* configurations already in the list */
} aoe_gemm_cand_stats;

/* Fills out (max entries) and returns how many: heur[0..nheur) first (each
 * checked), then built configurations of caps[0..ncaps), round-robin over
 * the algorithms: per algorithm its configurations in mixed-radix order,
 * fastest-varying first: split-K with each reduction scheme both its
 * capability and job_reduction_mask allow (split 1: none), tile, swizzle,
 * custom option, stages; the cluster shape stays 0 (automatic). At most
 * AOE_GEMM_MAX_BUILT built ones and AOE_GEMM_MAX_CHECKS checks. */
size_t aoe_gemm_candidates(const aoe_gemm_algo *heur, size_t nheur, const aoe_gemm_caps *caps,
                           size_t ncaps, uint32_t job_reduction_mask, aoe_gemm_check_fn check,
                           void *ctx, aoe_gemm_algo *out, size_t max, aoe_gemm_cand_stats *st);

/* 1 when two configurations select the same kernel (workspace aside). */
int aoe_gemm_algo_same(const aoe_gemm_algo *a, const aoe_gemm_algo *b);

#endif
