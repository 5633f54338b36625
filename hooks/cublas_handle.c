/* cuBLAS handle state the rerouted calls carry over (stream, math mode,
 * pointer mode, workspace, SM-count target: cublasSet* wrappers), the device
 * fingerprint of each cuBLAS and cuBLASLt handle, and the cuBLASLt handle a
 * cuBLAS handle's rerouted calls run on. Lock-free reads (launch/ptr_table);
 * records of destroyed handles are retired (a read section may hold one). */
#include "hooks/cublas_internal.h"

#include "core/log.h"
#include "preload/reclaim.h"

#include <stdlib.h>

static aoe_ptr_slot g_blas_slots[4096], g_lt_slots[4096];
static aoe_ptr_table g_blas = AOE_PTR_TABLE_INIT(g_blas_slots);
static aoe_ptr_table g_lt = AOE_PTR_TABLE_INIT(g_lt_slots);
static atomic_int g_said_full;
static pthread_mutex_t g_create_lock = PTHREAD_MUTEX_INITIALIZER;

static void table_full(void)
{
    aoe_shim_log_once(&g_said_full, AOE_LOG_WARN,
                      "more than 4096 live cuBLAS handles: calls on the others pass through");
}

/* A record with the handle's current settings, from the real getters (a
 * handle created before the shim saw it, or at creation). */
static aoe_cb_handle *record_new(cublasHandle_t h)
{
    aoe_cb_handle *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    cudaStream_t s = NULL;
    cublasMath_t math = CUBLAS_DEFAULT_MATH;
    cublasPointerMode_t pm = CUBLAS_POINTER_MODE_HOST;
    int sm = 0;
    if (CB_REAL(cublasGetStream_v2)) CB_REAL(cublasGetStream_v2)(h, &s);
    if (CB_REAL(cublasGetMathMode)) CB_REAL(cublasGetMathMode)(h, &math);
    if (CB_REAL(cublasGetPointerMode_v2)) CB_REAL(cublasGetPointerMode_v2)(h, &pm);
    if (CB_REAL(cublasGetSmCountTarget)) CB_REAL(cublasGetSmCountTarget)(h, &sm);
    atomic_init(&r->stream, s);
    atomic_init(&r->math, (int)math);
    atomic_init(&r->pmode, (int)pm);
    atomic_init(&r->sm_target, sm);
    r->fingerprint = aoe_cb_current_fingerprint();
    return r;
}

aoe_cb_handle *aoe_cb_handle_of(cublasHandle_t h)
{
    aoe_cb_handle *r = aoe_ptr_find(&g_blas, h);
    if (__builtin_expect(r != NULL, 1)) return r;
    if (!h || !(r = record_new(h))) return NULL;
    pthread_mutex_lock(&g_create_lock); /* one record per handle, also when two threads race */
    aoe_cb_handle *cur = aoe_ptr_find(&g_blas, h);
    if (!cur && aoe_ptr_insert(&g_blas, h, r) == 0) cur = r, r = NULL;
    pthread_mutex_unlock(&g_create_lock);
    if (!cur) table_full();
    free(r);
    return cur;
}

cublasLtHandle_t aoe_cb_handle_lt(aoe_cb_handle *r)
{
    cublasLtHandle_t lt = atomic_load_explicit(&r->lt, memory_order_acquire);
    if (lt) return lt;
    if (!CB_REAL(cublasLtCreate) || CB_REAL(cublasLtCreate)(&lt) != CUBLAS_STATUS_SUCCESS)
        return NULL;
    cublasLtHandle_t none = NULL;
    if (!atomic_compare_exchange_strong(&r->lt, &none, lt)) {
        CB_REAL(cublasLtDestroy)(lt); /* another thread's is used */
        return none;
    }
    return lt;
}

const char *aoe_cb_lt_fingerprint(cublasLtHandle_t lt)
{
    const char *fp = aoe_ptr_find(&g_lt, lt);
    if (__builtin_expect(fp != NULL, 1)) return fp;
    if (!lt || !(fp = aoe_cb_current_fingerprint())) return NULL;
    if (aoe_ptr_insert(&g_lt, lt, (void *)fp)) table_full();
    return fp;
}

/* ---- wrappers (their exported entries: AOE_CB_ENTRIES) ---- */

cublasStatus_t aoe_cbw_cublasCreate_v2(cublasHandle_t *handle)
{
    if (!CB_REAL(cublasCreate_v2)) return CUBLAS_STATUS_NOT_INITIALIZED;
    cublasStatus_t st = CB_REAL(cublasCreate_v2)(handle);
    if (st != CUBLAS_STATUS_SUCCESS || !handle || !aoe_cb_on(AOE_CB_PATH_BLAS)) return st;
    /* A handle at an address a destroyed one had: a fresh record. */
    aoe_cb_handle *old = aoe_ptr_remove(&g_blas, *handle);
    if (old) aoe_retire(old);
    aoe_cb_handle_of(*handle);
    return st;
}
AOE_CB_ENTRIES("libcublas", cublasCreate_v2, (cublasHandle_t * handle), (handle))

cublasStatus_t aoe_cbw_cublasDestroy_v2(cublasHandle_t handle)
{
    aoe_cb_handle *r = handle ? aoe_ptr_remove(&g_blas, handle) : NULL;
    if (r) {
        cublasLtHandle_t lt = atomic_load(&r->lt);
        if (lt && CB_REAL(cublasLtDestroy)) CB_REAL(cublasLtDestroy)(lt);
        aoe_retire(r);
    }
    return CB_REAL(cublasDestroy_v2) ? CB_REAL(cublasDestroy_v2)(handle)
                                     : CUBLAS_STATUS_NOT_INITIALIZED;
}
AOE_CB_ENTRIES("libcublas", cublasDestroy_v2, (cublasHandle_t handle), (handle))

cublasStatus_t aoe_cbw_cublasLtDestroy(cublasLtHandle_t lt)
{
    if (lt) aoe_ptr_remove(&g_lt, lt); /* the value is an interned string */
    return CB_REAL(cublasLtDestroy) ? CB_REAL(cublasLtDestroy)(lt) : CUBLAS_STATUS_NOT_INITIALIZED;
}
AOE_CB_ENTRIES("libcublasLt", cublasLtDestroy, (cublasLtHandle_t lt), (lt))

/* The setters: the real call first; on success the record follows (only
 * for handles already tracked: an untracked one is read from the getters at
 * its first GEMM). */
#define SETTER(fn, type, field, conv)                                                              \
    cublasStatus_t aoe_cbw_##fn(cublasHandle_t h, type v)                                          \
    {                                                                                              \
        if (!CB_REAL(fn)) return CUBLAS_STATUS_NOT_INITIALIZED;                                    \
        cublasStatus_t st = CB_REAL(fn)(h, v);                                                     \
        if (st != CUBLAS_STATUS_SUCCESS) return st;                                                \
        aoe_cb_handle *r = aoe_ptr_find(&g_blas, h);                                               \
        if (r) atomic_store_explicit(&r->field, conv(v), memory_order_relaxed);                    \
        return st;                                                                                 \
    }                                                                                              \
    AOE_CB_ENTRIES("libcublas", fn, (cublasHandle_t h, type v), (h, v))
#define AS_INT(v) ((int)(v))
SETTER(cublasSetMathMode, cublasMath_t, math, AS_INT)
SETTER(cublasSetPointerMode_v2, cublasPointerMode_t, pmode, AS_INT)
SETTER(cublasSetSmCountTarget, int, sm_target, AS_INT)

/* cuBLAS documents that setting the stream also puts the handle back on its
 * own workspace pool: the program's buffer is no longer the handle's, and a
 * rerouted call must not use it (the program may free it, or hand it to
 * another stream's handle). */
cublasStatus_t aoe_cbw_cublasSetStream_v2(cublasHandle_t h, cudaStream_t v)
{
    if (!CB_REAL(cublasSetStream_v2)) return CUBLAS_STATUS_NOT_INITIALIZED;
    cublasStatus_t st = CB_REAL(cublasSetStream_v2)(h, v);
    if (st != CUBLAS_STATUS_SUCCESS) return st;
    aoe_cb_handle *r = aoe_ptr_find(&g_blas, h);
    if (r) {
        atomic_store_explicit(&r->stream, v, memory_order_relaxed);
        atomic_store_explicit(&r->ws_known, 0, memory_order_release);
    }
    return st;
}
AOE_CB_ENTRIES("libcublas", cublasSetStream_v2, (cublasHandle_t h, cudaStream_t v), (h, v))

cublasStatus_t aoe_cbw_cublasSetWorkspace_v2(cublasHandle_t h, void *ws, size_t size)
{
    if (!CB_REAL(cublasSetWorkspace_v2)) return CUBLAS_STATUS_NOT_INITIALIZED;
    cublasStatus_t st = CB_REAL(cublasSetWorkspace_v2)(h, ws, size);
    if (st != CUBLAS_STATUS_SUCCESS || !aoe_cb_on(AOE_CB_PATH_BLAS)) return st;
    aoe_cb_handle *r = aoe_cb_handle_of(h);
    if (r) {
        atomic_store_explicit(&r->ws, ws, memory_order_relaxed);
        atomic_store_explicit(&r->ws_size, size, memory_order_relaxed);
        atomic_store_explicit(&r->ws_known, 1, memory_order_release);
    }
    return st;
}
AOE_CB_ENTRIES("libcublas", cublasSetWorkspace_v2, (cublasHandle_t h, void *ws, size_t size),
               (h, ws, size))

void aoe_cb_handles_atfork_child(void)
{
    aoe_ptr_table_atfork_child(&g_blas);
    aoe_ptr_table_atfork_child(&g_lt);
    pthread_mutex_init(&g_create_lock, NULL);
}
