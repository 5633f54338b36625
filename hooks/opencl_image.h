/* Images and samplers as the runtime describes them (hooks/opencl_image.c):
 * read at creation (their key extents) and at capture (the job's
 * descriptor and properties). */
#ifndef AOE_OPENCL_IMAGE_H
#define AOE_OPENCL_IMAGE_H

#include "hooks/opencl_internal.h"
#include "jobs/job.h"

/* Image m's descriptor in OpenCL's numbers (CL_MEM_TYPE, CL_IMAGE_FORMAT,
 * CL_IMAGE_ELEMENT_SIZE and the extents clGetImageInfo reports); 0, or -1
 * when the runtime cannot say. */
int aoe_cl_image_desc(cl_mem m, aoe_job_image *im);
/* Sampler s's properties (clGetSamplerInfo); 0, or -1. */
int aoe_cl_sampler_props(cl_sampler s, aoe_job_sampler *out);

#endif
