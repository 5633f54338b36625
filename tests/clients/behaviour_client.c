/* Test client: program-visible behaviour that the shim must not change.
 * Prints one line per check: the status the runtime returned (error codes of
 * invalid calls included), event states and profiling order, and a checksum
 * of a valid launch's output. Runs with and without the shim must print the
 * same lines. */
#include <CL/cl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char *src = "__kernel void scale(__global float *p, float f, int n) {\n"
                         "  int i = get_global_id(0);\n"
                         "  if (i < n) p[i] = p[i] * f + (float)i;\n"
                         "}\n";

#define SHOW(name, expr) printf("%s=%d\n", name, (int)(expr))

int main(void)
{
    cl_platform_id plat;
    cl_device_id dev;
    cl_int err;
    if (clGetPlatformIDs(1, &plat, NULL) || clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL))
        return 1;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, props, &err);
    /* (NULL kernel or queue handles crash PoCL itself: not checked here.) */
    const char *bad = "__kernel void broken( { }";
    cl_program pb = clCreateProgramWithSource(ctx, 1, &bad, NULL, &err);
    SHOW("build_broken", clBuildProgram(pb, 1, &dev, "", NULL, NULL));
    clReleaseProgram(pb);
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    SHOW("build", clBuildProgram(p, 1, &dev, "", NULL, NULL));
    cl_kernel missing = clCreateKernel(p, "no_such_kernel", &err);
    SHOW("create_missing_kernel", err);
    SHOW("missing_is_null", missing == NULL);
    cl_kernel k = clCreateKernel(p, "scale", &err);
    SHOW("create_kernel", err);
    enum { N = 1000 };
    float host[N];
    for (int i = 0; i < N; i++) host[i] = (float)(i % 17);
    cl_mem buf =
        clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof host, host, &err);
    size_t g = 1024, l7 = 7, l1000 = 1000;
    SHOW("launch_unset_args", clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL));
    float f = 2.0f;
    int n = N;
    SHOW("arg_bad_index", clSetKernelArg(k, 7, sizeof f, &f));
    SHOW("arg_bad_size", clSetKernelArg(k, 1, 3, &f));
    SHOW("arg0", clSetKernelArg(k, 0, sizeof buf, &buf));
    SHOW("arg1", clSetKernelArg(k, 1, sizeof f, &f));
    SHOW("arg2", clSetKernelArg(k, 2, sizeof n, &n));
    SHOW("launch_dim0", clEnqueueNDRangeKernel(q, k, 0, NULL, &g, NULL, 0, NULL, NULL));
    SHOW("launch_null_global", clEnqueueNDRangeKernel(q, k, 1, NULL, NULL, NULL, 0, NULL, NULL));
    SHOW("launch_local_not_dividing",
         clEnqueueNDRangeKernel(q, k, 1, NULL, &l1000, &l7, 0, NULL, NULL));
    size_t huge = (size_t)1 << 20;
    SHOW("launch_local_too_big",
         clEnqueueNDRangeKernel(q, k, 1, NULL, &huge, &huge, 0, NULL, NULL));
    cl_event ev = NULL;
    for (int r = 0; r < 3; r++) {
        SHOW("launch", clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, &ev));
        SHOW("wait", clWaitForEvents(1, &ev));
        cl_int st = 1;
        clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
        SHOW("event_status", st);
        cl_command_type ct = 0;
        clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof ct, &ct, NULL);
        SHOW("event_type_ndrange", ct == CL_COMMAND_NDRANGE_KERNEL);
        cl_command_queue eq = NULL;
        clGetEventInfo(ev, CL_EVENT_COMMAND_QUEUE, sizeof eq, &eq, NULL);
        SHOW("event_queue_same", eq == q);
        cl_ulong qd = 0, s = 0, e = 0;
        SHOW("prof_queued",
             clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_QUEUED, sizeof qd, &qd, NULL));
        SHOW("prof_start",
             clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof s, &s, NULL));
        SHOW("prof_end", clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof e, &e, NULL));
        SHOW("prof_ordered", qd <= s && s <= e);
        SHOW("release_event", clReleaseEvent(ev));
    }
    /* the program's own kernel keeps its arguments: query one back */
    cl_uint nargs = 0;
    clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL);
    SHOW("num_args", nargs);
    SHOW("read", clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL));
    uint64_t h = 1469598103934665603ull;
    const unsigned char *b = (const unsigned char *)host;
    for (size_t i = 0; i < sizeof host; i++) h = (h ^ b[i]) * 1099511628211ull;
    printf("checksum=%016llx\n", (unsigned long long)h);
    SHOW("release_kernel", clReleaseKernel(k));
    SHOW("release_mem", clReleaseMemObject(buf));
    SHOW("release_program", clReleaseProgram(p));
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return 0;
}
