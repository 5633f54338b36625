/* Item 18 client: buffers the program never wrote must not be captured with
 * their contents (stale process memory). Fills freed heap memory with a
 * marker, then creates buffers without initialising them:
 *   - scale(in, out): `out` is never written before the launch (only by it);
 *   - fill(k): `k` is written only by this launch; a later scale reads `k`
 *     (written by a launch the shim saw: captured with contents);
 *   - `w` is written by clEnqueueWriteBuffer, then read by scale (captured).
 * Prints "stale_memory: ok" when every result is right. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 4096                    /* uints per buffer: 16 KiB, below malloc's mmap threshold */
#define MARKER "STALE_MEM_MARKER" /* 16 bytes, found by shim_capture_stale.sh */

static const char *src = "kernel void fill(global uint *b, uint v) { b[get_global_id(0)] = v; }\n"
                         "kernel void scale(global const uint *in, global uint *out)\n"
                         "{ size_t i = get_global_id(0); out[i] = in[i] * 2u; }\n";

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        cl_int e_ = (x);                                                                           \
        if (e_ != CL_SUCCESS) {                                                                    \
            fprintf(stderr, "stale_memory: %s failed: %d\n", #x, (int)e_);                         \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* Leaves the marker in freed heap chunks of about a buffer's size. */
static void churn(void)
{
    void *p[64];
    for (int round = 0; round < 4; round++) {
        for (int i = 0; i < 64; i++) {
            size_t sz = N * 4 + (size_t)(i % 8) * 512;
            p[i] = malloc(sz);
            if (!p[i]) exit(1);
            for (size_t o = 0; o + sizeof MARKER <= sz; o += sizeof MARKER - 1)
                memcpy((char *)p[i] + o, MARKER, sizeof MARKER - 1);
        }
        for (int i = 0; i < 64; i++) free(p[i]);
    }
}

static cl_mem buffer(cl_context ctx, cl_mem_flags flags, void *host)
{
    cl_int err;
    cl_mem m = clCreateBuffer(ctx, flags, N * 4, host, &err);
    CHECK(err);
    return m;
}

static void run(cl_command_queue q, cl_kernel k, size_t n)
{
    CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &n, NULL, 0, NULL, NULL));
    CHECK(clFinish(q));
}

int main(void)
{
    cl_platform_id plat;
    cl_device_id dev;
    cl_int err;
    CHECK(clGetPlatformIDs(1, &plat, NULL));
    CHECK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK(err);
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    CHECK(err);
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    CHECK(err);
    CHECK(clBuildProgram(prog, 1, &dev, "", NULL, NULL));
    cl_kernel scale1 = clCreateKernel(prog, "scale", &err);
    CHECK(err);
    cl_kernel scale2 = clCreateKernel(prog, "scale", &err);
    CHECK(err);
    cl_kernel scale3 = clCreateKernel(prog, "scale", &err);
    CHECK(err);
    cl_kernel fill = clCreateKernel(prog, "fill", &err);
    CHECK(err);

    uint32_t *host = malloc(N * 4), *back = malloc(N * 4);
    for (uint32_t i = 0; i < N; i++) host[i] = i;
    churn();
    cl_mem in = buffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, host);
    cl_mem out = buffer(ctx, CL_MEM_READ_WRITE, NULL);
    cl_mem k = buffer(ctx, CL_MEM_READ_WRITE, NULL);
    cl_mem w = buffer(ctx, CL_MEM_READ_WRITE, NULL);
    cl_mem out2 = buffer(ctx, CL_MEM_READ_WRITE, NULL);
    cl_mem out3 = buffer(ctx, CL_MEM_READ_WRITE, NULL);

    /* 1. out is written by this launch only */
    CHECK(clSetKernelArg(scale1, 0, sizeof in, &in));
    CHECK(clSetKernelArg(scale1, 1, sizeof out, &out));
    run(q, scale1, N);
    /* 2. k is written by fill, then read by a launch of another shape */
    cl_uint v = 0x4b454e52u; /* "RNEK" in memory */
    CHECK(clSetKernelArg(fill, 0, sizeof k, &k));
    CHECK(clSetKernelArg(fill, 1, sizeof v, &v));
    run(q, fill, N);
    CHECK(clSetKernelArg(scale2, 0, sizeof k, &k));
    CHECK(clSetKernelArg(scale2, 1, sizeof out2, &out2));
    run(q, scale2, N / 2);
    /* 3. w is written by the host, then read */
    uint32_t pattern[N];
    for (uint32_t i = 0; i < N; i++) pattern[i] = 0x54495257u; /* "WRIT" in memory */
    CHECK(clEnqueueWriteBuffer(q, w, CL_TRUE, 0, N * 4, pattern, 0, NULL, NULL));
    CHECK(clSetKernelArg(scale3, 0, sizeof w, &w));
    CHECK(clSetKernelArg(scale3, 1, sizeof out3, &out3));
    run(q, scale3, N / 4);

    int bad = 0;
    CHECK(clEnqueueReadBuffer(q, out, CL_TRUE, 0, N * 4, back, 0, NULL, NULL));
    for (uint32_t i = 0; i < N; i++) bad |= back[i] != 2 * i;
    CHECK(clEnqueueReadBuffer(q, out2, CL_TRUE, 0, N * 2, back, 0, NULL, NULL));
    for (uint32_t i = 0; i < N / 2; i++) bad |= back[i] != 2 * v;
    CHECK(clEnqueueReadBuffer(q, out3, CL_TRUE, 0, N, back, 0, NULL, NULL));
    for (uint32_t i = 0; i < N / 4; i++) bad |= back[i] != 2 * pattern[0];
    printf("stale_memory: %s\n", bad ? "MISMATCH" : "ok");
    cl_mem all[] = {in, out, k, w, out2, out3};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) clReleaseMemObject(all[i]);
    clReleaseKernel(scale1), clReleaseKernel(scale2), clReleaseKernel(scale3),
        clReleaseKernel(fill);
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    free(host), free(back);
    return bad;
}
