/* What the GEMM executor's files share (tuner/exec_cublas*.c): the open
 * job's state and the checked-call macros. */
#ifndef AOE_EXEC_CUBLAS_INTERNAL_H
#define AOE_EXEC_CUBLAS_INTERNAL_H

#include "jobs/gemm.h"
#include "store/gemm_algo.h"
#include "tuner/exec.h"
#include "tuner/exec_cublas_api.h"
#include "tuner/exec_gemm_candidates.h"

#include <stdio.h>

#define NOPS 5                    /* A, B, C, D, bias */
#define ROTATE_MAX 8              /* copies of A and B cycled through timed runs */
#define ROTATE_BYTES (1ull << 30) /* ... taking at most this much */

typedef struct {
    CUdeviceptr alloc, data, init; /* allocation, data inside it, the contents reset restores */
    uint64_t alloc_size, size, front;
    int live;
} dbuf;

struct aoe_exec {
    aoe_cublas_api api;
    aoe_gemm_desc d;
    const aoe_job *job;
    aoe_cuda_device dev; /* the job's device, its primary context retained */
    cublasLtHandle_t lt;
    int blas_path;       /* a cuBLAS-path job: the default is cuBLAS' own call */
    cublasHandle_t blas; /* ... on this handle (workspace, stream, pointer mode set) */
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t lay[4]; /* A, B, C, D */
    cublasLtMatmulPreference_t pref;
    dbuf buf[NOPS];
    CUdeviceptr rot[2][ROTATE_MAX];       /* copies of A and B (index 0: the buffer itself) */
    CUdeviceptr rot_alloc[2][ROTATE_MAX]; /* their allocations (index 0 unused) */
    unsigned ncopies, next;
    CUdeviceptr workspace, scalars;
    CUevent ev[2];
    CUdeviceptr lead; /* the scratch the lead writes (exec_cublas_lead.c) */
    uint64_t lead_bytes;
    int lead_ops; /* memsets before a timed run (sized at open), -1 none */
    double alpha, beta;
    cublasLtMatmulAlgo_t heur[AOE_GEMM_MAX_HEURISTIC]; /* none (nheur 0) for a cuBLAS-path job
                                                          cuBLASLt has no algorithm for */
    aoe_gemm_algo heur_cfg[AOE_GEMM_MAX_HEURISTIC];
    int nheur;
    cublasLtMatmulAlgo_t cur; /* the algorithm of cur_cfg (the last policy run) */
    aoe_gemm_algo cur_cfg;
    int have_cur;
};

/* Checked calls: on failure one line "cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY"
 * (the name as exported) into detail, and the status st (out of memory as such). */
#define CU_CHECK(ex, fn, args, st)                                                                 \
    do {                                                                                           \
        CUresult r_ = (ex)->api.cu.fn args;                                                        \
        if (r_ != CUDA_SUCCESS) {                                                                  \
            snprintf(detail, len, "%s: %s", AOE_CU_NAME(fn),                                       \
                     aoe_cuda_error_name(&(ex)->api.cu, r_));                                      \
            return r_ == CUDA_ERROR_OUT_OF_MEMORY ? AOE_EXEC_OUT_OF_MEMORY : (st);                 \
        }                                                                                          \
    } while (0)
#define LT_CHECK(ex, fn, args, st)                                                                 \
    do {                                                                                           \
        cublasStatus_t s_ = (ex)->api.fn args;                                                     \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                         \
            snprintf(detail, len, "%s: %s", #fn, aoe_cublas_status_name(&(ex)->api, s_));          \
            return s_ == CUBLAS_STATUS_ALLOC_FAILED ? AOE_EXEC_OUT_OF_MEMORY : (st);               \
        }                                                                                          \
    } while (0)

/* The matmul descriptor, layouts and preference as the program made them. */
aoe_exec_status aoe_cublas_describe(aoe_exec *ex, char *detail, size_t len);
/* Sets one matmul descriptor attribute. */
aoe_exec_status aoe_cublas_set_desc(aoe_exec *ex, cublasLtMatmulDescAttributes_t a, const void *v,
                                    size_t n, char *detail, size_t len);
/* The heuristic's answers for the job's preference into ex->heur (its first
 * is the default of a cuBLASLt-path job); UNSUPPORTED when it has none. */
aoe_exec_status aoe_cublas_heuristic(aoe_exec *ex, char *detail, size_t len);
/* cublasLtMatmulAlgoInit + every configuration attribute + AlgoCheck within
 * the job's workspace limit: REFUSED (reason in detail) when the library or
 * the limit rejects it; a->workspace set to what it needs. */
aoe_exec_status aoe_cublas_build_algo(aoe_exec *ex, aoe_gemm_algo *a, cublasLtMatmulAlgo_t *algo,
                                      char *detail, size_t len);
/* Before a timed run: device work queued so that the host's cost of issuing
 * the call stays out of its events (exec_cublas_lead.c). Sized once, when the
 * job is opened: the scratch and the memsets' size and count from a timed
 * memset; without memory for the scratch, or a memset the events cannot
 * time, no lead (lead_ops -1) and the runs are timed as before, host cost
 * included. */
aoe_exec_status aoe_cublas_lead_size(aoe_exec *ex, char *detail, size_t len);
aoe_exec_status aoe_cublas_lead(aoe_exec *ex, char *detail, size_t len);
/* One clause for people: what the timed runs are behind. */
void aoe_cublas_lead_describe(const aoe_exec *ex, char *out, size_t len);
/* The executor's candidates primitive (exec.h): for a cuBLAS-path job the
 * library-default form (cuBLAS' own call) first, then the cuBLASLt ones. */
aoe_exec_status aoe_cublas_candidates(aoe_exec *ex, aoe_policy *out, size_t max, size_t *n,
                                      char *space, size_t spacelen, char *detail, size_t len);

#endif
