/* Image and sampler arguments of the OpenCL executor (exec_opencl_image.h).
 * An image has no guard zone: a write outside its extent is discarded by the
 * specification (write_image* with out-of-range coordinates has no effect),
 * so there is nothing past its end to overwrite; the executor reports its
 * guard bytes untouched. */
#include "tuner/exec_opencl_image.h"

#include "tuner/exec_opencl_errors.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    uint32_t value;
    const char *name;
    int size; /* channels (orders) or bytes per channel (data types); 0: packed or unknown */
} cl_named;

#define N(x, s)                                                                                    \
    {                                                                                              \
        x, #x, s                                                                                   \
    }
static const cl_named orders[] = {
    N(CL_R, 1),    N(CL_A, 1),     N(CL_RG, 2),    N(CL_RA, 2),        N(CL_RGB, 3),
    N(CL_RGBA, 4), N(CL_BGRA, 4),  N(CL_ARGB, 4),  N(CL_INTENSITY, 1), N(CL_LUMINANCE, 1),
    N(CL_Rx, 0),   N(CL_RGx, 0),   N(CL_RGBx, 0),  N(CL_DEPTH, 1),     N(CL_DEPTH_STENCIL, 0),
    N(CL_sRGB, 3), N(CL_sRGBx, 4), N(CL_sRGBA, 4), N(CL_sBGRA, 4),     N(CL_ABGR, 4)};
static const cl_named types[] = {
    N(CL_SNORM_INT8, 1),       N(CL_SNORM_INT16, 2),       N(CL_UNORM_INT8, 1),
    N(CL_UNORM_INT16, 2),      N(CL_UNORM_SHORT_565, 0),   N(CL_UNORM_SHORT_555, 0),
    N(CL_UNORM_INT_101010, 0), N(CL_SIGNED_INT8, 1),       N(CL_SIGNED_INT16, 2),
    N(CL_SIGNED_INT32, 4),     N(CL_UNSIGNED_INT8, 1),     N(CL_UNSIGNED_INT16, 2),
    N(CL_UNSIGNED_INT32, 4),   N(CL_HALF_FLOAT, 2),        N(CL_FLOAT, 4),
    N(CL_UNORM_INT24, 0),      N(CL_UNORM_INT_101010_2, 0)};
#undef N

static const cl_named *find(const cl_named *t, size_t n, uint32_t v)
{
    for (size_t i = 0; i < n; i++)
        if (t[i].value == v) return &t[i];
    return NULL;
}
#define FIND(t, v) find(t, sizeof t / sizeof t[0], v)

void aoe_cl_format_name(uint32_t order, uint32_t data_type, char *out, size_t len)
{
    const cl_named *o = FIND(orders, order), *t = FIND(types, data_type);
    char on[16], tn[16];
    snprintf(on, sizeof on, "0x%x", order);
    snprintf(tn, sizeof tn, "0x%x", data_type);
    snprintf(out, len, "%s/%s", o ? o->name : on, t ? t->name : tn);
}

/* Bytes per pixel of a format, 0 when this table cannot tell (the runtime's
 * CL_IMAGE_ELEMENT_SIZE then decides). */
static uint32_t pixel_bytes(uint32_t order, uint32_t data_type)
{
    const cl_named *o = FIND(orders, order), *t = FIND(types, data_type);
    if (!o || !t) return 0;
    switch (data_type) {
    case CL_UNORM_SHORT_565:
    case CL_UNORM_SHORT_555:
        return 2;
    case CL_UNORM_INT_101010:
    case CL_UNORM_INT_101010_2:
        return 4;
    default:
        return (uint32_t)(o->size * t->size);
    }
}

/* The extents type has (1: it has it) as width, height, depth, array size;
 * 0 for a type that is not an image a job can hold. */
static int extents_of(uint32_t type, int has[4])
{
    static const struct {
        uint32_t type;
        int has[4];
    } shapes[] = {{CL_MEM_OBJECT_IMAGE1D, {1, 0, 0, 0}},
                  {CL_MEM_OBJECT_IMAGE1D_ARRAY, {1, 0, 0, 1}},
                  {CL_MEM_OBJECT_IMAGE2D, {1, 1, 0, 0}},
                  {CL_MEM_OBJECT_IMAGE2D_ARRAY, {1, 1, 0, 1}},
                  {CL_MEM_OBJECT_IMAGE3D, {1, 1, 1, 0}}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        if (shapes[i].type == type) {
            memcpy(has, shapes[i].has, sizeof shapes[i].has);
            return 1;
        }
    return 0;
}

static aoe_exec_status check_one(const aoe_job_arg *a, uint32_t i, char *detail, size_t len)
{
    static const char *const ext_names[4] = {"width", "height", "depth", "array_size"};
    const aoe_job_image *im = &a->image;
    uint64_t ext[4] = {im->width, im->height, im->depth, im->array_size};
    char fmt[64];
    int has[4];
    aoe_cl_format_name(im->order, im->data_type, fmt, sizeof fmt);
    if (im->type == CL_MEM_OBJECT_IMAGE1D_BUFFER || !extents_of(im->type, has)) {
        snprintf(detail, len, "args[%u]: image type 0x%x is not one the executor creates%s", i,
                 im->type,
                 im->type == CL_MEM_OBJECT_IMAGE1D_BUFFER ? " (an image made from a buffer)" : "");
        return im->type == CL_MEM_OBJECT_IMAGE1D_BUFFER ? AOE_EXEC_UNSUPPORTED : AOE_EXEC_BAD_JOB;
    }
    for (int d = 0; d < 4; d++) {
        if (has[d] && !ext[d]) {
            snprintf(detail, len, "args[%u]: image %s is 0", i, ext_names[d]);
            return AOE_EXEC_BAD_JOB;
        }
        if (!has[d] && ext[d] > 1) { /* its packed contents would not be the image's */
            snprintf(detail, len, "args[%u]: image of type 0x%x has no %s, the job says %llu", i,
                     im->type, ext_names[d], (unsigned long long)ext[d]);
            return AOE_EXEC_BAD_JOB;
        }
    }
    uint32_t want = pixel_bytes(im->order, im->data_type);
    if (want && want != im->pixel_bytes) {
        snprintf(detail, len,
                 "args[%u]: pixel_bytes %u does not match the image format %s (%u bytes)", i,
                 im->pixel_bytes, fmt, want);
        return AOE_EXEC_BAD_JOB;
    }
    return AOE_EXEC_OK;
}

aoe_exec_status aoe_cl_image_check(const aoe_job *job, char *detail, size_t len)
{
    for (uint32_t i = 0; i < job->nargs; i++) {
        if (job->args[i].kind != AOE_JOB_ARG_IMAGE) continue;
        aoe_exec_status st = check_one(&job->args[i], i, detail, len);
        if (st) return st;
    }
    return AOE_EXEC_OK;
}

aoe_exec_status aoe_cl_image_create(cl_context ctx, const aoe_job_arg *a, const uint8_t *init,
                                    aoe_cl_image *im, char *detail, size_t len)
{
    const aoe_job_image *d = &a->image;
    int has[4] = {0, 0, 0, 0};
    char fmt[64];
    cl_int rc;
    extents_of(d->type, has); /* checked at open */
    aoe_cl_format_name(d->order, d->data_type, fmt, sizeof fmt);
    cl_image_format f = {d->order, d->data_type};
    cl_image_desc desc;
    memset(&desc, 0, sizeof desc); /* pitches 0: packed; no mip levels, no samples, no buffer */
    desc.image_type = d->type;
    desc.image_width = (size_t)d->width;
    desc.image_height = has[1] ? (size_t)d->height : 0;
    desc.image_depth = has[2] ? (size_t)d->depth : 0;
    desc.image_array_size = has[3] ? (size_t)d->array_size : 0;
    im->region[0] = desc.image_width;
    im->region[1] = has[1] ? desc.image_height : has[3] ? desc.image_array_size : 1;
    im->region[2] = has[2] ? desc.image_depth : has[1] && has[3] ? desc.image_array_size : 1;
    im->img = CL(clCreateImage)(ctx, CL_MEM_READ_WRITE, &f, &desc, NULL, &rc);
    if (rc == CL_SUCCESS) /* CL_MEM_COPY_HOST_PTR copies at once: init is never written */
        im->pristine = CL(clCreateImage)(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, &f, &desc,
                                         (void *)init, &rc);
    if (rc == CL_IMAGE_FORMAT_NOT_SUPPORTED || rc == CL_INVALID_IMAGE_FORMAT_DESCRIPTOR) {
        snprintf(detail, len, "the device does not support the image format %s (%s)", fmt,
                 aoe_cl_err_name(rc));
        return rc == CL_IMAGE_FORMAT_NOT_SUPPORTED ? AOE_EXEC_UNSUPPORTED : AOE_EXEC_BAD_JOB;
    }
    if (rc == CL_INVALID_IMAGE_SIZE) {
        snprintf(detail, len, "the device does not support a %s image of %llu x %llu x %llu x %llu",
                 fmt, (unsigned long long)d->width, (unsigned long long)d->height,
                 (unsigned long long)d->depth, (unsigned long long)d->array_size);
        return AOE_EXEC_UNSUPPORTED;
    }
    if (rc != CL_SUCCESS) {
        snprintf(detail, len, "clCreateImage %s: %s (%d)", fmt, aoe_cl_err_name(rc), rc);
        return aoe_cl_status(rc, 0);
    }
    size_t elem = 0; /* the runtime's own answer for what the table cannot tell */
    CL(clGetImageInfo)(im->img, CL_IMAGE_ELEMENT_SIZE, sizeof elem, &elem, NULL);
    if (elem && elem != d->pixel_bytes) {
        snprintf(detail, len, "pixel_bytes %u does not match the image format %s (%zu bytes)",
                 d->pixel_bytes, fmt, elem);
        return AOE_EXEC_BAD_JOB;
    }
    return AOE_EXEC_OK;
}

static const size_t origin[3] = {0, 0, 0};

cl_int aoe_cl_image_reset(cl_command_queue q, const aoe_cl_image *im, const uint8_t *poison)
{
    if (poison)
        return CL(clEnqueueWriteImage)(q, im->img, CL_FALSE, origin, im->region, 0, 0, poison, 0,
                                       NULL, NULL);
    return CL(clEnqueueCopyImage)(q, im->pristine, im->img, origin, origin, im->region, 0, NULL,
                                  NULL);
}

cl_int aoe_cl_image_read(cl_command_queue q, const aoe_cl_image *im, uint8_t *data)
{
    return CL(clEnqueueReadImage)(q, im->img, CL_TRUE, origin, im->region, 0, 0, data, 0, NULL,
                                  NULL);
}

void aoe_cl_image_release(aoe_cl_image *im)
{
    if (im->img) CL(clReleaseMemObject)(im->img);
    if (im->pristine) CL(clReleaseMemObject)(im->pristine);
    memset(im, 0, sizeof *im);
}

cl_sampler aoe_cl_sampler_create(cl_context ctx, const aoe_job_sampler *s, cl_int *rc)
{
    cl_sampler_properties props[] = {CL_SAMPLER_NORMALIZED_COORDS,
                                     s->normalized ? CL_TRUE : CL_FALSE,
                                     CL_SAMPLER_ADDRESSING_MODE,
                                     s->addressing,
                                     CL_SAMPLER_FILTER_MODE,
                                     s->filter,
                                     0};
    cl_sampler smp = NULL;
    *rc = CL_INVALID_OPERATION;
    if (aoe_cl_opt.clCreateSamplerWithProperties)
        smp = aoe_cl_opt.clCreateSamplerWithProperties(ctx, props, rc);
    if (!smp) { /* an OpenCL 1.2 platform has only the older call */
        cl_int first = *rc;
        smp = CL(clCreateSampler)(ctx, s->normalized ? CL_TRUE : CL_FALSE, s->addressing, s->filter,
                                  rc);
        if (!smp && aoe_cl_opt.clCreateSamplerWithProperties) *rc = first;
    }
    return smp;
}

aoe_elem_type aoe_cl_image_elem(const aoe_job *job, uint32_t arg)
{
    if (arg >= job->nargs || job->args[arg].kind != AOE_JOB_ARG_IMAGE) return AOE_ELEM_BYTES;
    switch (job->args[arg].image.data_type) {
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
    default: /* normalised and packed formats: exact */
        return AOE_ELEM_BYTES;
    }
}
