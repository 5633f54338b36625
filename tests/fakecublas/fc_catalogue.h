/* The fake's catalogue of algorithms: what each id supports (the values
 * cublasLtMatmulAlgoCapGetAttribute reports and cublasLtMatmulAlgoCheck
 * enforces), what it needs (workspace, pointer alignment), how fast it is (a
 * deterministic cost model) and whether it is planted (computes a wrong
 * result on purpose). Loaded once from the JSON file FAKECUBLAS_CATALOGUE,
 * else the built-in default (format: README.md beside this file). */
#ifndef FC_CATALOGUE_H
#define FC_CATALOGUE_H

#include <stddef.h>
#include <stdint.h>

#define FC_MAX_ALGOS 32
#define FC_MAX_LIST 16

enum fc_class { FC_CLASS_SKINNY, FC_CLASS_SMALL, FC_CLASS_LARGE, FC_CLASS_COUNT };
enum fc_planted { FC_PLANT_NONE, FC_PLANT_OFF, FC_PLANT_NAN, FC_PLANT_OOB, FC_PLANT_NONDET };

/* Element types an algorithm accepts for A/B (bit per fc_elem). */
enum fc_elem { FC_F32, FC_F16, FC_BF16, FC_ELEM_COUNT };

struct fc_algo_info {
    int id;
    unsigned types; /* bit (1u << fc_elem) per A/B type */
    uint32_t tiles[FC_MAX_LIST];
    float tile_speed[FC_MAX_LIST];
    int n_tiles; /* 0: tiles cannot be enumerated; any tile id is accepted */
    uint32_t stages[FC_MAX_LIST];
    int n_stages; /* 0: any stages id is accepted */
    uint16_t clusters[FC_MAX_LIST];
    int n_clusters;          /* 0: only cluster shape 0 (auto) */
    int split_k;             /* split-K supported */
    uint32_t reduction_mask; /* CUBLASLT_REDUCTION_SCHEME_* bits accepted with split-K > 1 */
    uint32_t swizzle;        /* 1: CTA swizzling 0 and 1, 0: only 0 */
    int32_t custom_option_max;
    uint32_t epilogue_mask;   /* CUBLASLT_EPILOGUE_* bits supported */
    uint64_t workspace_base;  /* bytes needed by every configuration */
    uint64_t workspace_split; /* bytes per output element per split when split-K > 1 */
    uint32_t align;           /* required alignment of A, B, C, D in bytes */
    float speed[FC_CLASS_COUNT];
    float split_k_gain, swizzle_gain, custom_gain;
    int heuristic; /* offered by cublasLtMatmulAlgoGetHeuristic */
    enum fc_planted planted;
    float planted_amount;
};

struct fc_catalogue {
    struct fc_algo_info algos[FC_MAX_ALGOS];
    int n;
    int cublas_default; /* algorithm id cublasGemmEx & co compute with */
};

/* The configuration an algorithm descriptor carries (cublasLtMatmulAlgo_t). */
struct fc_config {
    int32_t id;
    uint32_t tile, stages;
    int32_t split_k;
    uint32_t reduction, swizzle, custom;
    uint16_t inner_shape, cluster;
};

/* The problem the cost model and workspace formula see. */
struct fc_problem {
    int64_t m, n, k, batch;
};

/* The catalogue in use (loaded on first call; NULL when FAKECUBLAS_CATALOGUE
 * names a file that cannot be read or parsed: every call then fails). */
const struct fc_catalogue *fc_catalogue(void);
const struct fc_algo_info *fc_catalogue_find(const struct fc_catalogue *cat, int id);
/* Parses a catalogue from JSON text: 0, or -1 with the reason in why. */
int fc_catalogue_parse(const char *json, struct fc_catalogue *out, char *why, size_t why_size);
void fc_catalogue_default(struct fc_catalogue *out);

/* The default configuration of an algorithm (first tile, stages and cluster). */
struct fc_config fc_config_default(const struct fc_algo_info *a);
enum fc_class fc_problem_class(const struct fc_problem *p);
/* Simulated run time in microseconds (deterministic). */
double fc_cost_us(const struct fc_algo_info *a, const struct fc_config *c,
                  const struct fc_problem *p);
uint64_t fc_workspace_need(const struct fc_algo_info *a, const struct fc_config *c,
                           const struct fc_problem *p);

#endif
