/* Benchmark client for scripts/bench/overhead: the cost the shim adds to one
 * clEnqueueNDRangeKernel. In one process it times batches of launches of a
 * trivial kernel alternately through the symbol the program binds to (the
 * shim's wrapper when preloaded) and through the runtime's own entry point
 * (found with dlvsym, which the shim does not wrap), so both batches do the
 * same runtime work and the difference of the medians is the shim's work.
 * Both sides do the same runtime work (PoCL: about 1-2 us per launch), so
 * the figure is a difference of medians over many alternating batches.
 * Against tests/fakecl (LD_LIBRARY_PATH) the runtime's own launch costs a few
 * ns, so the figures are the shim's own work.
 * Options: --batches N, --launches N (per batch), --warmup-ms MS (keep
 * launching, 1 ms apart, at least that long before timing: lets the shim's
 * background thread build a variant program first).
 * Prints: via_symbol_ns=<median> direct_ns=<median> added_ns=<difference>
 * via_launches=<all launches through the symbol> direct_launches=<...>. */
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *src = "__kernel void nop(__global int *p) {\n"
                         "  if (get_global_id(0) == 1000000) p[0] = 1;\n"
                         "}\n";

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef cl_int (*enqueue_fn)(cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *,
                             const size_t *, cl_uint, const cl_event *, cl_event *);

int main(int argc, char **argv)
{
    int batches = 200, per = 200, warmup_ms = 0;
    for (int i = 1; i + 1 < argc; i++) {
        if (!strcmp(argv[i], "--batches")) batches = atoi(argv[i + 1]);
        if (!strcmp(argv[i], "--launches")) per = atoi(argv[i + 1]);
        if (!strcmp(argv[i], "--warmup-ms")) warmup_ms = atoi(argv[i + 1]);
    }
    if (batches < 1 || per < 1) return 2;
    void *lib = dlopen("libOpenCL.so.1", RTLD_NOLOAD | RTLD_LAZY);
    enqueue_fn direct =
        lib ? (enqueue_fn)dlvsym(lib, "clEnqueueNDRangeKernel", "OPENCL_1.0") : NULL;
    enqueue_fn via = clEnqueueNDRangeKernel;
    if (!direct) {
        fprintf(stderr, "overhead_client: no versioned clEnqueueNDRangeKernel in libOpenCL\n");
        return 1;
    }
    cl_platform_id plat;
    cl_device_id dev;
    cl_int err;
    if (clGetPlatformIDs(1, &plat, NULL) || clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL))
        return 1;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    if (err || clBuildProgram(prog, 1, &dev, "", NULL, NULL)) return 1;
    cl_kernel k = clCreateKernel(prog, "nop", &err);
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
    if (err || clSetKernelArg(k, 0, sizeof buf, &buf)) return 1;
    size_t global = 64;
    /* warm-up: first sight (capture, bank lookup) happens here, not in the timing */
    long long n_via = 0, n_direct = 0;
    double warm_end = now_ns() + warmup_ms * 1e6;
    do {
        for (int i = 0; i < 100; i++, n_via++)
            if (via(q, k, 1, NULL, &global, NULL, 0, NULL, NULL) != CL_SUCCESS) return 1;
        if (warmup_ms) nanosleep(&(struct timespec){0, 1000000}, NULL);
    } while (now_ns() < warm_end);
    double *tv = malloc(sizeof(double) * (size_t)batches);
    double *td = malloc(sizeof(double) * (size_t)batches);
    if (!tv || !td) return 1;
    for (int b = 0; b < batches; b++) {
        for (int pass = 0; pass < 2; pass++) {
            /* alternate the order so neither side always runs after clFinish */
            int use_via = (pass == 0) == (b % 2 == 0);
            enqueue_fn f = use_via ? via : direct;
            double t0 = now_ns();
            for (int i = 0; i < per; i++)
                if (f(q, k, 1, NULL, &global, NULL, 0, NULL, NULL) != CL_SUCCESS) return 1;
            double t = (now_ns() - t0) / per;
            *(use_via ? &n_via : &n_direct) += per;
            clFinish(q);
            (use_via ? tv : td)[b] = t;
        }
    }
    qsort(tv, (size_t)batches, sizeof *tv, cmp);
    qsort(td, (size_t)batches, sizeof *td, cmp);
    double mv = tv[batches / 2], md = td[batches / 2];
    printf(
        "via_symbol_ns=%.2f direct_ns=%.2f added_ns=%.2f via_launches=%lld direct_launches=%lld\n",
        mv, md, mv - md, n_via, n_direct);
    free(tv);
    free(td);
    clReleaseMemObject(buf);
    clReleaseKernel(k);
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return 0;
}
