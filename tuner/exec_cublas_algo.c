/* The GEMM executor's cuBLASLt side: the job's descriptors, the heuristic,
 * algorithms rebuilt from configurations and checked, and the candidates
 * built from each algorithm's capabilities (exec_gemm_candidates.h). */
#include "tuner/exec_cublas_internal.h"

#include <string.h>

aoe_exec_status aoe_cublas_set_desc(aoe_exec *ex, cublasLtMatmulDescAttributes_t a, const void *v,
                                    size_t n, char *detail, size_t len)
{
    LT_CHECK(ex, cublasLtMatmulDescSetAttribute, (ex->op, a, v, n), AOE_EXEC_UNSUPPORTED);
    return AOE_EXEC_OK;
}

/* Matmul descriptor, layouts and preference as the program made them. */
aoe_exec_status aoe_cublas_describe(aoe_exec *ex, char *detail, size_t len)
{
    const aoe_gemm_desc *d = &ex->d;
    aoe_exec_status st;
    LT_CHECK(ex, cublasLtMatmulDescCreate,
             (&ex->op, (cublasComputeType_t)d->compute_type, (cudaDataType_t)d->scale_type),
             AOE_EXEC_UNSUPPORTED);
    int32_t ta = d->transa, tb = d->transb, pm = d->pointer_mode;
    uint32_t epi = d->epilogue;
    if ((st = aoe_cublas_set_desc(ex, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta, detail, len)) ||
        (st = aoe_cublas_set_desc(ex, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb, detail, len)) ||
        (st = aoe_cublas_set_desc(ex, CUBLASLT_MATMUL_DESC_POINTER_MODE, &pm, sizeof pm, detail,
                                  len)) ||
        (st =
             aoe_cublas_set_desc(ex, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi, detail, len)))
        return st;
    if (d->bias_type >= 0) {
        int32_t bt = d->bias_type;
        if ((st = aoe_cublas_set_desc(ex, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bt, sizeof bt,
                                      detail, len)))
            return st;
    }
    if (d->flags & AOE_GEMM_FLAG_FAST_ACCUM) {
        int8_t on = 1;
        if ((st = aoe_cublas_set_desc(ex, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &on, sizeof on, detail,
                                      len)))
            return st;
    }
    if (d->sm_count_target) {
        int32_t sm = (int32_t)d->sm_count_target;
        if ((st = aoe_cublas_set_desc(ex, CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET, &sm, sizeof sm,
                                      detail, len)))
            return st;
    }
    const int32_t types[4] = {d->a_type, d->b_type, d->c_type, d->d_type};
    const uint64_t rows[4] = {d->transa ? d->k : d->m, d->transb ? d->n : d->k, d->m, d->m};
    const uint64_t cols[4] = {d->transa ? d->m : d->k, d->transb ? d->k : d->n, d->n, d->n};
    const uint64_t lds[4] = {d->lda, d->ldb, d->ldc, d->ldd};
    const uint64_t strides[4] = {d->stride_a, d->stride_b, d->stride_c, d->stride_d};
    for (int i = 0; i < 4; i++) {
        LT_CHECK(ex, cublasLtMatrixLayoutCreate,
                 (&ex->lay[i], (cudaDataType_t)types[i], rows[i], cols[i], (int64_t)lds[i]),
                 AOE_EXEC_UNSUPPORTED);
        if (d->batch_count > 1) {
            int32_t bc = (int32_t)d->batch_count;
            int64_t stride = (int64_t)strides[i];
            LT_CHECK(ex, cublasLtMatrixLayoutSetAttribute,
                     (ex->lay[i], CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &bc, sizeof bc),
                     AOE_EXEC_UNSUPPORTED);
            LT_CHECK(
                ex, cublasLtMatrixLayoutSetAttribute,
                (ex->lay[i], CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride),
                AOE_EXEC_UNSUPPORTED);
        }
    }
    LT_CHECK(ex, cublasLtMatmulPreferenceCreate, (&ex->pref), AOE_EXEC_UNSUPPORTED);
    uint64_t ws = d->workspace_limit;
    uint32_t mask = d->reduction_mask;
    const uint32_t align[4] = {d->align_a, d->align_b, d->align_c, d->align_d};
    LT_CHECK(ex, cublasLtMatmulPreferenceSetAttribute,
             (ex->pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws),
             AOE_EXEC_UNSUPPORTED);
    LT_CHECK(ex, cublasLtMatmulPreferenceSetAttribute,
             (ex->pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &mask, sizeof mask),
             AOE_EXEC_UNSUPPORTED);
    const cublasLtMatmulPreferenceAttributes_t pa[4] = {
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
    for (int i = 0; i < 4; i++)
        LT_CHECK(ex, cublasLtMatmulPreferenceSetAttribute,
                 (ex->pref, pa[i], &align[i], sizeof align[i]), AOE_EXEC_UNSUPPORTED);
    return AOE_EXEC_OK;
}

/* The configuration an algorithm holds, as the bank stores it. */
static aoe_exec_status read_config(aoe_exec *ex, const cublasLtMatmulAlgo_t *algo, aoe_gemm_algo *a,
                                   char *detail, size_t len)
{
    aoe_gemm_algo_init(a);
    size_t w;
#define GET(attr, field)                                                                           \
    LT_CHECK(ex, cublasLtMatmulAlgoConfigGetAttribute,                                             \
             (algo, attr, &a->field, sizeof a->field, &w), AOE_EXEC_RUNTIME_ERROR)
    GET(CUBLASLT_ALGO_CONFIG_ID, algo);
    GET(CUBLASLT_ALGO_CONFIG_TILE_ID, tile);
    GET(CUBLASLT_ALGO_CONFIG_STAGES_ID, stages);
    GET(CUBLASLT_ALGO_CONFIG_SPLITK_NUM, splitk);
    GET(CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, reduction);
    GET(CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, swizzle);
    GET(CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, custom);
    GET(CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, inner_shape);
    GET(CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, cluster_shape);
#undef GET
    if (a->splitk < 1) a->splitk = 1;
    return AOE_EXEC_OK;
}

/* cublasLtMatmulAlgoInit + every configuration attribute + AlgoCheck against
 * the job's workspace limit: REFUSED (reason in detail) when the library or
 * the limit rejects it; a->workspace set to what it needs. */
aoe_exec_status aoe_cublas_build_algo(aoe_exec *ex, aoe_gemm_algo *a, cublasLtMatmulAlgo_t *algo,
                                      char *detail, size_t len)
{
    const aoe_gemm_desc *d = &ex->d;
    LT_CHECK(ex, cublasLtMatmulAlgoInit,
             (ex->lt, (cublasComputeType_t)d->compute_type, (cudaDataType_t)d->scale_type,
              (cudaDataType_t)d->a_type, (cudaDataType_t)d->b_type, (cudaDataType_t)d->c_type,
              (cudaDataType_t)d->d_type, a->algo, algo),
             AOE_EXEC_REFUSED);
#define SET(attr, field)                                                                           \
    LT_CHECK(ex, cublasLtMatmulAlgoConfigSetAttribute, (algo, attr, &a->field, sizeof a->field),   \
             AOE_EXEC_REFUSED)
    SET(CUBLASLT_ALGO_CONFIG_TILE_ID, tile);
    SET(CUBLASLT_ALGO_CONFIG_STAGES_ID, stages);
    SET(CUBLASLT_ALGO_CONFIG_SPLITK_NUM, splitk);
    SET(CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, reduction);
    SET(CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, swizzle);
    SET(CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, custom);
    SET(CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, inner_shape);
    SET(CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, cluster_shape);
#undef SET
    cublasLtMatmulHeuristicResult_t res;
    memset(&res, 0, sizeof res);
    LT_CHECK(ex, cublasLtMatmulAlgoCheck,
             (ex->lt, ex->op, ex->lay[0], ex->lay[1], ex->lay[2], ex->lay[3], algo, &res),
             AOE_EXEC_REFUSED);
    if (res.workspaceSize > d->workspace_limit) {
        snprintf(detail, len, "needs %zu bytes of workspace, the caller has %llu",
                 res.workspaceSize, (unsigned long long)d->workspace_limit);
        return AOE_EXEC_REFUSED;
    }
    a->workspace = (uint32_t)res.workspaceSize;
    return AOE_EXEC_OK;
}

/* The heuristic's answers for the job's preference: its first is the default. */
aoe_exec_status aoe_cublas_heuristic(aoe_exec *ex, char *detail, size_t len)
{
    cublasLtMatmulHeuristicResult_t res[AOE_GEMM_MAX_HEURISTIC];
    int n = 0;
    memset(res, 0, sizeof res);
    cublasStatus_t s = ex->api.cublasLtMatmulAlgoGetHeuristic(
        ex->lt, ex->op, ex->lay[0], ex->lay[1], ex->lay[2], ex->lay[3], ex->pref,
        AOE_GEMM_MAX_HEURISTIC, res, &n);
    if (s != CUBLAS_STATUS_SUCCESS || n <= 0) {
        snprintf(detail, len,
                 "cublasLtMatmulAlgoGetHeuristic: %s: the library has no algorithm for this GEMM "
                 "under the job's preference (workspace %llu bytes, alignments %u/%u/%u/%u)",
                 s ? aoe_cublas_status_name(&ex->api, s) : "no result",
                 (unsigned long long)ex->d.workspace_limit, ex->d.align_a, ex->d.align_b,
                 ex->d.align_c, ex->d.align_d);
        return AOE_EXEC_UNSUPPORTED;
    }
    for (int i = 0; i < n && i < AOE_GEMM_MAX_HEURISTIC; i++) {
        if (res[i].state != CUBLAS_STATUS_SUCCESS) continue;
        aoe_exec_status st = read_config(ex, &res[i].algo, &ex->heur_cfg[ex->nheur], detail, len);
        if (st) return st;
        ex->heur_cfg[ex->nheur].workspace = (uint32_t)res[i].workspaceSize;
        ex->heur[ex->nheur++] = res[i].algo;
    }
    if (!ex->nheur) {
        snprintf(detail, len, "cublasLtMatmulAlgoGetHeuristic: no usable answer");
        return AOE_EXEC_UNSUPPORTED;
    }
    return AOE_EXEC_OK;
}

static aoe_exec_status read_caps(aoe_exec *ex, int id, aoe_gemm_caps *c, char *detail, size_t len)
{
    const aoe_gemm_desc *d = &ex->d;
    cublasLtMatmulAlgo_t algo;
    size_t w = 0;
    memset(c, 0, sizeof *c);
    c->id = id;
    LT_CHECK(ex, cublasLtMatmulAlgoInit,
             (ex->lt, (cublasComputeType_t)d->compute_type, (cudaDataType_t)d->scale_type,
              (cudaDataType_t)d->a_type, (cudaDataType_t)d->b_type, (cudaDataType_t)d->c_type,
              (cudaDataType_t)d->d_type, id, &algo),
             AOE_EXEC_REFUSED);
    /* The lists: their size first, then at most AOE_GEMM_CAP_LIST entries. */
    uint32_t list[256];
    const cublasLtMatmulAlgoCapAttributes_t la[2] = {CUBLASLT_ALGO_CAP_TILE_IDS,
                                                     CUBLASLT_ALGO_CAP_STAGES_IDS};
    for (int k = 0; k < 2; k++) {
        LT_CHECK(ex, cublasLtMatmulAlgoCapGetAttribute, (&algo, la[k], NULL, 0, &w),
                 AOE_EXEC_REFUSED);
        if (w > sizeof list) w = sizeof list;
        if (w)
            LT_CHECK(ex, cublasLtMatmulAlgoCapGetAttribute, (&algo, la[k], list, w, &w),
                     AOE_EXEC_REFUSED);
        uint32_t n = (uint32_t)(w / sizeof *list), kept = 0;
        uint32_t *dst = k ? c->stages : c->tiles;
        for (uint32_t i = 0; i < n && kept < AOE_GEMM_CAP_LIST; i++)
            if (list[i]) dst[kept++] = list[i]; /* 0: "undefined", the automatic choice */
        *(k ? &c->nstages : &c->ntiles) = kept;
    }
    int32_t splitk = 0, custom = 0;
    uint32_t mask = 0, swz = 0;
    LT_CHECK(ex, cublasLtMatmulAlgoCapGetAttribute,
             (&algo, CUBLASLT_ALGO_CAP_SPLITK_SUPPORT, &splitk, sizeof splitk, &w),
             AOE_EXEC_REFUSED);
    LT_CHECK(ex, cublasLtMatmulAlgoCapGetAttribute,
             (&algo, CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK, &mask, sizeof mask, &w),
             AOE_EXEC_REFUSED);
    LT_CHECK(ex, cublasLtMatmulAlgoCapGetAttribute,
             (&algo, CUBLASLT_ALGO_CAP_CTA_SWIZZLING_SUPPORT, &swz, sizeof swz, &w),
             AOE_EXEC_REFUSED);
    LT_CHECK(ex, cublasLtMatmulAlgoCapGetAttribute,
             (&algo, CUBLASLT_ALGO_CAP_CUSTOM_OPTION_MAX, &custom, sizeof custom, &w),
             AOE_EXEC_REFUSED);
    c->splitk = splitk != 0;
    c->reduction_mask = mask;
    c->swizzle = swz != 0;
    c->custom_max = custom > 0 ? (uint32_t)custom : 0;
    return AOE_EXEC_OK;
}

static int check_cb(void *ctx, aoe_gemm_algo *a)
{
    aoe_exec *ex = ctx;
    cublasLtMatmulAlgo_t algo;
    char why[256];
    return aoe_cublas_build_algo(ex, a, &algo, why, sizeof why) ? -1 : 0;
}

aoe_exec_status aoe_cublas_candidates(aoe_exec *ex, aoe_policy *out, size_t max, size_t *n,
                                      char *space, size_t spacelen, char *detail, size_t len)
{
    const aoe_gemm_desc *d = &ex->d;
    int ids[AOE_GEMM_MAX_IDS], nids = 0;
    static aoe_gemm_caps caps[AOE_GEMM_MAX_IDS];
    aoe_gemm_algo list[AOE_GEMM_MAX_CANDIDATES];
    size_t ncaps = 0;
    *n = 0;
    LT_CHECK(ex, cublasLtMatmulAlgoGetIds,
             (ex->lt, (cublasComputeType_t)d->compute_type, (cudaDataType_t)d->scale_type,
              (cudaDataType_t)d->a_type, (cudaDataType_t)d->b_type, (cudaDataType_t)d->c_type,
              (cudaDataType_t)d->d_type, AOE_GEMM_MAX_IDS, ids, &nids),
             AOE_EXEC_RUNTIME_ERROR);
    for (int i = 0; i < nids && i < AOE_GEMM_MAX_IDS; i++) {
        char why[256];
        if (!read_caps(ex, ids[i], &caps[ncaps], why, sizeof why)) ncaps++;
    }
    aoe_gemm_cand_stats st;
    size_t first = ex->blas_path ? 1 : 0; /* cuBLAS' own call goes first */
    if (max <= first) {
        snprintf(detail, len, "no room for candidates");
        return AOE_EXEC_NOTHING_TO_TUNE;
    }
    max -= first;
    if (max > AOE_GEMM_MAX_CANDIDATES) max = AOE_GEMM_MAX_CANDIDATES;
    size_t m = aoe_gemm_candidates(ex->heur_cfg, (size_t)ex->nheur, caps, ncaps, d->reduction_mask,
                                   check_cb, ex, list, max, &st);
    ex->have_cur = 0; /* check_cb built algorithms in scratch memory only */
    if (!first && (!m || !aoe_gemm_algo_same(&list[0], &ex->heur_cfg[0]))) {
        snprintf(detail, len,
                 "cublasLtMatmulAlgoCheck refuses the heuristic's "
                 "own first choice");
        return AOE_EXEC_NOTHING_TO_TUNE;
    }
    if (first) aoe_gemm_library_default_policy(&out[(*n)++]);
    for (size_t i = 0; i < m; i++)
        if (aoe_gemm_algo_to_policy(&list[i], &out[(*n)], detail, len) == 0) (*n)++;
    char lt[64] = "";
    if (first)
        snprintf(lt, sizeof lt, "cuBLAS %u's own call + cuBLASLt %zu", d->library_version,
                 ex->api.cublasLtGetVersion());
    else
        snprintf(lt, sizeof lt, "cuBLASLt %u", d->library_version);
    char lead[128];
    aoe_cublas_lead_describe(ex, lead, sizeof lead);
    snprintf(space, spacelen,
             "%s: %zu heuristic + %zu built from %zu algorithm ids (%zu refused by "
             "AlgoCheck or the workspace limit); %s",
             lt, st.heuristic, st.built, ncaps, st.refused, lead);
    return AOE_EXEC_OK;
}
