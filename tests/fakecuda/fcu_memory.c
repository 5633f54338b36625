/* "Device" memory is host memory: cuMemAlloc is a 256-byte aligned malloc
 * counted against FAKECUDA_MEM_BYTES (beyond it: CUDA_ERROR_OUT_OF_MEMORY),
 * copies and sets are memcpy/memset, checked against the live allocations
 * (a range outside every one: CUDA_ERROR_INVALID_VALUE). Streams are ignored:
 * the Async forms complete before they return. */
#include "fakecuda.h"
#include "fcu_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define ALIGN 256 /* what cudaMalloc/cuMemAlloc guarantee */

typedef struct alloc {
    struct alloc *next;
    uintptr_t base;
    size_t size;
} alloc;

static alloc *allocs;
static size_t used;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int fcu_valid_range(CUdeviceptr p, size_t n)
{
    int ok = 0;
    pthread_mutex_lock(&lock);
    for (alloc *a = allocs; a && !ok; a = a->next)
        ok = p >= a->base && n <= a->size && p - a->base <= a->size - n;
    pthread_mutex_unlock(&lock);
    return ok;
}

/* cuMemGetAddressRange_v2: the live allocation holding p. */
FCU_EXPORT CUresult cuMemGetAddressRange(CUdeviceptr *base, size_t *size, CUdeviceptr p)
{
    CUresult r = fcu_need_context();
    if (r) return r;
    const alloc *hit = NULL;
    pthread_mutex_lock(&lock);
    for (const alloc *a = allocs; a && !hit; a = a->next)
        if (p >= a->base && p - a->base < a->size) hit = a;
    if (hit && base) *base = (CUdeviceptr)hit->base;
    if (hit && size) *size = hit->size;
    pthread_mutex_unlock(&lock);
    return hit ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

FCU_EXPORT size_t fakecuda_mem_used(void)
{
    pthread_mutex_lock(&lock);
    size_t v = used;
    pthread_mutex_unlock(&lock);
    return v;
}

FCU_EXPORT CUresult cuMemAlloc(CUdeviceptr *dptr, size_t bytes) /* cuMemAlloc_v2 */
{
    CUresult r = fcu_need_context();
    if (r) return r;
    if (!dptr || !bytes) return CUDA_ERROR_INVALID_VALUE;
    alloc *a = malloc(sizeof *a);
    void *p = NULL;
    pthread_mutex_lock(&lock);
    int fits = bytes <= fcu_dev()->mem_bytes - used && used <= fcu_dev()->mem_bytes;
    if (fits && a && !posix_memalign(&p, ALIGN, bytes)) {
        a->base = (uintptr_t)p, a->size = bytes, a->next = allocs;
        allocs = a;
        used += bytes;
    }
    pthread_mutex_unlock(&lock);
    if (!p) {
        free(a);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *dptr = (CUdeviceptr)(uintptr_t)p;
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuMemFree(CUdeviceptr dptr) /* cuMemFree_v2 */
{
    CUresult r = fcu_need_context();
    if (r) return r;
    if (!dptr) return CUDA_SUCCESS;
    alloc *hit = NULL;
    pthread_mutex_lock(&lock);
    for (alloc **pp = &allocs; *pp; pp = &(*pp)->next)
        if ((*pp)->base == dptr) {
            hit = *pp;
            *pp = hit->next;
            used -= hit->size;
            break;
        }
    pthread_mutex_unlock(&lock);
    if (!hit) return CUDA_ERROR_INVALID_VALUE;
    free((void *)hit->base);
    free(hit);
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuMemGetInfo(size_t *free_bytes, size_t *total) /* cuMemGetInfo_v2 */
{
    CUresult r = fcu_need_context();
    if (r) return r;
    if (!free_bytes || !total) return CUDA_ERROR_INVALID_VALUE;
    size_t u = fakecuda_mem_used();
    *total = fcu_dev()->mem_bytes;
    *free_bytes = u < *total ? *total - u : 0;
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t n) /* _v2 */
{
    CUresult r = fcu_need_context();
    if (r) return r;
    if (!n) return CUDA_SUCCESS;
    if (!src || !fcu_valid_range(dst, n)) return CUDA_ERROR_INVALID_VALUE;
    memcpy((void *)(uintptr_t)dst, src, n);
    return CUDA_SUCCESS;
}

static CUresult copy_dtoh(void *dst, CUdeviceptr src, size_t n)
{
    CUresult r = fcu_need_context();
    if (r) return r;
    if (!n) return CUDA_SUCCESS;
    if (!dst || !fcu_valid_range(src, n)) return CUDA_ERROR_INVALID_VALUE;
    memcpy(dst, (const void *)(uintptr_t)src, n);
    return CUDA_SUCCESS;
}

/* Synchronous (it waits for the legacy default stream): unsafe during a capture. */
FCU_EXPORT CUresult cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t n) /* _v2 */
{
    CUresult r = fcu_capture_unsafe_call();
    return r ? r : copy_dtoh(dst, src, n);
}

FCU_EXPORT CUresult cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t n) /* _v2 */
{
    CUresult r = fcu_need_context();
    if (r) return r;
    if (!n) return CUDA_SUCCESS;
    if (!fcu_valid_range(dst, n) || !fcu_valid_range(src, n)) return CUDA_ERROR_INVALID_VALUE;
    memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuMemsetD8(CUdeviceptr dst, unsigned char v, size_t n) /* _v2 */
{
    CUresult r = fcu_need_context();
    if (r) return r;
    if (!n) return CUDA_SUCCESS;
    if (!fcu_valid_range(dst, n)) return CUDA_ERROR_INVALID_VALUE;
    memset((void *)(uintptr_t)dst, v, n);
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuMemsetD32(CUdeviceptr dst, unsigned int v, size_t n) /* _v2 */
{
    CUresult r = fcu_need_context();
    if (r) return r;
    if (!n) return CUDA_SUCCESS;
    if (dst % 4 || n > SIZE_MAX / 4 || !fcu_valid_range(dst, 4 * n))
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < n; i++) memcpy((char *)(uintptr_t)dst + 4 * i, &v, 4);
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t n,
                                      CUstream s) /* cuMemcpyHtoDAsync_v2 */
{
    (void)s;
    return cuMemcpyHtoD(dst, src, n);
}

FCU_EXPORT CUresult cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t n,
                                      CUstream s) /* cuMemcpyDtoHAsync_v2 */
{
    (void)s;
    return copy_dtoh(dst, src, n);
}

FCU_EXPORT CUresult cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t n,
                                      CUstream s) /* cuMemcpyDtoDAsync_v2 */
{
    (void)s;
    return cuMemcpyDtoD(dst, src, n);
}

/* The asynchronous memsets are device work the host does not wait for: they
 * take FCU_MEMSET_BYTES_PER_US on the simulated clock and are queued ahead
 * of what the host issues next (fakecuda_host_us). */
FCU_EXPORT CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t n, CUstream s)
{
    (void)s;
    CUresult r = cuMemsetD8(dst, v, n);
    if (!r) fcu_clock_queue_us((double)n / FCU_MEMSET_BYTES_PER_US);
    return r;
}

FCU_EXPORT CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int v, size_t n, CUstream s)
{
    (void)s;
    CUresult r = cuMemsetD32(dst, v, n);
    if (!r) fcu_clock_queue_us(4.0 * (double)n / FCU_MEMSET_BYTES_PER_US);
    return r;
}
