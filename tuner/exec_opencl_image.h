/* Image and sampler arguments of the OpenCL executor (exec_opencl.c): the
 * job's descriptor checked against its format, the image and its pristine
 * copy created, restored, poisoned and read back, samplers made from their
 * properties, and the element type its pixels are verified as. */
#ifndef AOE_EXEC_OPENCL_IMAGE_H
#define AOE_EXEC_OPENCL_IMAGE_H

#include "jobs/job.h"
#include "tuner/exec_opencl_api.h"
#include "tuner/exec_status.h"

#include <stddef.h>
#include <stdint.h>

typedef struct {
    cl_mem img;       /* what the kernel sees */
    cl_mem pristine;  /* its initial contents, copied over img by reset */
    size_t region[3]; /* the whole image, in clEnqueue*Image's terms */
} aoe_cl_image;

/* The job's image arguments as OpenCL can create them, before anything is
 * loaded: a type OpenCL images have (1-D, 1-D array, 2-D, 2-D array, 3-D;
 * never one made from a buffer), the extents that type has, and pixel_bytes
 * that of its channel order and data type. BAD_JOB or UNSUPPORTED with one
 * line naming the argument and its format, else OK. */
aoe_exec_status aoe_cl_image_check(const aoe_job *job, char *detail, size_t len);

/* Creates image argument a (its descriptor) holding init, and its pristine
 * copy. A format the device does not support: UNSUPPORTED naming it. */
aoe_exec_status aoe_cl_image_create(cl_context ctx, const aoe_job_arg *a, const uint8_t *init,
                                    aoe_cl_image *im, char *detail, size_t len);

/* Restores the pristine contents, or writes `poison` (a packed copy of the
 * image's size filled with that byte: OpenCL fills images with a colour, not
 * bytes). */
cl_int aoe_cl_image_reset(cl_command_queue q, const aoe_cl_image *im, const uint8_t *poison);

/* Reads the packed contents (row pitch 0) into data, blocking. */
cl_int aoe_cl_image_read(cl_command_queue q, const aoe_cl_image *im, uint8_t *data);

void aoe_cl_image_release(aoe_cl_image *im);

/* A sampler with the job's properties (clCreateSamplerWithProperties where
 * the platform has it, clCreateSampler on OpenCL 1.2). NULL with *rc. */
cl_sampler aoe_cl_sampler_create(cl_context ctx, const aoe_job_sampler *s, cl_int *rc);

/* The element type image argument arg's pixels are verified as (exec.h,
 * image_elem). */
aoe_elem_type aoe_cl_image_elem(const aoe_job *job, uint32_t arg);

/* "CL_RGBA/CL_UNORM_INT8" (numbers for values OpenCL does not name). */
void aoe_cl_format_name(uint32_t order, uint32_t data_type, char *out, size_t len);

#endif
