/* Matrix layouts, matmul descriptors and heuristic preferences: create,
 * init in caller memory, destroy, set and get attributes. Attributes the
 * fake does not model are accepted (up to 8 bytes) and ignored. */
#include "lt_internal.h"

#include <stdlib.h>
#include <string.h>

static cublasStatus_t put(void *field, size_t fsize, const void *buf, size_t size)
{
    if (!buf || size != fsize) return CUBLAS_STATUS_INVALID_VALUE;
    memcpy(field, buf, fsize);
    return CUBLAS_STATUS_SUCCESS;
}

static cublasStatus_t take(const void *field, size_t fsize, void *buf, size_t size, size_t *written)
{
    if (size == 0 && written) {
        *written = fsize;
        return CUBLAS_STATUS_SUCCESS;
    }
    if (!buf || size < fsize) return CUBLAS_STATUS_INVALID_VALUE;
    memcpy(buf, field, fsize);
    if (written) *written = fsize;
    return CUBLAS_STATUS_SUCCESS;
}

static cublasStatus_t ignored(int set, void *buf, size_t size, size_t *written)
{
    static const uint64_t zero = 0;
    if (set) return buf && size <= 8 ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
    return take(&zero, size && size < 8 ? size : 8, buf, size, written);
}

/* ---- matrix layouts ---- */

cublasStatus_t cublasLtMatrixLayoutInit_internal(cublasLtMatrixLayout_t l, size_t size,
                                                 cudaDataType type, uint64_t rows, uint64_t cols,
                                                 int64_t ld)
{
    if (!l || size < sizeof(struct lt_layout)) return CUBLAS_STATUS_ALLOC_FAILED;
    struct lt_layout *p = (struct lt_layout *)l;
    memset(p, 0, sizeof *p);
    p->magic = LT_MAGIC_LAYOUT;
    p->type = type, p->rows = rows, p->cols = cols, p->ld = ld, p->batch = 1;
    p->order = CUBLASLT_ORDER_COL;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *l, cudaDataType type,
                                          uint64_t rows, uint64_t cols, int64_t ld)
{
    if (!l) return CUBLAS_STATUS_INVALID_VALUE;
    cublasLtMatrixLayout_t p = malloc(sizeof *p);
    if (!p) return CUBLAS_STATUS_ALLOC_FAILED;
    cublasLtMatrixLayoutInit_internal(p, sizeof *p, type, rows, cols, ld);
    *l = p;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t l)
{
    if (l) memset(l, 0, sizeof *l);
    free(l);
    return CUBLAS_STATUS_SUCCESS;
}

static cublasStatus_t layout_attr(cublasLtMatrixLayout_t l, cublasLtMatrixLayoutAttribute_t attr,
                                  int set, void *buf, size_t size, size_t *written)
{
    struct lt_layout *p = lt_layout_of(l);
    if (!p) return CUBLAS_STATUS_INVALID_VALUE;
#define FIELD(f)                                                                                   \
    (set ? put(&p->f, sizeof p->f, buf, size) : take(&p->f, sizeof p->f, buf, size, written))
    switch (attr) {
    case CUBLASLT_MATRIX_LAYOUT_TYPE:
        return FIELD(type);
    case CUBLASLT_MATRIX_LAYOUT_ORDER:
        return FIELD(order);
    case CUBLASLT_MATRIX_LAYOUT_ROWS:
        return FIELD(rows);
    case CUBLASLT_MATRIX_LAYOUT_COLS:
        return FIELD(cols);
    case CUBLASLT_MATRIX_LAYOUT_LD:
        return FIELD(ld);
    case CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT:
        return FIELD(batch);
    case CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET:
        return FIELD(stride);
    default:
        return ignored(set, buf, size, written);
    }
#undef FIELD
}

cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t l,
                                                cublasLtMatrixLayoutAttribute_t attr,
                                                const void *buf, size_t size)
{
    return layout_attr(l, attr, 1, (void *)buf, size, NULL);
}

cublasStatus_t cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t l,
                                                cublasLtMatrixLayoutAttribute_t attr, void *buf,
                                                size_t size, size_t *written)
{
    return layout_attr(l, attr, 0, buf, size, written);
}

/* ---- matmul descriptors ---- */

cublasStatus_t cublasLtMatmulDescInit_internal(cublasLtMatmulDesc_t d, size_t size,
                                               cublasComputeType_t compute, cudaDataType_t scale)
{
    if (!d || size < sizeof(struct lt_desc)) return CUBLAS_STATUS_ALLOC_FAILED;
    struct lt_desc *p = (struct lt_desc *)d;
    memset(p, 0, sizeof *p);
    p->magic = LT_MAGIC_DESC;
    p->compute = compute, p->scale = scale, p->bias_type = -1;
    p->transa = p->transb = p->transc = CUBLAS_OP_N;
    p->epilogue = CUBLASLT_EPILOGUE_DEFAULT;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *d, cublasComputeType_t compute,
                                        cudaDataType_t scale)
{
    if (!d) return CUBLAS_STATUS_INVALID_VALUE;
    cublasLtMatmulDesc_t p = malloc(sizeof *p);
    if (!p) return CUBLAS_STATUS_ALLOC_FAILED;
    cublasLtMatmulDescInit_internal(p, sizeof *p, compute, scale);
    *d = p;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t d)
{
    if (d) memset(d, 0, sizeof *d);
    free(d);
    return CUBLAS_STATUS_SUCCESS;
}

static cublasStatus_t desc_attr(cublasLtMatmulDesc_t d, cublasLtMatmulDescAttributes_t attr,
                                int set, void *buf, size_t size, size_t *written)
{
    struct lt_desc *p = lt_desc_of(d);
    if (!p) return CUBLAS_STATUS_INVALID_VALUE;
#define FIELD(f)                                                                                   \
    (set ? put(&p->f, sizeof p->f, buf, size) : take(&p->f, sizeof p->f, buf, size, written))
    switch (attr) {
    case CUBLASLT_MATMUL_DESC_COMPUTE_TYPE:
        return FIELD(compute);
    case CUBLASLT_MATMUL_DESC_SCALE_TYPE:
        return FIELD(scale);
    case CUBLASLT_MATMUL_DESC_POINTER_MODE:
        return FIELD(pointer_mode);
    case CUBLASLT_MATMUL_DESC_TRANSA:
        return FIELD(transa);
    case CUBLASLT_MATMUL_DESC_TRANSB:
        return FIELD(transb);
    case CUBLASLT_MATMUL_DESC_TRANSC:
        return FIELD(transc);
    case CUBLASLT_MATMUL_DESC_EPILOGUE:
        return FIELD(epilogue);
    case CUBLASLT_MATMUL_DESC_BIAS_POINTER:
        return FIELD(bias);
    case CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE:
        return FIELD(bias_stride);
    case CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE:
        return FIELD(bias_type);
    case CUBLASLT_MATMUL_DESC_A_SCALE_POINTER:
        return FIELD(a_scale);
#if CUBLAS_VER_MAJOR > 12 || (CUBLAS_VER_MAJOR == 12 && CUBLAS_VER_MINOR >= 8)
    case CUBLASLT_MATMUL_DESC_A_SCALE_MODE:
        return FIELD(scale_mode[0]);
    case CUBLASLT_MATMUL_DESC_B_SCALE_MODE:
        return FIELD(scale_mode[1]);
    case CUBLASLT_MATMUL_DESC_C_SCALE_MODE:
        return FIELD(scale_mode[2]);
    case CUBLASLT_MATMUL_DESC_D_SCALE_MODE:
        return FIELD(scale_mode[3]);
#endif
    default:
        return ignored(set, buf, size, written);
    }
#undef FIELD
}

cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t d,
                                              cublasLtMatmulDescAttributes_t attr, const void *buf,
                                              size_t size)
{
    return desc_attr(d, attr, 1, (void *)buf, size, NULL);
}

cublasStatus_t cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t d,
                                              cublasLtMatmulDescAttributes_t attr, void *buf,
                                              size_t size, size_t *written)
{
    return desc_attr(d, attr, 0, buf, size, written);
}

/* ---- heuristic preferences ---- */

cublasStatus_t cublasLtMatmulPreferenceInit_internal(cublasLtMatmulPreference_t pref, size_t size)
{
    if (!pref || size < sizeof(struct lt_pref)) return CUBLAS_STATUS_ALLOC_FAILED;
    struct lt_pref *p = (struct lt_pref *)pref;
    memset(p, 0, sizeof *p);
    p->magic = LT_MAGIC_PREF;
    p->reduction_mask = CUBLASLT_REDUCTION_SCHEME_MASK;
    for (int i = 0; i < 4; i++) p->align[i] = 256;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *pref)
{
    if (!pref) return CUBLAS_STATUS_INVALID_VALUE;
    cublasLtMatmulPreference_t p = malloc(sizeof *p);
    if (!p) return CUBLAS_STATUS_ALLOC_FAILED;
    cublasLtMatmulPreferenceInit_internal(p, sizeof *p);
    *pref = p;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref)
{
    if (pref) memset(pref, 0, sizeof *pref);
    free(pref);
    return CUBLAS_STATUS_SUCCESS;
}

static cublasStatus_t pref_attr(cublasLtMatmulPreference_t pref,
                                cublasLtMatmulPreferenceAttributes_t attr, int set, void *buf,
                                size_t size, size_t *written)
{
    struct lt_pref *p = lt_pref_of(pref);
    if (!p) return CUBLAS_STATUS_INVALID_VALUE;
#define FIELD(f)                                                                                   \
    (set ? put(&p->f, sizeof p->f, buf, size) : take(&p->f, sizeof p->f, buf, size, written))
    switch (attr) {
    case CUBLASLT_MATMUL_PREF_SEARCH_MODE:
        return FIELD(search_mode);
    case CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES:
        return FIELD(max_workspace);
    case CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK:
        return FIELD(reduction_mask);
    case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES:
        return FIELD(align[0]);
    case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES:
        return FIELD(align[1]);
    case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES:
        return FIELD(align[2]);
    case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES:
        return FIELD(align[3]);
    default:
        return ignored(set, buf, size, written);
    }
#undef FIELD
}

cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref,
                                                    cublasLtMatmulPreferenceAttributes_t attr,
                                                    const void *buf, size_t size)
{
    return pref_attr(pref, attr, 1, (void *)buf, size, NULL);
}

cublasStatus_t cublasLtMatmulPreferenceGetAttribute(cublasLtMatmulPreference_t pref,
                                                    cublasLtMatmulPreferenceAttributes_t attr,
                                                    void *buf, size_t size, size_t *written)
{
    return pref_attr(pref, attr, 0, buf, size, written);
}
