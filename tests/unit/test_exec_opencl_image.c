/* The OpenCL executor's image checks before any device is opened
 * (tuner/exec_opencl_image.c): the types a job can hold, the extents each
 * type has, pixel_bytes against the format, the element type pixels are
 * verified as, and the format's name in messages. */
#include "tuner/exec.h"
#include "tuner/exec_opencl_image.h"

#include <criterion/criterion.h>
#include <string.h>

static aoe_job_arg args[2];
static aoe_job job;

static void setup(void)
{
    args[0] = (aoe_job_arg){.kind = AOE_JOB_ARG_SAMPLER};
    args[1] =
        (aoe_job_arg){.kind = AOE_JOB_ARG_IMAGE,
                      .size = 64,
                      .image = {CL_MEM_OBJECT_IMAGE2D, CL_RGBA, CL_UNORM_INT8, 4, 4, 4, 0, 0}};
    memset(&job, 0, sizeof job);
    job.nargs = 2;
    job.args = args;
}

TestSuite(exec_opencl_image, .init = setup);

static aoe_exec_status check(char *detail, size_t len)
{
    detail[0] = '\0';
    return aoe_cl_image_check(&job, detail, len);
}

Test(exec_opencl_image, every_image_type_a_job_holds)
{
    char d[256];
    cr_expect_eq(check(d, sizeof d), AOE_EXEC_OK, "%s", d);
    aoe_job_image *im = &args[1].image;
    *im = (aoe_job_image){CL_MEM_OBJECT_IMAGE1D, CL_R, CL_FLOAT, 4, 16, 0, 0, 0};
    cr_expect_eq(check(d, sizeof d), AOE_EXEC_OK, "%s", d);
    *im = (aoe_job_image){CL_MEM_OBJECT_IMAGE1D_ARRAY, CL_R, CL_FLOAT, 4, 4, 0, 0, 4};
    cr_expect_eq(check(d, sizeof d), AOE_EXEC_OK, "%s", d);
    *im = (aoe_job_image){CL_MEM_OBJECT_IMAGE2D_ARRAY, CL_RG, CL_HALF_FLOAT, 4, 2, 2, 0, 4};
    cr_expect_eq(check(d, sizeof d), AOE_EXEC_OK, "%s", d);
    *im = (aoe_job_image){CL_MEM_OBJECT_IMAGE3D, CL_RGBA, CL_SIGNED_INT32, 16, 2, 2, 1, 0};
    cr_expect_eq(check(d, sizeof d), AOE_EXEC_OK, "%s", d);
}

Test(exec_opencl_image, refusals_name_the_argument)
{
    char d[256];
    aoe_job_image *im = &args[1].image;
    im->type = CL_MEM_OBJECT_IMAGE1D_BUFFER;
    cr_expect_eq(check(d, sizeof d), AOE_EXEC_UNSUPPORTED);
    cr_expect_str_eq(d, "args[1]: image type 0x10f6 is not one the executor creates (an image "
                        "made from a buffer)");
    im->type = CL_MEM_OBJECT_BUFFER;
    cr_expect_eq(check(d, sizeof d), AOE_EXEC_BAD_JOB);
    setup();
    args[1].image.depth = 3;
    cr_expect_eq(check(d, sizeof d), AOE_EXEC_BAD_JOB);
    cr_expect_str_eq(d, "args[1]: image of type 0x10f1 has no depth, the job says 3");
    setup();
    args[1].image.height = 0;
    cr_expect_eq(check(d, sizeof d), AOE_EXEC_BAD_JOB);
    cr_expect_str_eq(d, "args[1]: image height is 0");
    setup();
    args[1].image.pixel_bytes = 3;
    cr_expect_eq(check(d, sizeof d), AOE_EXEC_BAD_JOB);
    cr_expect_str_eq(d, "args[1]: pixel_bytes 3 does not match the image format "
                        "CL_RGBA/CL_UNORM_INT8 (4 bytes)");
    setup();
    args[1].image.data_type = CL_UNORM_SHORT_565;
    args[1].image.order = CL_RGB;
    cr_expect_eq(check(d, sizeof d), AOE_EXEC_BAD_JOB, "packed: 2 bytes a pixel");
    args[1].image.pixel_bytes = 2;
    cr_expect_eq(check(d, sizeof d), AOE_EXEC_OK, "%s", d);
    args[1].image.order = 0x4242; /* not one this table knows: the runtime decides */
    cr_expect_eq(check(d, sizeof d), AOE_EXEC_OK, "%s", d);
}

Test(exec_opencl_image, pixels_verified_by_their_channel_type)
{
    const struct {
        uint32_t type;
        aoe_elem_type elem;
    } cases[] = {{CL_FLOAT, AOE_ELEM_F32},
                 {CL_HALF_FLOAT, AOE_ELEM_F16},
                 {CL_SIGNED_INT8, AOE_ELEM_I8},
                 {CL_UNSIGNED_INT8, AOE_ELEM_U8},
                 {CL_SIGNED_INT16, AOE_ELEM_I16},
                 {CL_UNSIGNED_INT16, AOE_ELEM_U16},
                 {CL_SIGNED_INT32, AOE_ELEM_I32},
                 {CL_UNSIGNED_INT32, AOE_ELEM_U32},
                 {CL_UNORM_INT8, AOE_ELEM_BYTES},
                 {CL_SNORM_INT16, AOE_ELEM_BYTES},
                 {CL_UNORM_INT_101010, AOE_ELEM_BYTES}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        args[1].image.data_type = cases[i].type;
        cr_expect_eq(aoe_cl_image_elem(&job, 1), cases[i].elem, "data type 0x%x", cases[i].type);
    }
    cr_expect_eq(aoe_cl_image_elem(&job, 0), AOE_ELEM_BYTES, "a sampler");
    cr_expect_eq(aoe_cl_image_elem(&job, 2), AOE_ELEM_BYTES, "past the arguments");
    cr_expect_eq(aoe_exec_opencl.image_elem, aoe_cl_image_elem, "the executor's op");
}

Test(exec_opencl_image, format_names)
{
    char n[64];
    aoe_cl_format_name(CL_R, CL_FLOAT, n, sizeof n);
    cr_expect_str_eq(n, "CL_R/CL_FLOAT");
    aoe_cl_format_name(CL_sBGRA, CL_UNORM_INT_101010_2, n, sizeof n);
    cr_expect_str_eq(n, "CL_sBGRA/CL_UNORM_INT_101010_2");
    aoe_cl_format_name(0x4242, 0x1, n, sizeof n);
    cr_expect_str_eq(n, "0x4242/0x1");
}
