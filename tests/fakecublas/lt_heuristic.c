/* cublasLtMatmulAlgoGetHeuristic: the catalogue ranked by the cost model. */
#include "lt_internal.h"

#include <string.h>

int lt_heuristic_rank(const struct lt_problem *pr, const uint32_t align[4], uint64_t max_workspace,
                      struct lt_candidate out[FC_MAX_ALGOS])
{
    const struct fc_catalogue *cat = fc_catalogue();
    int n = 0;
    for (int i = 0; cat && i < cat->n; i++) {
        const struct fc_algo_info *a = &cat->algos[i];
        int aligned = 1;
        for (int j = 0; j < 4; j++) aligned &= align[j] >= a->align;
        if (!a->heuristic || !aligned || !lt_algo_fits(a, pr)) continue;
        struct lt_candidate c = {fc_config_default(a), a, 0, 0};
        c.cost_us = fc_cost_us(a, &c.config, &pr->p);
        c.workspace = fc_workspace_need(a, &c.config, &pr->p);
        if (c.workspace > max_workspace) continue;
        int at = n++; /* insertion sort, stable: ties keep catalogue order */
        while (at > 0 && out[at - 1].cost_us > c.cost_us) {
            out[at] = out[at - 1];
            at--;
        }
        out[at] = c;
    }
    return n;
}

cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t h, cublasLtMatmulDesc_t desc,
                                              cublasLtMatrixLayout_t al, cublasLtMatrixLayout_t bl,
                                              cublasLtMatrixLayout_t cl, cublasLtMatrixLayout_t dl,
                                              cublasLtMatmulPreference_t preference, int requested,
                                              cublasLtMatmulHeuristicResult_t results[],
                                              int *returned)
{
    if (!lt_handle_valid(h)) return CUBLAS_STATUS_NOT_INITIALIZED;
    const struct lt_pref *pref = lt_pref_of(preference);
    if (requested <= 0 || !results || !returned || !pref) return CUBLAS_STATUS_INVALID_VALUE;
    *returned = 0;
    struct lt_problem pr;
    cublasStatus_t st = lt_problem_resolve(desc, al, bl, cl, dl, &pr);
    if (st != CUBLAS_STATUS_SUCCESS) return st;
    struct lt_candidate ranked[FC_MAX_ALGOS];
    int n = lt_heuristic_rank(&pr, pref->align, pref->max_workspace, ranked);
    for (int i = 0; i < n && i < requested; i++) {
        memset(&results[i], 0, sizeof results[i]);
        fc_algo_pack(&results[i].algo, &ranked[i].config, &pr.types);
        results[i].workspaceSize = ranked[i].workspace;
        results[i].state = CUBLAS_STATUS_SUCCESS;
        results[i].wavesCount = 1.0f;
        (*returned)++;
    }
    return *returned ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_SUPPORTED;
}
