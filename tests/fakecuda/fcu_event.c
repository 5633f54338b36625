/* Streams (tags: everything is synchronous) and events. An event records
 * the SIMULATED clock: the fake driver's own (fakecuda_clock_advance_us)
 * plus the time the fake cuBLASLt and cuBLAS have "spent" so far
 * (fakecublasLt_total_time_us, fakecublas_total_time_us from
 * tests/fakecublas, found in the process whether the libraries were loaded
 * globally or with RTLD_LOCAL). cuEventElapsedTime gives the difference in
 * milliseconds, so a tuner timing a GEMM with events measures the fake's cost
 * model without knowing it runs on a fake. */
#include "fakecuda.h"
#include "fcu_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

struct CUevent_st {
    unsigned flags;
    int recorded;
    double us;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static double own_us;
static double queued_us; /* device work issued asynchronously the host has not waited for */

FCU_EXPORT void fakecuda_clock_advance_us(double us)
{
    if (!(us > 0)) return;
    pthread_mutex_lock(&lock);
    own_us += us;
    pthread_mutex_unlock(&lock);
}

void fcu_clock_queue_us(double us)
{
    if (!(us > 0)) return;
    pthread_mutex_lock(&lock);
    own_us += us;
    queued_us += us;
    pthread_mutex_unlock(&lock);
}

FCU_EXPORT void fakecuda_host_us(double us)
{
    if (!(us > 0)) return;
    pthread_mutex_lock(&lock);
    double hidden = us < queued_us ? us : queued_us;
    queued_us -= hidden;
    own_us += us - hidden;
    pthread_mutex_unlock(&lock);
}

void fcu_clock_drain(void)
{
    pthread_mutex_lock(&lock);
    queued_us = 0;
    pthread_mutex_unlock(&lock);
}

typedef double (*clock_fn)(void);

/* A fake cuBLAS clock: global lookup first, then the loaded library itself. */
static clock_fn find_clock(const char *sym, const char *const *sonames)
{
    clock_fn f = (clock_fn)dlsym(RTLD_DEFAULT, sym);
    for (int i = 0; !f && sonames[i]; i++) {
        void *h = dlopen(sonames[i], RTLD_NOW | RTLD_NOLOAD);
        if (!h) continue;
        f = (clock_fn)dlsym(h, sym);
        dlclose(h); /* NOLOAD took a reference; the library stays loaded */
    }
    return f;
}

double fcu_clock_now_us(void)
{
    static const char *const lt[] = {"libcublasLt.so.13", "libcublasLt.so.12", NULL};
    static const char *const blas[] = {"libcublas.so.13", "libcublas.so.12", NULL};
    clock_fn a = find_clock("fakecublasLt_total_time_us", lt);
    clock_fn b = find_clock("fakecublas_total_time_us", blas);
    pthread_mutex_lock(&lock);
    double t = own_us;
    pthread_mutex_unlock(&lock);
    return t + (a ? a() : 0) + (b ? b() : 0);
}

FCU_EXPORT double fakecuda_clock_us(void)
{
    return fcu_clock_now_us();
}

FCU_EXPORT CUresult cuStreamCreate(CUstream *s, unsigned int flags)
{
    CUresult r = fcu_need_context();
    if (r) return r;
    if (!s) return CUDA_ERROR_INVALID_VALUE;
    if (!(*s = calloc(1, sizeof **s))) return CUDA_ERROR_OUT_OF_MEMORY;
    (*s)->flags = flags;
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuStreamDestroy(CUstream s) /* cuStreamDestroy_v2 */
{
    CUresult r = fcu_need_context();
    if (r) return r;
    if (!s) return CUDA_ERROR_INVALID_HANDLE;
    free(s);
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuStreamSynchronize(CUstream s)
{
    (void)s;
    CUresult r = fcu_need_context();
    if (!r) fcu_clock_drain();
    return r;
}

FCU_EXPORT CUresult cuEventCreate(CUevent *e, unsigned int flags)
{
    CUresult r = fcu_need_context();
    if (r) return r;
    if (!e) return CUDA_ERROR_INVALID_VALUE;
    if (!(*e = calloc(1, sizeof **e))) return CUDA_ERROR_OUT_OF_MEMORY;
    (*e)->flags = flags;
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuEventDestroy(CUevent e) /* cuEventDestroy_v2 */
{
    CUresult r = fcu_need_context();
    if (r) return r;
    if (!e) return CUDA_ERROR_INVALID_HANDLE;
    free(e);
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuEventRecord(CUevent e, CUstream s)
{
    (void)s;
    CUresult r = fcu_need_context();
    if (r) return r;
    if (!e) return CUDA_ERROR_INVALID_HANDLE;
    e->us = fcu_clock_now_us();
    e->recorded = 1;
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuEventSynchronize(CUevent e)
{
    CUresult r = fcu_need_context();
    if (r) return r;
    if (!e) return CUDA_ERROR_INVALID_HANDLE;
    fcu_clock_drain();
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuEventQuery(CUevent e)
{
    return cuEventSynchronize(e);
}

/* Both events recorded, else CUDA_ERROR_INVALID_HANDLE (as the driver for
 * an event never recorded); events made with CU_EVENT_DISABLE_TIMING too. */
FCU_EXPORT CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end) /* _v2 */
{
    CUresult r = fcu_need_context();
    if (r) return r;
    if (!ms || !start || !end) return CUDA_ERROR_INVALID_HANDLE;
    if (!start->recorded || !end->recorded || (start->flags | end->flags) & CU_EVENT_DISABLE_TIMING)
        return CUDA_ERROR_INVALID_HANDLE;
    *ms = (float)((end->us - start->us) / 1000.0);
    return CUDA_SUCCESS;
}
