/* The fake cuBLAS handle: what PyTorch sets around every GEMM (workspace,
 * math mode, stream, pointer mode), recorded and otherwise ignored. */
#ifndef CUBLAS_INTERNAL_H
#define CUBLAS_INTERNAL_H

#include <cublas_api.h>

struct cublasContext {
    uint32_t magic;
    const void *owner; /* &fc_owner_tag of the library copy that made it */
    void *workspace;
    size_t workspace_size;
    cublasMath_t math_mode;
    cublasPointerMode_t pointer_mode;
    cudaStream_t stream;
};
#define CUBLAS_MAGIC_HANDLE 0x43424c48u

/* One per loaded copy of the library (not exported): a handle another copy
 * made (another cuBLAS major's, loaded beside this one) is refused, where
 * the real library would misread it. */
extern const char fc_owner_tag;

static inline int cublas_handle_valid(cublasHandle_t h)
{
    return h && h->magic == CUBLAS_MAGIC_HANDLE && h->owner == &fc_owner_tag;
}

#endif
