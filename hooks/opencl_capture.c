/* What only OpenCL can answer when the launch core (launch/sight.h) meets an
 * operator for the first time: the device's work-group limits, and a
 * buffer's flags and contents for a captured job, read on the launch queue
 * before the launch (blocking), up to AOE_CAPTURE_LIMIT_MB per buffer; larger
 * or unreadable buffers are replayed with synthetic data. A buffer the
 * program never initialised (opencl_mem.h) is captured as zeros: its stale
 * bytes never reach a job. Images likewise, with their descriptor
 * (clGetImageInfo) and packed contents (clEnqueueReadImage); samplers with
 * their properties. */
#include "hooks/opencl_image.h"
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

/* Contents of a buffer or an image: zeros when the program never wrote it
 * (what it holds is stale process memory the kernel cannot depend on; no
 * read-back), else read on the launch queue; NULL (synthetic) when larger
 * than limit or unreadable (e.g. CL_MEM_HOST_NO_ACCESS). */
static void contents(const aoe_cl_launch_ctx *c, cl_mem m, aoe_job_arg *ja, uint64_t limit)
{
    if (!ja->size || ja->size > limit) return;
    if (!aoe_cl_mem_initialised(m)) {
        ja->data = calloc(1, ja->size);
        return;
    }
    if (!(ja->data = malloc(ja->size))) return;
    cl_int rc;
    if (ja->kind == AOE_JOB_ARG_IMAGE) {
        const aoe_job_image *im = &ja->image;
        size_t origin[3] = {0, 0, 0};
        size_t region[3] = {im->width, 1, 1};
        /* a 1-D array's layers are its rows, a 2-D array's its slices */
        if (im->type == CL_MEM_OBJECT_IMAGE1D_ARRAY) {
            region[1] = im->array_size;
        } else {
            if (im->height) region[1] = im->height;
            if (im->depth) region[2] = im->depth;
            if (im->type == CL_MEM_OBJECT_IMAGE2D_ARRAY) region[2] = im->array_size;
        }
        rc = REAL(clEnqueueReadImage)(c->q, m, CL_TRUE, origin, region, 0, 0, ja->data, 0, NULL,
                                      NULL);
    } else {
        rc = REAL(clEnqueueReadBuffer)(c->q, m, CL_TRUE, 0, ja->size, ja->data, 0, NULL, NULL);
    }
    if (rc != CL_SUCCESS) {
        free(ja->data);
        ja->data = NULL;
    }
}

/* A buffer, image or sampler argument (launch/desc.h). */
static void buffer(const aoe_launch_desc *d, uint32_t i, aoe_job_arg *ja, uint64_t limit)
{
    const aoe_cl_launch_ctx *c = d->rt_ctx;
    const aoe_cl_arg *a = &c->kr->args[i];
    if (ja->kind == AOE_JOB_ARG_SAMPLER) {
        cl_sampler s = NULL;
        if (a->size == sizeof s) memcpy(&s, a->value, sizeof s);
        if (aoe_cl_sampler_props(s, &ja->sampler)) ja->kind = AOE_JOB_ARG_NULLMEM; /* refused */
        ja->size = 0;
        return;
    }
    cl_mem_flags flags = 0;
    if (REAL(clGetMemObjectInfo)(a->mem, CL_MEM_FLAGS, sizeof flags, &flags, NULL) == CL_SUCCESS)
        ja->flags = flags;
    if (ja->kind == AOE_JOB_ARG_IMAGE) {
        if (aoe_cl_image_desc(a->mem, &ja->image) ||
            aoe_job_image_extent(&ja->image) != d->shapes[i].extent) {
            ja->kind = AOE_JOB_ARG_NULLMEM; /* changed since: the tuner refuses the job */
            ja->size = sizeof(void *);
            return;
        }
        ja->size = aoe_job_image_bytes(&ja->image);
    }
    contents(c, a->mem, ja, limit);
}

/* What argument i holds, from its OpenCL type name (BYTES when the
 * implementation gives no argument info). */
static aoe_elem_type elem(const aoe_launch_desc *d, uint32_t i, const aoe_job_arg *ja)
{
    const aoe_cl_launch_ctx *c = d->rt_ctx;
    char type[64] = "";
    if (ja->kind == AOE_JOB_ARG_IMAGE) {
        switch (ja->image.data_type) {
        case CL_FLOAT:
            return AOE_ELEM_F32;
        case CL_HALF_FLOAT:
            return AOE_ELEM_F16;
        case CL_SIGNED_INT8:
            return AOE_ELEM_I8;
        case CL_UNSIGNED_INT8:
            return AOE_ELEM_U8;
        case CL_SIGNED_INT16:
            return AOE_ELEM_I16;
        case CL_UNSIGNED_INT16:
            return AOE_ELEM_U16;
        case CL_SIGNED_INT32:
            return AOE_ELEM_I32;
        case CL_UNSIGNED_INT32:
            return AOE_ELEM_U32;
        default:
            return AOE_ELEM_BYTES; /* normalised and packed formats: exact */
        }
    }
    if (ja->kind == AOE_JOB_ARG_NULLMEM || ja->kind == AOE_JOB_ARG_SAMPLER ||
        REAL(clGetKernelArgInfo)(c->kr->k, i, CL_KERNEL_ARG_TYPE_NAME, sizeof type - 1, type,
                                 NULL) != CL_SUCCESS)
        return AOE_ELEM_BYTES;
    return aoe_elem_of_type_name(type, ja->size);
}

const aoe_launch_runtime aoe_cl_launch_runtime = {.limits = limits, .buffer = buffer, .elem = elem};
