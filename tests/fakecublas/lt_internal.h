/* The fake cuBLASLt's descriptors, stored inside the header's opaque structs
 * (so cublasLt*Init_internal on caller memory and cublasLt*Create agree). */
#ifndef LT_INTERNAL_H
#define LT_INTERNAL_H

#include "fc_algo.h"
#include "fc_gemm.h"

#include <cublasLt.h>

#define LT_MAGIC_LAYOUT 0x4c41594fu
#define LT_MAGIC_DESC 0x44455343u
#define LT_MAGIC_PREF 0x50524546u

struct lt_layout {
    uint32_t magic;
    int32_t type, order, batch;
    uint64_t rows, cols;
    int64_t ld, stride;
};

struct lt_desc {
    uint32_t magic;
    int32_t compute, scale, pointer_mode, transa, transb, transc, bias_type;
    uint32_t epilogue;
    const void *bias;
    int64_t bias_stride;
    const void *a_scale;   /* stored, not used */
    int32_t scale_mode[4]; /* A, B, C, D: cublasLtMatmulMatrixScale_t (0: a scalar); not used */
};

struct lt_pref {
    uint32_t magic;
    uint32_t search_mode, reduction_mask;
    uint32_t align[4]; /* A, B, C, D in bytes */
    uint64_t max_workspace;
};

_Static_assert(sizeof(struct lt_layout) <= sizeof(cublasLtMatrixLayoutOpaque_t), "layout fits");
_Static_assert(sizeof(struct lt_desc) <= sizeof(cublasLtMatmulDescOpaque_t), "desc fits");
_Static_assert(sizeof(struct lt_pref) <= sizeof(cublasLtMatmulPreferenceOpaque_t), "pref fits");

static inline struct lt_layout *lt_layout_of(cublasLtMatrixLayout_t l)
{
    struct lt_layout *p = (struct lt_layout *)l;
    return p && p->magic == LT_MAGIC_LAYOUT ? p : NULL;
}
static inline struct lt_desc *lt_desc_of(cublasLtMatmulDesc_t d)
{
    struct lt_desc *p = (struct lt_desc *)d;
    return p && p->magic == LT_MAGIC_DESC ? p : NULL;
}
static inline struct lt_pref *lt_pref_of(cublasLtMatmulPreference_t d)
{
    struct lt_pref *p = (struct lt_pref *)d;
    return p && p->magic == LT_MAGIC_PREF ? p : NULL;
}

int lt_handle_valid(cublasLtHandle_t h);

/* A matmul problem resolved from its descriptors (pointers not yet set). */
struct lt_problem {
    struct fc_gemm g;
    struct fc_problem p;
    struct fc_algo_types types;
    int a_elem; /* fc_elem of A and B */
};

/* CUBLAS_STATUS_SUCCESS, or why the descriptors describe no problem the fake computes. */
cublasStatus_t lt_problem_resolve(cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t a,
                                  cublasLtMatrixLayout_t b, cublasLtMatrixLayout_t c,
                                  cublasLtMatrixLayout_t d, struct lt_problem *out);
/* Whether algorithm a can run problem pr at all (types, epilogue). */
int lt_algo_fits(const struct fc_algo_info *a, const struct lt_problem *pr);

/* The heuristic's candidates for pr, fastest first by the cost model: the
 * default configuration of every algorithm the heuristic offers that fits the
 * problem, the alignments align[4] (bytes, A..D) and max_workspace. */
struct lt_candidate {
    struct fc_config config;
    const struct fc_algo_info *info;
    double cost_us;
    uint64_t workspace;
};
int lt_heuristic_rank(const struct lt_problem *pr, const uint32_t align[4], uint64_t max_workspace,
                      struct lt_candidate out[FC_MAX_ALGOS]);
#endif
