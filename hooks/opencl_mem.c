/* Initialised-buffer tracking (see opencl_mem.h) and the wrappers of the
 * enqueue calls that write buffers. A second table, not a bit in aoe_cl_mems,
 * so the launch path's lookups stay as they are; the launch path pays one
 * relaxed load while every buffer is initialised. */
#include "hooks/opencl_mem.h"

#include <pthread.h>

static aoe_ptr_slot g_init_slots[1u << 17];
static aoe_ptr_table g_init = AOE_PTR_TABLE_INIT(g_init_slots); /* cl_mem -> 1: initialised */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;      /* state changes below */
atomic_size_t aoe_cl_unwritten;

/* Buffers and the images the shim replays. */
static int is_tracked_buffer(cl_mem m)
{
    return aoe_cl_mem_has_contents((uintptr_t)aoe_ptr_find(&aoe_cl_mems, m));
}

void aoe_cl_mem_created(cl_mem m, cl_mem_flags flags, cl_mem parent)
{
    if (!m || !is_tracked_buffer(m)) return;
    int init = (flags & (CL_MEM_COPY_HOST_PTR | CL_MEM_USE_HOST_PTR)) ||
               (parent && aoe_cl_mem_initialised(parent));
    pthread_mutex_lock(&g_lock);
    aoe_ptr_remove(&g_init, m); /* a reused handle starts over */
    if (!init || aoe_ptr_insert(&g_init, m, (void *)1))
        atomic_fetch_add_explicit(&aoe_cl_unwritten, 1, memory_order_relaxed);
    pthread_mutex_unlock(&g_lock);
}

void aoe_cl_mem_released(cl_mem m)
{
    pthread_mutex_lock(&g_lock);
    if (!aoe_ptr_remove(&g_init, m))
        atomic_fetch_sub_explicit(&aoe_cl_unwritten, 1, memory_order_relaxed);
    pthread_mutex_unlock(&g_lock);
}

int aoe_cl_mem_initialised(cl_mem m)
{
    return aoe_ptr_find(&g_init, m) != NULL;
}

void aoe_cl_mem_written(cl_mem m)
{
    if (!aoe_shim_active || aoe_cl_mem_initialised(m) || !is_tracked_buffer(m)) return;
    pthread_mutex_lock(&g_lock);
    if (!aoe_cl_mem_initialised(m) && is_tracked_buffer(m) &&
        !aoe_ptr_insert(&g_init, m, (void *)1))
        atomic_fetch_sub_explicit(&aoe_cl_unwritten, 1, memory_order_relaxed);
    pthread_mutex_unlock(&g_lock);
}

void aoe_cl_mem_launched(aoe_cl_kernel *kr)
{
    for (cl_uint i = 0; i < kr->nargs; i++)
        if ((kr->args[i].shape.kind == AOE_ARGK_BUFFER ||
             kr->args[i].shape.kind == AOE_ARGK_IMAGE) &&
            kr->args[i].mem)
            aoe_cl_mem_written(kr->args[i].mem);
}

void aoe_cl_mem_atfork_child(void)
{
    pthread_mutex_init(&g_lock, NULL);
    aoe_ptr_table_atfork_child(&g_init);
}

/* ---- enqueue calls that write a buffer: on success it counts as written ---- */

#define MARK_IF(rc, m)                                                                             \
    do {                                                                                           \
        if ((rc) == CL_SUCCESS) aoe_cl_mem_written(m);                                             \
    } while (0)

EXPORT cl_int clEnqueueWriteBuffer(cl_command_queue q, cl_mem b, cl_bool blocking, size_t off,
                                   size_t size, const void *p, cl_uint nev, const cl_event *evs,
                                   cl_event *ev)
{
    if (!REAL(clEnqueueWriteBuffer)) return CL_INVALID_PLATFORM;
    cl_int rc = REAL(clEnqueueWriteBuffer)(q, b, blocking, off, size, p, nev, evs, ev);
    MARK_IF(rc, b);
    return rc;
}

EXPORT cl_int clEnqueueWriteBufferRect(cl_command_queue q, cl_mem b, cl_bool blocking,
                                       const size_t *boff, const size_t *hoff, const size_t *region,
                                       size_t brow, size_t bslice, size_t hrow, size_t hslice,
                                       const void *p, cl_uint nev, const cl_event *evs,
                                       cl_event *ev)
{
    if (!REAL(clEnqueueWriteBufferRect)) return CL_INVALID_PLATFORM;
    cl_int rc = REAL(clEnqueueWriteBufferRect)(q, b, blocking, boff, hoff, region, brow, bslice,
                                               hrow, hslice, p, nev, evs, ev);
    MARK_IF(rc, b);
    return rc;
}

EXPORT cl_int clEnqueueFillBuffer(cl_command_queue q, cl_mem b, const void *pat, size_t patsize,
                                  size_t off, size_t size, cl_uint nev, const cl_event *evs,
                                  cl_event *ev)
{
    if (!REAL(clEnqueueFillBuffer)) return CL_INVALID_PLATFORM;
    cl_int rc = REAL(clEnqueueFillBuffer)(q, b, pat, patsize, off, size, nev, evs, ev);
    MARK_IF(rc, b);
    return rc;
}

EXPORT cl_int clEnqueueCopyBuffer(cl_command_queue q, cl_mem src, cl_mem dst, size_t soff,
                                  size_t doff, size_t size, cl_uint nev, const cl_event *evs,
                                  cl_event *ev)
{
    if (!REAL(clEnqueueCopyBuffer)) return CL_INVALID_PLATFORM;
    cl_int rc = REAL(clEnqueueCopyBuffer)(q, src, dst, soff, doff, size, nev, evs, ev);
    /* a copy of unwritten bytes is still unwritten */
    if (rc == CL_SUCCESS && aoe_cl_mem_initialised(src)) aoe_cl_mem_written(dst);
    return rc;
}

EXPORT cl_int clEnqueueCopyBufferRect(cl_command_queue q, cl_mem src, cl_mem dst,
                                      const size_t *soff, const size_t *doff, const size_t *region,
                                      size_t srow, size_t sslice, size_t drow, size_t dslice,
                                      cl_uint nev, const cl_event *evs, cl_event *ev)
{
    if (!REAL(clEnqueueCopyBufferRect)) return CL_INVALID_PLATFORM;
    cl_int rc = REAL(clEnqueueCopyBufferRect)(q, src, dst, soff, doff, region, srow, sslice, drow,
                                              dslice, nev, evs, ev);
    if (rc == CL_SUCCESS && aoe_cl_mem_initialised(src)) aoe_cl_mem_written(dst);
    return rc;
}

EXPORT cl_int clEnqueueCopyImageToBuffer(cl_command_queue q, cl_mem img, cl_mem dst,
                                         const size_t *origin, const size_t *region, size_t off,
                                         cl_uint nev, const cl_event *evs, cl_event *ev)
{
    if (!REAL(clEnqueueCopyImageToBuffer)) return CL_INVALID_PLATFORM;
    cl_int rc = REAL(clEnqueueCopyImageToBuffer)(q, img, dst, origin, region, off, nev, evs, ev);
    MARK_IF(rc, dst);
    return rc;
}

EXPORT void *clEnqueueMapBuffer(cl_command_queue q, cl_mem b, cl_bool blocking, cl_map_flags flags,
                                size_t off, size_t size, cl_uint nev, const cl_event *evs,
                                cl_event *ev, cl_int *err)
{
    if (!REAL(clEnqueueMapBuffer)) {
        if (err) *err = CL_INVALID_PLATFORM;
        return NULL;
    }
    void *p = REAL(clEnqueueMapBuffer)(q, b, blocking, flags, off, size, nev, evs, ev, err);
    /* mapped for writing: the program writes through the pointer */
    if (p && (flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION))) aoe_cl_mem_written(b);
    return p;
}
