/* Test client: one program with two image kernels (img_scale: an image2d_t
 * read through a sampler_t; img_buf: an image1d_buffer_t made from a buffer,
 * whose pixels the shim cannot replay) and two buffer kernels (vec_scale,
 * vec_offset),
 * each launched --repeat N times (default 2) on the first OpenCL device,
 * results checked against the CPU. --unseen: a kernel object of vec_copy is
 * also created through libOpenCL's own clCreateKernel (dlvsym, which the
 * shim does not wrap) and launched once through the ordinary symbol.
 * --local L: vec_scale is launched with local size L (its own choice, and
 * no tunables: the tuner finds nothing to tune). The shim tunes img_scale
 * and the buffer kernels and passes img_buf through, naming it under
 * "not_tuned" (tests/integration/shim_not_tuned.sh). */
#include "tests/support/testcl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 32
#define H 16

static const char *src =
    "__kernel void img_scale(__read_only image2d_t img, sampler_t smp, __global float *out) {\n"
    "    int x = get_global_id(0), y = get_global_id(1);\n"
    "    out[y * get_global_size(0) + x] = read_imagef(img, smp, (int2)(x, y)).x * 2.0f;\n"
    "}\n"
    "__kernel void img_buf(__read_only image1d_buffer_t img, __global float *out) {\n"
    "    int i = get_global_id(0);\n"
    "    out[i] = read_imagef(img, i).x * 2.0f;\n"
    "}\n"
    "__kernel void vec_scale(__global const float *a, __global float *b) {\n"
    "    size_t i = get_global_id(0);\n"
    "    b[i] = a[i] * 2.0f;\n"
    "}\n"
    "__kernel void vec_copy(__global const float *a, __global float *b) {\n"
    "    b[get_global_id(0)] = a[get_global_id(0)];\n"
    "}\n"
    "__kernel void vec_offset(__global float *b) {\n"
    "    size_t i = get_global_id(0);\n"
    "    b[i] += 1.0f;\n"
    "}\n";

static void check(cl_int rc, const char *what)
{
    if (rc != CL_SUCCESS) {
        fprintf(stderr, "image_kernels: %s failed (%d)\n", what, rc);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    int repeat = 2, unseen = 0;
    size_t local = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--local") && i + 1 < argc)
            local = (size_t)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--unseen"))
            unseen = 1;
        else
            repeat = 0;
    }
    if (repeat < 1) {
        fprintf(stderr, "usage: image_kernels [--repeat N] [--unseen] [--local L]\n");
        return 2;
    }
    tc_env e;
    tc_init(&e);
    cl_int rc;
    cl_program prog = clCreateProgramWithSource(e.ctx, 1, &src, NULL, &rc);
    check(rc, "clCreateProgramWithSource");
    check(clBuildProgram(prog, 1, &e.device, "", NULL, NULL), "clBuildProgram");
    cl_kernel kimg = clCreateKernel(prog, "img_scale", &rc);
    check(rc, "clCreateKernel img_scale");
    cl_kernel kbuf = clCreateKernel(prog, "img_buf", &rc);
    check(rc, "clCreateKernel img_buf");
    cl_kernel kscale = clCreateKernel(prog, "vec_scale", &rc);
    check(rc, "clCreateKernel vec_scale");
    cl_kernel koff = clCreateKernel(prog, "vec_offset", &rc);
    check(rc, "clCreateKernel vec_offset");

    float pix[W * H], out[W * H], a[W * H];
    for (int i = 0; i < W * H; i++) pix[i] = a[i] = (float)(i % 7);
    cl_image_format fmt = {CL_R, CL_FLOAT};
    cl_image_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = W;
    desc.image_height = H;
    cl_mem img =
        clCreateImage(e.ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &fmt, &desc, pix, &rc);
    check(rc, "clCreateImage");
    cl_sampler_properties props[] = {CL_SAMPLER_NORMALIZED_COORDS,
                                     CL_FALSE,
                                     CL_SAMPLER_ADDRESSING_MODE,
                                     CL_ADDRESS_CLAMP_TO_EDGE,
                                     CL_SAMPLER_FILTER_MODE,
                                     CL_FILTER_NEAREST,
                                     0};
    cl_sampler smp = clCreateSamplerWithProperties(e.ctx, props, &rc);
    check(rc, "clCreateSamplerWithProperties");
    cl_mem dpix =
        clCreateBuffer(e.ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof pix, pix, &rc);
    check(rc, "clCreateBuffer pix");
    memset(&desc, 0, sizeof desc);
    desc.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER;
    desc.image_width = W * H;
    desc.buffer = dpix;
    cl_mem bimg = clCreateImage(e.ctx, CL_MEM_READ_ONLY, &fmt, &desc, NULL, &rc);
    check(rc, "clCreateImage from a buffer");
    cl_mem dout = clCreateBuffer(e.ctx, CL_MEM_READ_WRITE, sizeof out, NULL, &rc);
    check(rc, "clCreateBuffer out");
    cl_mem da = clCreateBuffer(e.ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof a, a, &rc);
    check(rc, "clCreateBuffer a");

    check(clSetKernelArg(kimg, 0, sizeof img, &img), "arg img");
    check(clSetKernelArg(kimg, 1, sizeof smp, &smp), "arg sampler");
    check(clSetKernelArg(kimg, 2, sizeof dout, &dout), "arg out");
    check(clSetKernelArg(kbuf, 0, sizeof bimg, &bimg), "arg buffer image");
    check(clSetKernelArg(kbuf, 1, sizeof dout, &dout), "arg out");
    check(clSetKernelArg(kscale, 0, sizeof da, &da), "arg a");
    check(clSetKernelArg(kscale, 1, sizeof dout, &dout), "arg b");
    check(clSetKernelArg(koff, 0, sizeof dout, &dout), "arg b");
    size_t g2[2] = {W, H}, g1[1] = {W * H}, l1[1] = {local};
    int bad = 0;
    for (int r = 0; r < repeat; r++) {
        check(clEnqueueNDRangeKernel(e.queue, kimg, 2, NULL, g2, NULL, 0, NULL, NULL), "img_scale");
        check(clEnqueueReadBuffer(e.queue, dout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL),
              "read");
        for (int i = 0; i < W * H; i++) bad |= out[i] != pix[i] * 2.0f;
        check(clEnqueueNDRangeKernel(e.queue, kbuf, 1, NULL, g1, NULL, 0, NULL, NULL), "img_buf");
        check(clEnqueueReadBuffer(e.queue, dout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL),
              "read");
        for (int i = 0; i < W * H; i++) bad |= out[i] != pix[i] * 2.0f;
        check(
            clEnqueueNDRangeKernel(e.queue, kscale, 1, NULL, g1, local ? l1 : NULL, 0, NULL, NULL),
            "vec_scale");
        check(clEnqueueNDRangeKernel(e.queue, koff, 1, NULL, g1, NULL, 0, NULL, NULL),
              "vec_offset");
        check(clEnqueueReadBuffer(e.queue, dout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL),
              "read");
        for (int i = 0; i < W * H; i++) bad |= out[i] != a[i] * 2.0f + 1.0f;
    }
    if (unseen) {
        typedef __typeof__(&clCreateKernel) create_fn;
        void *lib = dlopen("libOpenCL.so.1", RTLD_LAZY | RTLD_NOLOAD);
        create_fn create = lib ? (create_fn)dlvsym(lib, "clCreateKernel", "OPENCL_1.0") : NULL;
        if (!create) {
            fprintf(stderr, "image_kernels: no clCreateKernel@OPENCL_1.0 in libOpenCL.so.1\n");
            return 1;
        }
        cl_kernel kcopy = create(prog, "vec_copy", &rc);
        check(rc, "clCreateKernel@OPENCL_1.0 vec_copy");
        check(clSetKernelArg(kcopy, 0, sizeof da, &da), "arg a");
        check(clSetKernelArg(kcopy, 1, sizeof dout, &dout), "arg b");
        check(clEnqueueNDRangeKernel(e.queue, kcopy, 1, NULL, g1, NULL, 0, NULL, NULL), "vec_copy");
        check(clFinish(e.queue), "clFinish");
        clReleaseKernel(kcopy);
    }
    printf("image_kernels: launches=%d %s\n", repeat, bad ? "MISMATCH" : "ok");
    clReleaseMemObject(img);
    clReleaseMemObject(bimg);
    clReleaseMemObject(dpix);
    clReleaseMemObject(dout);
    clReleaseMemObject(da);
    clReleaseSampler(smp);
    clReleaseKernel(kimg);
    clReleaseKernel(kbuf);
    clReleaseKernel(kscale);
    clReleaseKernel(koff);
    clReleaseProgram(prog);
    tc_release(&e);
    return bad;
}
