/* The CPU reference both fakes compute with: D = alpha*op(A)op(B) + beta*C,
 * then the epilogue (bias, ReLU, GELU), for f32/f16/bf16 elements with f32
 * accumulation, column-major like cuBLAS; then the algorithm's planted error. */
#ifndef FC_GEMM_H
#define FC_GEMM_H

#include "fc_catalogue.h"

#include <stdint.h>

/* The largest problem the fake computes, in multiply-adds (m*n*k*batch):
 * beyond it cublasLtMatmul and cublasGemmEx answer CUBLAS_STATUS_NOT_SUPPORTED. */
#define FC_MAX_MACS (1ll << 26)

struct fc_matrix {
    const void *ptr;
    enum fc_elem type;
    int64_t ld, stride; /* elements */
};

struct fc_gemm {
    int transa, transb; /* 0: N, 1: T (C is the same for real types) */
    int64_t m, n, k, batch;
    float alpha, beta;
    struct fc_matrix a, b, c, d; /* d.ptr is written */
    uint32_t epilogue;           /* CUBLASLT_EPILOGUE_* (1: none) */
    const void *bias;            /* m elements of bias_type per batch */
    enum fc_elem bias_type;
    int64_t bias_stride;
};

/* Maps a cudaDataType value to an element type; -1 when the fake has none. */
int fc_elem_of(int cuda_type);
int fc_elem_size(enum fc_elem t);
float fc_load(const void *p, enum fc_elem t, int64_t i);
void fc_store(void *p, enum fc_elem t, int64_t i, float v);

/* Computes g, then plants the error of algorithm a (may be NULL). */
void fc_gemm_run(const struct fc_gemm *g, const struct fc_algo_info *a);

#endif
