/* What only the driver can tell the launch core about a tuned CUDA
 * function's launch (launch/desc.h callbacks), at an operator's first sight:
 * a pointer argument's allocation (cuMemGetAddressRange) and contents (the
 * stream synchronised once, then copied back on it up to AOE_CAPTURE_LIMIT_MB,
 * in relaxed stream-capture mode),
 * element types and read-only flags from the kernel's signature, the
 * device's block limits. Never on the launch path. */
#include "hooks/cuda_tune.h"

#include "core/log.h"

#include <stdlib.h>

#define REAL(id, type) ((type)aoe_cu_real(AOE_CUF_##id))

typedef CUresult (*range_fn)(CUdeviceptr *, size_t *, CUdeviceptr);
typedef CUresult (*sync_fn)(CUstream);
typedef CUresult (*dtoh_fn)(void *, CUdeviceptr, size_t, CUstream);
typedef CUresult (*ctx_device_fn)(CUdevice *);
typedef CUresult (*attr_fn)(int *, CUdevice_attribute, CUdevice);

static void buffer(const aoe_launch_desc *d, uint32_t i, aoe_job_arg *ja, uint64_t limit)
{
    aoe_cu_capture_ctx *c = d->rt_ctx;
    const aoe_cu_tuned *L = c->L;
    CUdeviceptr p = *(const CUdeviceptr *)c->params[i], base = 0;
    size_t size = 0;
    range_fn range = REAL(MEM_RANGE, range_fn);
    ja->flags = L->sig[i].pointee_const ? 1 : 0; /* read-only: the executor's job_read_only */
    if (!range || range(&base, &size, p) != CUDA_SUCCESS || p < base || p - base >= size) {
        AOE_DEBUG("capture of %s: argument %u (%#llx) lies in no allocation the driver knows",
                  d->kernel_name, i, (unsigned long long)p);
        return; /* size 0: the job cannot be written */
    }
    ja->size = (uint64_t)(base + size - p);
    if (ja->size > limit) return; /* synthetic contents */
    sync_fn sync = REAL(STREAM_SYNC, sync_fn);
    dtoh_fn dtoh = REAL(MEMCPY_DTOH_ASYNC, dtoh_fn);
    /* the per-thread default stream of a _ptsz launch is its own handle */
    CUstream s = c->per_thread && !c->stream ? CU_STREAM_PER_THREAD : c->stream;
    /* On the launch's own stream, never the legacy one (a synchronous copy
     * waits for every blocking stream), in relaxed capture mode: another
     * thread may be capturing a stream into a graph. */
    int mode = aoe_cu_capture_mode_relaxed();
    if (!c->synced && sync) {
        if (sync(s) != CUDA_SUCCESS) {
            aoe_cu_capture_mode_restore(mode);
            return;
        }
        c->synced = 1;
    }
    uint8_t *data = dtoh && sync ? malloc(ja->size ? ja->size : 1) : NULL;
    if (data && (dtoh(data, p, ja->size, s) != CUDA_SUCCESS || sync(s) != CUDA_SUCCESS)) {
        free(data);
        data = NULL;
    }
    aoe_cu_capture_mode_restore(mode);
    ja->data = data;
}

static aoe_elem_type elem(const aoe_launch_desc *d, uint32_t i, const aoe_job_arg *ja)
{
    const aoe_cu_capture_ctx *c = d->rt_ctx;
    aoe_elem_type e = c->L->sig[i].elem;
    size_t n = aoe_elem_size(e);
    return n && ja->size % n == 0 ? e : AOE_ELEM_BYTES;
}

static void limits(const aoe_launch_desc *d, uint64_t *max_wg, uint64_t max_item[3])
{
    (void)d;
    ctx_device_fn device = REAL(CTX_DEVICE, ctx_device_fn);
    attr_fn attr = REAL(DEVICE_ATTR, attr_fn);
    CUdevice dev;
    int v = 0;
    if (!device || !attr || device(&dev) != CUDA_SUCCESS) return;
    if (attr(&v, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, dev) == CUDA_SUCCESS && v > 0)
        *max_wg = (uint64_t)v;
    static const CUdevice_attribute dims[3] = {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
                                               CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,
                                               CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z};
    for (int k = 0; k < 3; k++)
        if (attr(&v, dims[k], dev) == CUDA_SUCCESS && v > 0) max_item[k] = (uint64_t)v;
}

const aoe_launch_runtime aoe_cu_launch_runtime = {limits, buffer, elem};
