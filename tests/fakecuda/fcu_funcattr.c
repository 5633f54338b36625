/* cuFuncGetAttribute of the fake driver: a fake kernel's limits as a plain
 * sm_90 build would report them (1024 threads per block, no static shared
 * memory, 32 registers); other attributes CUDA_ERROR_INVALID_VALUE. */
#include "fcu_module.h"

FCU_EXPORT CUresult cuFuncGetAttribute(int *v, CUfunction_attribute a, CUfunction hf)
{
    CUresult r = fcu_need_context();
    if (r) return r;
    struct CUfunc_st *f = fcu_function(hf);
    if (!f) return CUDA_ERROR_INVALID_HANDLE;
    if (!v) return CUDA_ERROR_INVALID_VALUE;
    switch (a) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
        *v = 1024;
        return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES:
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
        *v = 0;
        return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_NUM_REGS:
        *v = 32;
        return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION:
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
        *v = 90;
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}
