/* Test client for the shim's first-sight decision (issue 16 item 4): one
 * program, three kernels, each launched --repeat N times (default 2) on the
 * first OpenCL device:
 *   own_plain    its own local size, nothing the tuner could vary
 *   own_default  its own local size and an `#ifndef FS_TILE` default in
 *                its program (tunable with AOE_AUTO_DEFINES)
 *   null_local   a NULL local size (the work-group size is tunable)
 * Results are checked against the CPU unless --no-check (the fake runtime
 * of tests/fakecl runs nothing). Prints "first_sight: launches=N ok". */
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 256

static void check(cl_int rc, const char *what)
{
    if (rc != CL_SUCCESS) {
        fprintf(stderr, "first_sight: %s failed (%d)\n", what, rc);
        exit(1);
    }
}

/* Two programs: the auto-defines scanner reads a whole program's source. */
static const char *src_plain = "__kernel void own_plain(__global float *b) {\n"
                               "    b[get_global_id(0)] += 1.0f;\n"
                               "}\n"
                               "__kernel void null_local(__global float *b) {\n"
                               "    b[get_global_id(0)] -= 1.0f;\n"
                               "}\n";
static const char *src_default = "#ifndef FS_TILE\n"
                                 "#define FS_TILE 4\n"
                                 "#endif\n"
                                 "__kernel void own_default(__global float *b) {\n"
                                 "    size_t i = get_global_id(0);\n"
                                 "    if (i % FS_TILE < FS_TILE) b[i] *= 2.0f;\n"
                                 "}\n";

static cl_program build(cl_context ctx, cl_device_id dev, const char *src)
{
    cl_int rc;
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &rc);
    check(rc, "clCreateProgramWithSource");
    check(clBuildProgram(prog, 1, &dev, "", NULL, NULL), "clBuildProgram");
    return prog;
}

int main(int argc, char **argv)
{
    int repeat = 2, verify = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
            repeat = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--no-check")) {
            verify = 0;
        } else {
            fprintf(stderr, "usage: first_sight [--repeat N] [--no-check]\n");
            return 2;
        }
    }
    if (repeat < 1) return 2;
    cl_platform_id plat;
    cl_device_id dev;
    cl_int rc;
    check(clGetPlatformIDs(1, &plat, NULL), "clGetPlatformIDs");
    check(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL), "clGetDeviceIDs");
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &rc);
    check(rc, "clCreateContext");
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &rc);
    check(rc, "clCreateCommandQueue");
    cl_program prog = build(ctx, dev, src_plain), prog_default = build(ctx, dev, src_default);
    static const char *const names[3] = {"own_plain", "own_default", "null_local"};
    cl_kernel k[3];
    float host[N], out[N];
    for (int i = 0; i < N; i++) host[i] = (float)(i % 5);
    cl_mem buf =
        clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof host, host, &rc);
    check(rc, "clCreateBuffer");
    for (int i = 0; i < 3; i++) {
        k[i] = clCreateKernel(i == 1 ? prog_default : prog, names[i], &rc);
        check(rc, names[i]);
        check(clSetKernelArg(k[i], 0, sizeof buf, &buf), "clSetKernelArg");
    }
    size_t global = N, local = 16;
    for (int r = 0; r < repeat; r++) {
        check(clEnqueueNDRangeKernel(q, k[0], 1, NULL, &global, &local, 0, NULL, NULL), names[0]);
        check(clEnqueueNDRangeKernel(q, k[1], 1, NULL, &global, &local, 0, NULL, NULL), names[1]);
        check(clEnqueueNDRangeKernel(q, k[2], 1, NULL, &global, NULL, 0, NULL, NULL), names[2]);
        for (int i = 0; i < N; i++) host[i] = (host[i] + 1.0f) * 2.0f - 1.0f;
    }
    check(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL), "read");
    int bad = 0;
    for (int i = 0; verify && i < N; i++) bad |= out[i] != host[i];
    printf("first_sight: launches=%d %s\n", repeat, bad ? "MISMATCH" : "ok");
    for (int i = 0; i < 3; i++) clReleaseKernel(k[i]);
    clReleaseMemObject(buf);
    clReleaseProgram(prog);
    clReleaseProgram(prog_default);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return bad;
}
