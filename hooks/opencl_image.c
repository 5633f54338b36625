/* Images and samplers: each image the program creates is remembered in the
 * cl_mem table with its descriptor's key extent (hooks/opencl_internal.h),
 * or as one the shim cannot replay (its pixels are another object's: made
 * from a buffer or another image); each sampler with its properties' key
 * extent. The descriptor is read back from the runtime (clGetImageInfo), as
 * the capture reads it, so a launch keys like its captured job. */
#include "hooks/opencl_image.h"
#include "hooks/opencl_mem.h"

#include <string.h>

static aoe_ptr_slot g_sampler_slots[1u << 14];
aoe_ptr_table aoe_cl_samplers = AOE_PTR_TABLE_INIT(g_sampler_slots);

static size_t image_info(cl_mem m, cl_image_info what, int *bad)
{
    size_t v = 0;
    if (REAL(clGetImageInfo)(m, what, sizeof v, &v, NULL) != CL_SUCCESS) *bad = 1;
    return v;
}

int aoe_cl_image_desc(cl_mem m, aoe_job_image *im)
{
    memset(im, 0, sizeof *im);
    cl_mem_object_type type = 0;
    cl_image_format fmt = {0, 0};
    if (!REAL(clGetImageInfo) || !REAL(clGetMemObjectInfo) ||
        REAL(clGetMemObjectInfo)(m, CL_MEM_TYPE, sizeof type, &type, NULL) != CL_SUCCESS ||
        REAL(clGetImageInfo)(m, CL_IMAGE_FORMAT, sizeof fmt, &fmt, NULL) != CL_SUCCESS)
        return -1;
    int bad = 0;
    im->type = (uint32_t)type;
    im->order = (uint32_t)fmt.image_channel_order;
    im->data_type = (uint32_t)fmt.image_channel_data_type;
    im->pixel_bytes = (uint32_t)image_info(m, CL_IMAGE_ELEMENT_SIZE, &bad);
    im->width = image_info(m, CL_IMAGE_WIDTH, &bad);
    im->height = image_info(m, CL_IMAGE_HEIGHT, &bad);
    im->depth = image_info(m, CL_IMAGE_DEPTH, &bad);
    /* OpenCL 1.1 runtimes have no array size: 0, as for a non-array type */
    size_t arr = 0;
    if (REAL(clGetImageInfo)(m, CL_IMAGE_ARRAY_SIZE, sizeof arr, &arr, NULL) == CL_SUCCESS)
        im->array_size = arr;
    return bad || !im->pixel_bytes || !im->width ? -1 : 0;
}

/* The table value of a new image; parent: desc->buffer / desc->mem_object. */
static uintptr_t image_value(cl_mem m, cl_mem parent)
{
    if (parent) {
        cl_mem_object_type t = 0;
        if (REAL(clGetMemObjectInfo)(parent, CL_MEM_TYPE, sizeof t, &t, NULL) != CL_SUCCESS ||
            t == CL_MEM_OBJECT_BUFFER)
            return aoe_cl_mem_opaque_value(AOE_CL_OPAQUE_IMAGE_FROM_BUFFER);
        return aoe_cl_mem_opaque_value(AOE_CL_OPAQUE_IMAGE_FROM_IMAGE);
    }
    aoe_job_image im;
    if (aoe_cl_image_desc(m, &im)) return aoe_cl_mem_opaque_value(AOE_CL_OPAQUE_IMAGE_UNKNOWN);
    if (im.type == CL_MEM_OBJECT_IMAGE1D_BUFFER)
        return aoe_cl_mem_opaque_value(AOE_CL_OPAQUE_IMAGE_FROM_BUFFER);
    return aoe_cl_mem_image_value(aoe_job_image_extent(&im));
}

static void track_image(cl_mem m, cl_mem_flags flags, cl_mem parent)
{
    if (!m || !aoe_shim_init()) return;
    uintptr_t v = image_value(m, parent);
    aoe_cl_track_mem(m, v);
    if ((v & 3) == AOE_CL_MEM_IMAGE) aoe_cl_mem_created(m, flags, NULL);
}

EXPORT cl_mem clCreateImage(cl_context ctx, cl_mem_flags flags, const cl_image_format *fmt,
                            const cl_image_desc *desc, void *host, cl_int *err)
{
    NO_REAL_PTR(clCreateImage, err);
    cl_mem m = REAL(clCreateImage)(ctx, flags, fmt, desc, host, err);
    track_image(m, flags, desc ? desc->buffer : NULL);
    return m;
}

EXPORT cl_mem clCreateImageWithProperties(cl_context ctx, const cl_mem_properties *props,
                                          cl_mem_flags flags, const cl_image_format *fmt,
                                          const cl_image_desc *desc, void *host, cl_int *err)
{
    NO_REAL_PTR(clCreateImageWithProperties, err);
    cl_mem m = REAL(clCreateImageWithProperties)(ctx, props, flags, fmt, desc, host, err);
    track_image(m, flags, desc ? desc->buffer : NULL);
    return m;
}

EXPORT cl_mem clCreateImage2D(cl_context ctx, cl_mem_flags flags, const cl_image_format *fmt,
                              size_t w, size_t h, size_t pitch, void *host, cl_int *err)
{
    NO_REAL_PTR(clCreateImage2D, err);
    cl_mem m = REAL(clCreateImage2D)(ctx, flags, fmt, w, h, pitch, host, err);
    track_image(m, flags, NULL);
    return m;
}

EXPORT cl_mem clCreateImage3D(cl_context ctx, cl_mem_flags flags, const cl_image_format *fmt,
                              size_t w, size_t h, size_t d, size_t rp, size_t sp, void *host,
                              cl_int *err)
{
    NO_REAL_PTR(clCreateImage3D, err);
    cl_mem m = REAL(clCreateImage3D)(ctx, flags, fmt, w, h, d, rp, sp, host, err);
    track_image(m, flags, NULL);
    return m;
}

/* ------------------------------------------------------------ samplers */

int aoe_cl_sampler_props(cl_sampler s, aoe_job_sampler *out)
{
    cl_bool norm = CL_FALSE;
    cl_addressing_mode addr = 0;
    cl_filter_mode filt = 0;
    if (!REAL(clGetSamplerInfo) ||
        REAL(clGetSamplerInfo)(s, CL_SAMPLER_NORMALIZED_COORDS, sizeof norm, &norm, NULL) !=
            CL_SUCCESS ||
        REAL(clGetSamplerInfo)(s, CL_SAMPLER_ADDRESSING_MODE, sizeof addr, &addr, NULL) !=
            CL_SUCCESS ||
        REAL(clGetSamplerInfo)(s, CL_SAMPLER_FILTER_MODE, sizeof filt, &filt, NULL) != CL_SUCCESS)
        return -1;
    out->normalized = norm != CL_FALSE;
    out->addressing = (uint32_t)addr;
    out->filter = (uint32_t)filt;
    return 0;
}

static void track_sampler(cl_sampler s)
{
    aoe_job_sampler p;
    if (!s || !aoe_shim_init() || aoe_cl_sampler_props(s, &p)) return;
    uint64_t ext = aoe_opkey_sampler_extent(p.normalized, p.addressing, p.filter);
    aoe_ptr_insert(&aoe_cl_samplers, s, (void *)aoe_cl_sampler_value(ext));
}

EXPORT cl_sampler clCreateSampler(cl_context ctx, cl_bool normalized, cl_addressing_mode addr,
                                  cl_filter_mode filter, cl_int *err)
{
    NO_REAL_PTR(clCreateSampler, err);
    cl_sampler s = REAL(clCreateSampler)(ctx, normalized, addr, filter, err);
    track_sampler(s);
    return s;
}

EXPORT cl_sampler clCreateSamplerWithProperties(cl_context ctx, const cl_sampler_properties *props,
                                                cl_int *err)
{
    NO_REAL_PTR(clCreateSamplerWithProperties, err);
    cl_sampler s = REAL(clCreateSamplerWithProperties)(ctx, props, err);
    track_sampler(s);
    return s;
}

EXPORT cl_int clReleaseSampler(cl_sampler s)
{
    if (!REAL(clReleaseSampler)) return CL_INVALID_PLATFORM;
    int tracked = aoe_shim_active && aoe_ptr_find(&aoe_cl_samplers, s) != NULL;
    cl_uint refs = 0;
    if (tracked && REAL(clGetSamplerInfo)(s, CL_SAMPLER_REFERENCE_COUNT, sizeof refs, &refs,
                                          NULL) != CL_SUCCESS)
        refs = 0;
    cl_int rc = REAL(clReleaseSampler)(s);
    if (rc == CL_SUCCESS && tracked && refs == 1) aoe_ptr_remove(&aoe_cl_samplers, s);
    return rc;
}

/* ------------------------------------------------------------ image writes */

/* Enqueue calls that write an image: on success it counts as initialised
 * (hooks/opencl_mem.h), as for buffers. */
EXPORT cl_int clEnqueueWriteImage(cl_command_queue q, cl_mem img, cl_bool blocking,
                                  const size_t *origin, const size_t *region, size_t row,
                                  size_t slice, const void *p, cl_uint nev, const cl_event *evs,
                                  cl_event *ev)
{
    if (!REAL(clEnqueueWriteImage)) return CL_INVALID_PLATFORM;
    cl_int rc =
        REAL(clEnqueueWriteImage)(q, img, blocking, origin, region, row, slice, p, nev, evs, ev);
    if (rc == CL_SUCCESS) aoe_cl_mem_written(img);
    return rc;
}

EXPORT cl_int clEnqueueFillImage(cl_command_queue q, cl_mem img, const void *color,
                                 const size_t *origin, const size_t *region, cl_uint nev,
                                 const cl_event *evs, cl_event *ev)
{
    if (!REAL(clEnqueueFillImage)) return CL_INVALID_PLATFORM;
    cl_int rc = REAL(clEnqueueFillImage)(q, img, color, origin, region, nev, evs, ev);
    if (rc == CL_SUCCESS) aoe_cl_mem_written(img);
    return rc;
}

EXPORT cl_int clEnqueueCopyImage(cl_command_queue q, cl_mem src, cl_mem dst, const size_t *sorigin,
                                 const size_t *dorigin, const size_t *region, cl_uint nev,
                                 const cl_event *evs, cl_event *ev)
{
    if (!REAL(clEnqueueCopyImage)) return CL_INVALID_PLATFORM;
    cl_int rc = REAL(clEnqueueCopyImage)(q, src, dst, sorigin, dorigin, region, nev, evs, ev);
    /* a copy of unwritten pixels is still unwritten */
    if (rc == CL_SUCCESS && aoe_cl_mem_initialised(src)) aoe_cl_mem_written(dst);
    return rc;
}

EXPORT cl_int clEnqueueCopyBufferToImage(cl_command_queue q, cl_mem src, cl_mem dst, size_t off,
                                         const size_t *dorigin, const size_t *region, cl_uint nev,
                                         const cl_event *evs, cl_event *ev)
{
    if (!REAL(clEnqueueCopyBufferToImage)) return CL_INVALID_PLATFORM;
    cl_int rc = REAL(clEnqueueCopyBufferToImage)(q, src, dst, off, dorigin, region, nev, evs, ev);
    if (rc == CL_SUCCESS && aoe_cl_mem_initialised(src)) aoe_cl_mem_written(dst);
    return rc;
}

EXPORT void *clEnqueueMapImage(cl_command_queue q, cl_mem img, cl_bool blocking, cl_map_flags flags,
                               const size_t *origin, const size_t *region, size_t *row,
                               size_t *slice, cl_uint nev, const cl_event *evs, cl_event *ev,
                               cl_int *err)
{
    NO_REAL_PTR(clEnqueueMapImage, err);
    void *p = REAL(clEnqueueMapImage)(q, img, blocking, flags, origin, region, row, slice, nev, evs,
                                      ev, err);
    /* mapped for writing: the program writes through the pointer */
    if (p && (flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION))) aoe_cl_mem_written(img);
    return p;
}
