/* What only OpenCL can answer when the launch core (launch/sight.h) meets an
 * operator for the first time: the device's work-group limits, and a
 * buffer's flags and contents for a captured job, read on the launch queue
 * before the launch (blocking), up to AOE_CAPTURE_LIMIT_MB per buffer; larger
 * or unreadable buffers are replayed with synthetic data. A buffer the
 * program never initialised (opencl_mem.h) is captured as zeros: its stale
 * bytes never reach a job. */
#include "hooks/opencl_internal.h"
#include "hooks/opencl_mem.h"

#include <stdlib.h>
#include <string.h>

static void limits(const aoe_launch_desc *d, uint64_t *max_wg, uint64_t max_item[3])
{
    const aoe_cl_launch_ctx *c = d->rt_ctx;
    cl_device_id dev = NULL;
    size_t wg = 0, items[3] = {0, 0, 0};
    if (REAL(clGetCommandQueueInfo)(c->q, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL) == CL_SUCCESS) {
        if (REAL(clGetDeviceInfo)(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, NULL)) wg = 0;
        if (REAL(clGetDeviceInfo)(dev, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof items, items, NULL))
            items[0] = items[1] = items[2] = 0;
    }
    *max_wg = wg;
    for (int i = 0; i < 3; i++) max_item[i] = items[i];
}

static void buffer(const aoe_launch_desc *d, uint32_t i, aoe_job_arg *ja, uint64_t limit)
{
    const aoe_cl_launch_ctx *c = d->rt_ctx;
    const aoe_cl_arg *a = &c->kr->args[i];
    cl_mem_flags flags = 0;
    if (REAL(clGetMemObjectInfo)(a->mem, CL_MEM_FLAGS, sizeof flags, &flags, NULL) == CL_SUCCESS)
        ja->flags = flags;
    /* Never written by the program: what it holds is stale process memory
     * and the kernel cannot depend on it, so the job carries zeros (no
     * read-back; replayed like a captured buffer). */
    if (!aoe_cl_mem_initialised(a->mem)) {
        if (ja->size && ja->size <= limit) ja->data = calloc(1, ja->size);
        return;
    }
    if (ja->size && ja->size <= limit && (ja->data = malloc(ja->size)) &&
        REAL(clEnqueueReadBuffer)(c->q, a->mem, CL_TRUE, 0, ja->size, ja->data, 0, NULL, NULL) !=
            CL_SUCCESS) {
        free(ja->data); /* e.g. CL_MEM_HOST_NO_ACCESS: synthetic data */
        ja->data = NULL;
    }
}

/* What argument i holds, from its OpenCL type name (BYTES when the
 * implementation gives no argument info). */
static aoe_elem_type elem(const aoe_launch_desc *d, uint32_t i, const aoe_job_arg *ja)
{
    const aoe_cl_launch_ctx *c = d->rt_ctx;
    char type[64] = "";
    if (ja->kind == AOE_JOB_ARG_NULLMEM ||
        REAL(clGetKernelArgInfo)(c->kr->k, i, CL_KERNEL_ARG_TYPE_NAME, sizeof type - 1, type,
                                 NULL) != CL_SUCCESS)
        return AOE_ELEM_BYTES;
    return aoe_elem_of_type_name(type, ja->size);
}

const aoe_launch_runtime aoe_cl_launch_runtime = {.limits = limits, .buffer = buffer, .elem = elem};
