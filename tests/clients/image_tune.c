/* Test client: two image kernels launched with a NULL local size on the
 * first OpenCL device, --repeat N times each (default 1). rgba_blur reads a
 * 2-D CL_RGBA/CL_UNORM_INT8 image through a sampler passed as an argument
 * (clCreateSampler) and writes a write-only image2d_t; r_scale reads a 2-D
 * CL_R/CL_FLOAT image through a sampler declared in the source and writes a
 * buffer. Prints "checksum=<16 hex>" of both outputs (FNV-1a of the bytes
 * read back), so a run under the shim compares bit for bit with one without
 * (tests/integration/shim_image_tune.sh). */
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include "tests/support/testcl.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 64
#define H 48

static const char *src =
    "__constant sampler_t fixed = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE |\n"
    "                             CLK_FILTER_NEAREST;\n"
    "__kernel void rgba_blur(__read_only image2d_t in, sampler_t smp,\n"
    "                        __write_only image2d_t out) {\n"
    "    int x = get_global_id(0), y = get_global_id(1);\n"
    "    float4 s = (float4)(0.0f);\n"
    "    for (int dy = -1; dy <= 1; dy++)\n"
    "        for (int dx = -1; dx <= 1; dx++) s += read_imagef(in, smp, (int2)(x + dx, y + dy));\n"
    "    write_imagef(out, (int2)(x, y), s / 9.0f);\n"
    "}\n"
    "__kernel void r_scale(__read_only image2d_t in, __global float *out, float k) {\n"
    "    int x = get_global_id(0), y = get_global_id(1);\n"
    "    float a = read_imagef(in, fixed, (int2)(x, y)).x;\n"
    "    float b = read_imagef(in, fixed, (int2)(x + 1, y)).x;\n"
    "    out[y * get_global_size(0) + x] = a * k + b;\n"
    "}\n";

static void check(cl_int rc, const char *what)
{
    if (rc != CL_SUCCESS) {
        fprintf(stderr, "image_tune: %s failed (%d)\n", what, rc);
        exit(1);
    }
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

int main(int argc, char **argv)
{
    int repeat = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else
            repeat = 0;
    }
    if (repeat < 1) {
        fprintf(stderr, "usage: image_tune [--repeat N]\n");
        return 2;
    }
    tc_env e;
    tc_init(&e);
    cl_int rc;
    cl_program prog = clCreateProgramWithSource(e.ctx, 1, &src, NULL, &rc);
    check(rc, "clCreateProgramWithSource");
    check(clBuildProgram(prog, 1, &e.device, "", NULL, NULL), "clBuildProgram");
    cl_kernel kblur = clCreateKernel(prog, "rgba_blur", &rc);
    check(rc, "clCreateKernel rgba_blur");
    cl_kernel kscale = clCreateKernel(prog, "r_scale", &rc);
    check(rc, "clCreateKernel r_scale");

    static unsigned char rgba[W * H * 4], blurred[W * H * 4];
    static float red[W * H], out[W * H];
    for (int i = 0; i < W * H * 4; i++) rgba[i] = (unsigned char)((i * 37 + i / 7) & 0xff);
    for (int i = 0; i < W * H; i++) red[i] = (float)(i % 13) * 0.25f - 1.0f;
    cl_image_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = W;
    desc.image_height = H;
    cl_image_format f8 = {CL_RGBA, CL_UNORM_INT8}, ff = {CL_R, CL_FLOAT};
    cl_mem in8 =
        clCreateImage(e.ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &f8, &desc, rgba, &rc);
    check(rc, "clCreateImage rgba in");
    cl_mem out8 = clCreateImage(e.ctx, CL_MEM_WRITE_ONLY, &f8, &desc, NULL, &rc);
    check(rc, "clCreateImage rgba out");
    cl_mem inf = clCreateImage(e.ctx, CL_MEM_READ_ONLY, &ff, &desc, NULL, &rc);
    check(rc, "clCreateImage r in");
    size_t origin[3] = {0, 0, 0}, region[3] = {W, H, 1};
    check(clEnqueueWriteImage(e.queue, inf, CL_TRUE, origin, region, 0, 0, red, 0, NULL, NULL),
          "clEnqueueWriteImage");
    cl_mem dout = clCreateBuffer(e.ctx, CL_MEM_WRITE_ONLY, sizeof out, NULL, &rc);
    check(rc, "clCreateBuffer out");
    cl_sampler smp =
        clCreateSampler(e.ctx, CL_FALSE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST, &rc);
    check(rc, "clCreateSampler");

    float k = 3.0f;
    check(clSetKernelArg(kblur, 0, sizeof in8, &in8), "arg in");
    check(clSetKernelArg(kblur, 1, sizeof smp, &smp), "arg sampler");
    check(clSetKernelArg(kblur, 2, sizeof out8, &out8), "arg out");
    check(clSetKernelArg(kscale, 0, sizeof inf, &inf), "arg in");
    check(clSetKernelArg(kscale, 1, sizeof dout, &dout), "arg out");
    check(clSetKernelArg(kscale, 2, sizeof k, &k), "arg k");
    size_t g[2] = {W, H};
    for (int r = 0; r < repeat; r++) {
        check(clEnqueueNDRangeKernel(e.queue, kblur, 2, NULL, g, NULL, 0, NULL, NULL), "rgba_blur");
        check(clEnqueueNDRangeKernel(e.queue, kscale, 2, NULL, g, NULL, 0, NULL, NULL), "r_scale");
    }
    check(clEnqueueReadImage(e.queue, out8, CL_TRUE, origin, region, 0, 0, blurred, 0, NULL, NULL),
          "clEnqueueReadImage");
    check(clEnqueueReadBuffer(e.queue, dout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL), "read");
    uint64_t h = fnv(0xcbf29ce484222325ull, blurred, sizeof blurred);
    h = fnv(h, out, sizeof out);
    printf("image_tune: launches=%d checksum=%016llx\n", repeat, (unsigned long long)h);
    clReleaseMemObject(in8);
    clReleaseMemObject(out8);
    clReleaseMemObject(inf);
    clReleaseMemObject(dout);
    clReleaseSampler(smp);
    clReleaseKernel(kblur);
    clReleaseKernel(kscale);
    clReleaseProgram(prog);
    tc_release(&e);
    return 0;
}
