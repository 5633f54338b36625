/* Algorithm ids, descriptors, their configuration and capabilities, and
 * cublasLtMatmulAlgoCheck: all answered from the catalogue. */
#include "lt_internal.h"

#include <string.h>

static int types_ok(cublasComputeType_t compute, cudaDataType_t scale, cudaDataType_t at,
                    cudaDataType_t bt, cudaDataType_t ct, cudaDataType_t dt, int *elem)
{
    int ae = fc_elem_of(at), ce = fc_elem_of(ct);
    *elem = ae;
    return (compute == CUBLAS_COMPUTE_32F || compute == CUBLAS_COMPUTE_32F_PEDANTIC ||
            compute == CUBLAS_COMPUTE_32F_FAST_16F || compute == CUBLAS_COMPUTE_32F_FAST_16BF ||
            compute == CUBLAS_COMPUTE_32F_FAST_TF32) &&
           scale == CUDA_R_32F && ae >= 0 && bt == at && ce >= 0 && dt == ct &&
           (ce == ae || ce == FC_F32);
}

cublasStatus_t cublasLtMatmulAlgoGetIds(cublasLtHandle_t h, cublasComputeType_t compute,
                                        cudaDataType_t scale, cudaDataType_t at, cudaDataType_t bt,
                                        cudaDataType_t ct, cudaDataType_t dt, int requested,
                                        int ids[], int *returned)
{
    const struct fc_catalogue *cat = fc_catalogue();
    if (!lt_handle_valid(h) || !cat) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (requested <= 0 || !ids || !returned) return CUBLAS_STATUS_INVALID_VALUE;
    int elem, n = 0;
    if (types_ok(compute, scale, at, bt, ct, dt, &elem))
        for (int i = 0; i < cat->n && n < requested; i++)
            if (cat->algos[i].types >> elem & 1u) ids[n++] = cat->algos[i].id;
    *returned = n;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulAlgoInit(cublasLtHandle_t h, cublasComputeType_t compute,
                                      cudaDataType_t scale, cudaDataType_t at, cudaDataType_t bt,
                                      cudaDataType_t ct, cudaDataType_t dt, int id,
                                      cublasLtMatmulAlgo_t *algo)
{
    const struct fc_catalogue *cat = fc_catalogue();
    if (!lt_handle_valid(h) || !cat) return CUBLAS_STATUS_NOT_INITIALIZED;
    const struct fc_algo_info *a = fc_catalogue_find(cat, id);
    if (!algo || !a) return CUBLAS_STATUS_INVALID_VALUE;
    int elem;
    if (!types_ok(compute, scale, at, bt, ct, dt, &elem) || !(a->types >> elem & 1u))
        return CUBLAS_STATUS_NOT_SUPPORTED;
    struct fc_config c = {.id = id, .split_k = 1}; /* tile and stages UNDEFINED, as the real one */
    struct fc_algo_types t = {compute, scale, at, bt, ct, dt};
    fc_algo_pack(algo, &c, &t);
    return CUBLAS_STATUS_SUCCESS;
}

static cublasStatus_t config_field(void *field, size_t fsize, int set, void *buf, size_t size,
                                   size_t *written)
{
    if (set) {
        if (!buf || size != fsize) return CUBLAS_STATUS_INVALID_VALUE;
        memcpy(field, buf, fsize);
        return CUBLAS_STATUS_SUCCESS;
    }
    if (size == 0 && written) {
        *written = fsize;
        return CUBLAS_STATUS_SUCCESS;
    }
    if (!buf || size < fsize) return CUBLAS_STATUS_INVALID_VALUE;
    memcpy(buf, field, fsize);
    if (written) *written = fsize;
    return CUBLAS_STATUS_SUCCESS;
}

static cublasStatus_t config_attr(cublasLtMatmulAlgo_t *algo,
                                  cublasLtMatmulAlgoConfigAttributes_t attr, int set, void *buf,
                                  size_t size, size_t *written)
{
    struct fc_config c;
    struct fc_algo_types t;
    if (fc_algo_unpack(algo, &c, &t) < 0) return CUBLAS_STATUS_INVALID_VALUE;
    cublasStatus_t st;
#define FIELD(f) config_field(&c.f, sizeof c.f, set, buf, size, written)
    switch (attr) {
    case CUBLASLT_ALGO_CONFIG_ID:
        if (set) return CUBLAS_STATUS_INVALID_VALUE; /* read-only: set by AlgoInit */
        st = FIELD(id);
        break;
    case CUBLASLT_ALGO_CONFIG_TILE_ID:
        st = FIELD(tile);
        break;
    case CUBLASLT_ALGO_CONFIG_SPLITK_NUM:
        st = FIELD(split_k);
        break;
    case CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME:
        st = FIELD(reduction);
        break;
    case CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING:
        st = FIELD(swizzle);
        break;
    case CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION:
        st = FIELD(custom);
        break;
    case CUBLASLT_ALGO_CONFIG_STAGES_ID:
        st = FIELD(stages);
        break;
    case CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID:
        st = FIELD(inner_shape);
        break;
    case CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID:
        st = FIELD(cluster);
        break;
    default:
        return CUBLAS_STATUS_INVALID_VALUE;
    }
#undef FIELD
    if (set && st == CUBLAS_STATUS_SUCCESS) fc_algo_pack(algo, &c, &t);
    return st;
}

cublasStatus_t cublasLtMatmulAlgoConfigSetAttribute(cublasLtMatmulAlgo_t *algo,
                                                    cublasLtMatmulAlgoConfigAttributes_t attr,
                                                    const void *buf, size_t size)
{
    return config_attr(algo, attr, 1, (void *)buf, size, NULL);
}

cublasStatus_t cublasLtMatmulAlgoConfigGetAttribute(const cublasLtMatmulAlgo_t *algo,
                                                    cublasLtMatmulAlgoConfigAttributes_t attr,
                                                    void *buf, size_t size, size_t *written)
{
    return config_attr((cublasLtMatmulAlgo_t *)algo, attr, 0, buf, size, written);
}

static cublasStatus_t cap_value(const void *v, size_t vsize, void *buf, size_t size,
                                size_t *written)
{
    if (size == 0 && written) {
        *written = vsize;
        return CUBLAS_STATUS_SUCCESS;
    }
    if ((!buf && vsize) || size < vsize) return CUBLAS_STATUS_INVALID_VALUE;
    if (vsize) memcpy(buf, v, vsize);
    if (written) *written = vsize;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulAlgoCapGetAttribute(const cublasLtMatmulAlgo_t *algo,
                                                 cublasLtMatmulAlgoCapAttributes_t attr, void *buf,
                                                 size_t size, size_t *written)
{
    struct fc_config c;
    const struct fc_algo_info *a = NULL;
    if (fc_algo_unpack(algo, &c, NULL) < 0 || !(a = fc_catalogue_find(fc_catalogue(), c.id)))
        return CUBLAS_STATUS_INVALID_VALUE;
    int32_t i32;
    uint32_t u32;
    uint64_t u64 = 0;
#define I32(v) (i32 = (int32_t)(v), cap_value(&i32, sizeof i32, buf, size, written))
#define U32(v) (u32 = (uint32_t)(v), cap_value(&u32, sizeof u32, buf, size, written))
    switch (attr) {
    case CUBLASLT_ALGO_CAP_SPLITK_SUPPORT:
        return I32(a->split_k);
    case CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK:
        return U32(a->reduction_mask);
    case CUBLASLT_ALGO_CAP_CTA_SWIZZLING_SUPPORT:
        return U32(a->swizzle);
    case CUBLASLT_ALGO_CAP_STRIDED_BATCH_SUPPORT:
    case CUBLASLT_ALGO_CAP_OUT_OF_PLACE_RESULT_SUPPORT:
        return I32(1);
    case CUBLASLT_ALGO_CAP_UPLO_SUPPORT:
    case CUBLASLT_ALGO_CAP_CUSTOM_MEMORY_ORDER:
    case CUBLASLT_ALGO_CAP_LD_NEGATIVE:
    case CUBLASLT_ALGO_CAP_POINTER_ARRAY_BATCH_SUPPORT:
    case CUBLASLT_ALGO_CAP_FLOATING_POINT_EMULATION_SUPPORT:
        return I32(0);
    case CUBLASLT_ALGO_CAP_TILE_IDS:
        return cap_value(a->tiles, sizeof a->tiles[0] * (size_t)a->n_tiles, buf, size, written);
    case CUBLASLT_ALGO_CAP_STAGES_IDS:
        return cap_value(a->stages, sizeof a->stages[0] * (size_t)a->n_stages, buf, size, written);
    case CUBLASLT_ALGO_CAP_CUSTOM_OPTION_MAX:
        return I32(a->custom_option_max);
    case CUBLASLT_ALGO_CAP_POINTER_MODE_MASK:
        return U32(CUBLASLT_POINTER_MODE_MASK_HOST | CUBLASLT_POINTER_MODE_MASK_DEVICE);
    case CUBLASLT_ALGO_CAP_EPILOGUE_MASK:
        return U32(a->epilogue_mask);
    case CUBLASLT_ALGO_CAP_NUMERICAL_IMPL_FLAGS:
        return cap_value(&u64, sizeof u64, buf, size, written);
    case CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_A_BYTES:
    case CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_B_BYTES:
    case CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_C_BYTES:
    case CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_D_BYTES:
        return U32(a->align);
    default:
        return CUBLAS_STATUS_INVALID_VALUE;
    }
#undef I32
#undef U32
}

cublasStatus_t cublasLtMatmulAlgoCheck(cublasLtHandle_t h, cublasLtMatmulDesc_t desc,
                                       cublasLtMatrixLayout_t al, cublasLtMatrixLayout_t bl,
                                       cublasLtMatrixLayout_t cl, cublasLtMatrixLayout_t dl,
                                       const cublasLtMatmulAlgo_t *algo,
                                       cublasLtMatmulHeuristicResult_t *result)
{
    if (!lt_handle_valid(h)) return CUBLAS_STATUS_NOT_INITIALIZED;
    struct lt_problem pr;
    struct fc_config c;
    struct fc_algo_types t;
    cublasStatus_t st = lt_problem_resolve(desc, al, bl, cl, dl, &pr);
    if (st != CUBLAS_STATUS_SUCCESS) return st;
    if (!result || fc_algo_unpack(algo, &c, &t) < 0 || memcmp(&t, &pr.types, sizeof t) != 0)
        return CUBLAS_STATUS_INVALID_VALUE; /* descriptors do not match the algorithm's types */
    const struct fc_algo_info *a = fc_catalogue_find(fc_catalogue(), c.id);
    if (!a || !lt_algo_fits(a, &pr)) return CUBLAS_STATUS_NOT_SUPPORTED;
    st = fc_config_valid(a, &c);
    if (st != CUBLAS_STATUS_SUCCESS) return st;
    cublasLtMatmulAlgo_t copy = *algo; /* algo may point to result->algo */
    memset(result, 0, sizeof *result);
    result->algo = copy;
    result->workspaceSize = fc_workspace_need(a, &c, &pr.p);
    result->state = CUBLAS_STATUS_SUCCESS;
    result->wavesCount = 1.0f;
    return CUBLAS_STATUS_SUCCESS;
}
