/* From descriptors to a problem: shapes, types and epilogue checked as the
 * real library does for what the fake models (column order, f32 compute with
 * f32 scale, A and B of one type, C and D of that type or f32). */
#include "lt_internal.h"

#include <string.h>

static int compute_ok(int c)
{
    return c == CUBLAS_COMPUTE_32F || c == CUBLAS_COMPUTE_32F_PEDANTIC ||
           c == CUBLAS_COMPUTE_32F_FAST_16F || c == CUBLAS_COMPUTE_32F_FAST_16BF ||
           c == CUBLAS_COMPUTE_32F_FAST_TF32;
}

static int epilogue_ok(uint32_t e)
{
    return e == CUBLASLT_EPILOGUE_DEFAULT || e == CUBLASLT_EPILOGUE_RELU ||
           e == CUBLASLT_EPILOGUE_BIAS || e == CUBLASLT_EPILOGUE_RELU_BIAS ||
           e == CUBLASLT_EPILOGUE_GELU || e == CUBLASLT_EPILOGUE_GELU_BIAS;
}

cublasStatus_t lt_problem_resolve(cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t al,
                                  cublasLtMatrixLayout_t bl, cublasLtMatrixLayout_t cl,
                                  cublasLtMatrixLayout_t dl, struct lt_problem *out)
{
    const struct lt_desc *op = lt_desc_of(desc);
    const struct lt_layout *a = lt_layout_of(al), *b = lt_layout_of(bl), *c = lt_layout_of(cl),
                           *d = lt_layout_of(dl);
    if (!op || !a || !b || !c || !d) return CUBLAS_STATUS_INVALID_VALUE;
    memset(out, 0, sizeof *out);
    int ae = fc_elem_of(a->type), ce = fc_elem_of(c->type);
    if (!compute_ok(op->compute) || op->scale != CUDA_R_32F || ae < 0 || b->type != a->type ||
        ce < 0 || d->type != c->type || (ce != ae && ce != FC_F32) || !epilogue_ok(op->epilogue))
        return CUBLAS_STATUS_NOT_SUPPORTED;
    if (a->order != CUBLASLT_ORDER_COL || b->order != CUBLASLT_ORDER_COL ||
        c->order != CUBLASLT_ORDER_COL || d->order != CUBLASLT_ORDER_COL)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    if ((op->transa != CUBLAS_OP_N && op->transa != CUBLAS_OP_T && op->transa != CUBLAS_OP_C) ||
        (op->transb != CUBLAS_OP_N && op->transb != CUBLAS_OP_T && op->transb != CUBLAS_OP_C))
        return CUBLAS_STATUS_INVALID_VALUE;
    int ta = op->transa != CUBLAS_OP_N, tb = op->transb != CUBLAS_OP_N;
    uint64_t m = d->rows, n = d->cols, k = ta ? a->rows : a->cols;
    if (m == 0 || n == 0 || k == 0 || (ta ? a->cols : a->rows) != m ||
        (tb ? b->cols : b->rows) != k || (tb ? b->rows : b->cols) != n || c->rows != m ||
        c->cols != n)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (a->ld < (int64_t)a->rows || b->ld < (int64_t)b->rows || c->ld < (int64_t)m ||
        d->ld < (int64_t)m || d->batch < 1 || a->batch != d->batch || b->batch != d->batch ||
        c->batch != d->batch)
        return CUBLAS_STATUS_INVALID_VALUE;
    struct fc_gemm *g = &out->g;
    g->transa = ta, g->transb = tb;
    g->m = (int64_t)m, g->n = (int64_t)n, g->k = (int64_t)k, g->batch = d->batch;
    g->a = (struct fc_matrix){NULL, (enum fc_elem)ae, a->ld, a->stride};
    g->b = (struct fc_matrix){NULL, (enum fc_elem)ae, b->ld, b->stride};
    g->c = (struct fc_matrix){NULL, (enum fc_elem)ce, c->ld, c->stride};
    g->d = (struct fc_matrix){NULL, (enum fc_elem)ce, d->ld, d->stride};
    g->epilogue = op->epilogue;
    g->bias = op->bias;
    int be = op->bias_type < 0 ? ce : fc_elem_of(op->bias_type);
    if (be < 0) return CUBLAS_STATUS_NOT_SUPPORTED;
    g->bias_type = (enum fc_elem)be;
    g->bias_stride = op->bias_stride;
    out->p = (struct fc_problem){g->m, g->n, g->k, g->batch};
    out->types = (struct fc_algo_types){op->compute, op->scale, a->type, b->type, c->type, d->type};
    out->a_elem = ae;
    return CUBLAS_STATUS_SUCCESS;
}

int lt_algo_fits(const struct fc_algo_info *a, const struct lt_problem *pr)
{
    uint32_t wanted = pr->g.epilogue & ~(uint32_t)CUBLASLT_EPILOGUE_DEFAULT;
    return (a->types >> pr->a_elem & 1u) && (wanted & ~a->epilogue_mask) == 0;
}
