/* Test client: loads libOpenCL with dlopen(RTLD_LOCAL) and looks up every
 * function it calls with dlsym, as plugin hosts and language bindings do.
 * A 2-D copy-transpose with a NULL local size; --checksum prints a checksum
 * of the output, --repeat N launches N times; --which prints the object each
 * looked-up function comes from (the shim must hand out its wrappers);
 * --rounds N does it all N times, each time from dlopen to dlclose (a plugin
 * host unloading and loading the runtime again). */
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUNCS(X)                                                                                   \
    X(clGetPlatformIDs)                                                                            \
    X(clGetDeviceIDs)                                                                              \
    X(clCreateContext)                                                                             \
    X(clCreateCommandQueueWithProperties)                                                          \
    X(clCreateProgramWithSource)                                                                   \
    X(clBuildProgram)                                                                              \
    X(clCreateKernel)                                                                              \
    X(clCreateBuffer)                                                                              \
    X(clSetKernelArg)                                                                              \
    X(clEnqueueWriteBuffer)                                                                        \
    X(clEnqueueNDRangeKernel)                                                                      \
    X(clEnqueueReadBuffer)                                                                         \
    X(clFinish)                                                                                    \
    X(clReleaseMemObject)                                                                          \
    X(clReleaseKernel)                                                                             \
    X(clReleaseProgram)                                                                            \
    X(clReleaseCommandQueue)                                                                       \
    X(clReleaseContext)

#define DECL(fn) static __typeof__(&fn) p_##fn;
FUNCS(DECL)
#undef DECL

static const char *src =
    "__kernel void tr(__global const float *in, __global float *out, int w, int h) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  out[x * h + y] = in[y * w + x] * 2.0f + 1.0f;\n"
    "}\n";

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cl_int e_ = (call);                                                                        \
        if (e_ != CL_SUCCESS) {                                                                    \
            fprintf(stderr, "dlopen_client: %s failed: %d\n", #call, e_);                          \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

static int one_round(int checksum, int which, int repeat)
{
    void *lib = dlopen("libOpenCL.so.1", RTLD_LOCAL | RTLD_NOW);
    if (!lib) {
        fprintf(stderr, "dlopen_client: %s\n", dlerror());
        return 1;
    }
#define LOOK(fn)                                                                                   \
    if (!(*(void **)&p_##fn = dlsym(lib, #fn))) {                                                  \
        fprintf(stderr, "dlopen_client: dlsym(%s) failed\n", #fn);                                 \
        return 1;                                                                                  \
    }                                                                                              \
    if (which) {                                                                                   \
        Dl_info info;                                                                              \
        if (dladdr(*(void **)&p_##fn, &info))                                                      \
            printf("%s %s\n", #fn,                                                                 \
                   strrchr(info.dli_fname, '/') ? strrchr(info.dli_fname, '/') + 1                 \
                                                : info.dli_fname);                                 \
    }
    FUNCS(LOOK)
#undef LOOK
    cl_platform_id plat;
    cl_device_id dev;
    cl_int err;
    CHECK(p_clGetPlatformIDs(1, &plat, NULL));
    CHECK(p_clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
    cl_context ctx = p_clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK(err);
    cl_command_queue q = p_clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    CHECK(err);
    cl_program prog = p_clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    CHECK(err);
    CHECK(p_clBuildProgram(prog, 1, &dev, "", NULL, NULL));
    cl_kernel k = p_clCreateKernel(prog, "tr", &err);
    CHECK(err);
    const int w = 512, h = 256;
    size_t n = (size_t)w * h;
    float *in = malloc(n * 4), *out = malloc(n * 4);
    if (!in || !out) return 1;
    for (size_t i = 0; i < n; i++) in[i] = (float)((i * 2654435761u) % 1000) / 7.0f;
    cl_mem din = p_clCreateBuffer(ctx, CL_MEM_READ_ONLY, n * 4, NULL, &err);
    CHECK(err);
    cl_mem dout = p_clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, n * 4, NULL, &err);
    CHECK(err);
    CHECK(p_clEnqueueWriteBuffer(q, din, CL_TRUE, 0, n * 4, in, 0, NULL, NULL));
    CHECK(p_clSetKernelArg(k, 0, sizeof din, &din));
    CHECK(p_clSetKernelArg(k, 1, sizeof dout, &dout));
    CHECK(p_clSetKernelArg(k, 2, sizeof w, &w));
    CHECK(p_clSetKernelArg(k, 3, sizeof h, &h));
    size_t global[2] = {(size_t)w, (size_t)h};
    for (int r = 0; r < repeat; r++)
        CHECK(p_clEnqueueNDRangeKernel(q, k, 2, NULL, global, NULL, 0, NULL, NULL));
    CHECK(p_clEnqueueReadBuffer(q, dout, CL_TRUE, 0, n * 4, out, 0, NULL, NULL));
    CHECK(p_clFinish(q));
    uint64_t hsum = 1469598103934665603ull;
    const unsigned char *b = (const unsigned char *)out;
    for (size_t i = 0; i < n * 4; i++) hsum = (hsum ^ b[i]) * 1099511628211ull;
    printf("dlopen_client: launches=%d ok\n", repeat);
    if (checksum) printf("checksum=%016llx\n", (unsigned long long)hsum);
    p_clReleaseMemObject(din);
    p_clReleaseMemObject(dout);
    p_clReleaseKernel(k);
    p_clReleaseProgram(prog);
    p_clReleaseCommandQueue(q);
    p_clReleaseContext(ctx);
    free(in);
    free(out);
    dlclose(lib);
    return 0;
}

int main(int argc, char **argv)
{
    int checksum = 0, which = 0, repeat = 1, rounds = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--checksum"))
            checksum = 1;
        else if (!strcmp(argv[i], "--which"))
            which = 1;
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else {
            fprintf(stderr,
                    "usage: dlopen_client [--checksum] [--which] [--repeat N] [--rounds N]\n");
            return 2;
        }
    }
    for (int r = 0; r < rounds; r++)
        if (one_round(checksum, which, repeat)) return 1;
    return 0;
}
