/* cublasLtMatmul: checks the algorithm against the problem, the workspace
 * and the real pointers' alignment, computes on the CPU (fc_gemm.h), plants
 * the algorithm's error and records the cost model's time (fc_clock.h). */
#include "fc_clock.h"
#include "lt_internal.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static atomic_int g_last_id = -1, g_last_split;

/* Not in the real library: the algorithm id and split-K of the last
 * cublasLtMatmul computed (-1: none yet), so a client sees which algorithm
 * ran (e.g. a cuBLAS call a shim rerouted through cuBLASLt). */
int fakecublasLt_last_algo_id(void)
{
    return atomic_load(&g_last_id);
}
int fakecublasLt_last_split_k(void)
{
    return atomic_load(&g_last_split);
}

static uint32_t alignment_of(const void *p)
{
    uintptr_t v = (uintptr_t)p;
    uint32_t a = 1;
    while (a < 256 && !(v & a)) a <<= 1;
    return a; /* the largest power of two up to 256 dividing p */
}

cublasStatus_t cublasLtMatmul(cublasLtHandle_t h, cublasLtMatmulDesc_t desc, const void *alpha,
                              const void *A, cublasLtMatrixLayout_t al, const void *B,
                              cublasLtMatrixLayout_t bl, const void *beta, const void *C,
                              cublasLtMatrixLayout_t cl, void *D, cublasLtMatrixLayout_t dl,
                              const cublasLtMatmulAlgo_t *algo, void *workspace,
                              size_t workspace_size, cudaStream_t stream)
{
    (void)workspace, (void)stream; /* the fake computes synchronously on the host */
    if (!lt_handle_valid(h)) return CUBLAS_STATUS_NOT_INITIALIZED;
    struct lt_problem pr;
    cublasStatus_t st = lt_problem_resolve(desc, al, bl, cl, dl, &pr);
    if (st != CUBLAS_STATUS_SUCCESS) return st;
    int mode = lt_desc_of(desc)->pointer_mode;
    if (mode != CUBLASLT_POINTER_MODE_HOST && mode != CUBLASLT_POINTER_MODE_DEVICE)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    if (!alpha || !beta || !A || !B || !D || (!C && *(const float *)beta != 0.0f) ||
        (pr.g.epilogue & CUBLASLT_EPILOGUE_BIAS && !pr.g.bias))
        return CUBLAS_STATUS_INVALID_VALUE;
    uint32_t align[4] = {alignment_of(A), alignment_of(B), alignment_of(C ? C : D),
                         alignment_of(D)};
    struct lt_candidate chosen;
    if (algo) {
        struct fc_algo_types t;
        if (fc_algo_unpack(algo, &chosen.config, &t) < 0 || memcmp(&t, &pr.types, sizeof t) != 0)
            return CUBLAS_STATUS_INVALID_VALUE;
        chosen.info = fc_catalogue_find(fc_catalogue(), chosen.config.id);
        if (!chosen.info || !lt_algo_fits(chosen.info, &pr)) return CUBLAS_STATUS_NOT_SUPPORTED;
        if ((st = fc_config_valid(chosen.info, &chosen.config)) != CUBLAS_STATUS_SUCCESS) return st;
        for (int i = 0; i < 4; i++)
            if (align[i] < chosen.info->align) return CUBLAS_STATUS_NOT_SUPPORTED;
        chosen.workspace = fc_workspace_need(chosen.info, &chosen.config, &pr.p);
        chosen.cost_us = fc_cost_us(chosen.info, &chosen.config, &pr.p);
    } else { /* no algorithm: the heuristic's first for these pointers and this workspace */
        struct lt_candidate ranked[FC_MAX_ALGOS];
        if (lt_heuristic_rank(&pr, align, workspace_size, ranked) == 0)
            return CUBLAS_STATUS_NOT_SUPPORTED;
        chosen = ranked[0];
    }
    if (chosen.workspace > workspace_size) return CUBLAS_STATUS_INVALID_VALUE;
    /* A planted failure at run time (what AlgoCheck cannot foresee): a test
     * sees how a caller copes (FAKECUBLAS_FAIL_TILE=20: every run of tile 20 fails). */
    const char *fail_tile = getenv("FAKECUBLAS_FAIL_TILE");
    if (fail_tile && *fail_tile && chosen.config.tile == (uint32_t)atoi(fail_tile))
        return CUBLAS_STATUS_EXECUTION_FAILED;
    if ((double)pr.p.m * (double)pr.p.n * (double)pr.p.k * (double)pr.p.batch > (double)FC_MAX_MACS)
        return CUBLAS_STATUS_NOT_SUPPORTED; /* too large for the CPU reference */
    pr.g.alpha = *(const float *)alpha;
    pr.g.beta = *(const float *)beta;
    pr.g.a.ptr = A, pr.g.b.ptr = B, pr.g.c.ptr = C, pr.g.d.ptr = D;
    fc_gemm_run(&pr.g, chosen.info);
    fc_clock_add(chosen.cost_us);
    atomic_store(&g_last_id, chosen.config.id);
    atomic_store(&g_last_split, chosen.config.split_k);
    return CUBLAS_STATUS_SUCCESS;
}
