/* Test client: several threads launch kernels at once on one context and
 * queue, each with its own kernel object and buffers (a NULL local size, so
 * work-group size tuning applies). --threads N (default 4), --repeat R
 * launches per thread (default 1); --checksum prints one checksum over every
 * thread's output. Output does not depend on thread scheduling. */
#include <CL/cl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THREADS 16
enum { W = 256, H = 128 };

static const char *src =
    "__kernel void mt_tr(__global const float *in, __global float *out, int w, int h) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  out[x * h + y] = in[y * w + x] * 3.0f + 1.0f;\n"
    "}\n";

static cl_context g_ctx;
static cl_command_queue g_queue;
static cl_program g_prog;
static int g_repeat = 1;

typedef struct {
    int id;
    float *out;
    const char *failed; /* the call that failed, or NULL */
    cl_int err;
} job;

#define TRY(call)                                                                                  \
    do {                                                                                           \
        cl_int e_ = (call);                                                                        \
        if (e_ != CL_SUCCESS) {                                                                    \
            j->failed = #call, j->err = e_;                                                        \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

static void *worker(void *arg)
{
    job *j = arg;
    size_t n = (size_t)W * H;
    cl_int err = CL_SUCCESS;
    cl_mem din = NULL, dout = NULL;
    float *in = malloc(n * sizeof *in);
    cl_kernel k = clCreateKernel(g_prog, "mt_tr", &err);
    TRY(err);
    if (!in) TRY(CL_OUT_OF_HOST_MEMORY);
    for (size_t i = 0; i < n; i++) in[i] = (float)((i * 2654435761u + (unsigned)j->id) % 1000);
    din = clCreateBuffer(g_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 4, in, &err);
    TRY(err);
    dout = clCreateBuffer(g_ctx, CL_MEM_WRITE_ONLY, n * 4, NULL, &err);
    TRY(err);
    int w = W, h = H;
    TRY(clSetKernelArg(k, 0, sizeof din, &din));
    TRY(clSetKernelArg(k, 1, sizeof dout, &dout));
    TRY(clSetKernelArg(k, 2, sizeof w, &w));
    TRY(clSetKernelArg(k, 3, sizeof h, &h));
    size_t global[2] = {W, H};
    for (int r = 0; r < g_repeat; r++)
        TRY(clEnqueueNDRangeKernel(g_queue, k, 2, NULL, global, NULL, 0, NULL, NULL));
    TRY(clEnqueueReadBuffer(g_queue, dout, CL_TRUE, 0, n * 4, j->out, 0, NULL, NULL));
out:
    if (din) clReleaseMemObject(din);
    if (dout) clReleaseMemObject(dout);
    if (k) clReleaseKernel(k);
    free(in);
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = 4, checksum = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--checksum"))
            checksum = 1;
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
            g_repeat = atoi(argv[++i]);
        else
            threads = 0;
    }
    if (threads < 1 || threads > MAX_THREADS || g_repeat < 1) {
        fprintf(stderr, "usage: threads_client [--threads 1..%d] [--repeat N] [--checksum]\n",
                MAX_THREADS);
        return 2;
    }
    cl_platform_id plat;
    cl_device_id dev;
    cl_int err;
    if (clGetPlatformIDs(1, &plat, NULL) || clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL))
        return fprintf(stderr, "threads_client: no OpenCL device\n"), 1;
    g_ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    if (err) return fprintf(stderr, "threads_client: clCreateContext: %d\n", err), 1;
    g_queue = clCreateCommandQueueWithProperties(g_ctx, dev, NULL, &err);
    if (err) return fprintf(stderr, "threads_client: queue: %d\n", err), 1;
    g_prog = clCreateProgramWithSource(g_ctx, 1, &src, NULL, &err);
    if (err || clBuildProgram(g_prog, 1, &dev, "", NULL, NULL))
        return fprintf(stderr, "threads_client: cannot build the program\n"), 1;
    job jobs[MAX_THREADS];
    pthread_t tid[MAX_THREADS];
    size_t n = (size_t)W * H;
    int bad = 0;
    for (int t = 0; t < threads; t++) {
        jobs[t] = (job){t, malloc(n * sizeof(float)), NULL, 0};
        if (!jobs[t].out || pthread_create(&tid[t], NULL, worker, &jobs[t]))
            return fprintf(stderr, "threads_client: cannot start thread %d\n", t), 1;
    }
    uint64_t hsum = 1469598103934665603ull;
    for (int t = 0; t < threads; t++) {
        pthread_join(tid[t], NULL);
        if (jobs[t].failed) {
            fprintf(stderr, "threads_client: thread %d: %s failed: %d\n", t, jobs[t].failed,
                    jobs[t].err);
            bad = 1;
        }
        const unsigned char *b = (const unsigned char *)jobs[t].out;
        for (size_t i = 0; i < n * sizeof(float); i++) hsum = (hsum ^ b[i]) * 1099511628211ull;
        free(jobs[t].out);
    }
    printf("threads_client: threads=%d launches=%d %s\n", threads, g_repeat, bad ? "FAILED" : "ok");
    if (checksum) printf("checksum=%016llx\n", (unsigned long long)hsum);
    clReleaseProgram(g_prog);
    clReleaseCommandQueue(g_queue);
    clReleaseContext(g_ctx);
    return bad;
}
