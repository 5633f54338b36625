/* Test client for fork handling.
 *   --mode exec   creates its context and launches, then forks a child that
 *                 only runs a helper program (as PoCL does with the linker,
 *                 or a program with system()), then launches again.
 *   --mode worker the parent never touches OpenCL; a forked worker process
 *                 does all the work (as multiprocessing pools do).
 * A 2-D scale-transpose with a NULL local size; prints checksum=<hex>. */
#include <CL/cl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *src =
    "__kernel void fork_tr(__global const float *in, __global float *out, int w, int h) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  out[x * h + y] = in[y * w + x] * 3.0f - 1.0f;\n"
    "}\n";

typedef struct {
    cl_context ctx;
    cl_command_queue q;
    cl_kernel k;
    cl_mem din, dout;
    float *out;
    size_t n;
    int w, h;
} env;

static int setup(env *e)
{
    cl_platform_id plat;
    cl_device_id dev;
    cl_int err;
    if (clGetPlatformIDs(1, &plat, NULL) || clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL))
        return -1;
    e->ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    if (err) return -1;
    e->q = clCreateCommandQueueWithProperties(e->ctx, dev, NULL, &err);
    if (err) return -1;
    cl_program p = clCreateProgramWithSource(e->ctx, 1, &src, NULL, &err);
    if (err || clBuildProgram(p, 1, &dev, "", NULL, NULL)) return -1;
    e->k = clCreateKernel(p, "fork_tr", &err);
    if (err) return -1;
    e->w = 512;
    e->h = 128;
    e->n = (size_t)e->w * e->h;
    float *in = malloc(e->n * 4);
    e->out = malloc(e->n * 4);
    if (!in || !e->out) return -1;
    for (size_t i = 0; i < e->n; i++) in[i] = (float)((i * 40503u) % 977) / 3.0f;
    e->din = clCreateBuffer(e->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, e->n * 4, in, &err);
    if (err) return -1;
    e->dout = clCreateBuffer(e->ctx, CL_MEM_WRITE_ONLY, e->n * 4, NULL, &err);
    free(in);
    if (err) return -1;
    if (clSetKernelArg(e->k, 0, sizeof e->din, &e->din) ||
        clSetKernelArg(e->k, 1, sizeof e->dout, &e->dout) ||
        clSetKernelArg(e->k, 2, sizeof e->w, &e->w) || clSetKernelArg(e->k, 3, sizeof e->h, &e->h))
        return -1;
    return 0;
}

static int launch(env *e, int repeat)
{
    size_t global[2] = {(size_t)e->w, (size_t)e->h};
    for (int r = 0; r < repeat; r++)
        if (clEnqueueNDRangeKernel(e->q, e->k, 2, NULL, global, NULL, 0, NULL, NULL)) return -1;
    return clEnqueueReadBuffer(e->q, e->dout, CL_TRUE, 0, e->n * 4, e->out, 0, NULL, NULL) ? -1 : 0;
}

static void print_checksum(const env *e, const char *who)
{
    uint64_t h = 1469598103934665603ull;
    const unsigned char *b = (const unsigned char *)e->out;
    for (size_t i = 0; i < e->n * 4; i++) h = (h ^ b[i]) * 1099511628211ull;
    printf("%s checksum=%016llx\n", who, (unsigned long long)h);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    const char *mode = argc == 3 && !strcmp(argv[1], "--mode") ? argv[2] : "";
    int repeat = getenv("FORK_CLIENT_REPEAT") ? atoi(getenv("FORK_CLIENT_REPEAT")) : 1;
    static env e; /* static: its objects stay reachable at exit (LeakSanitizer) */
    if (!strcmp(mode, "exec")) {
        if (setup(&e) || launch(&e, repeat)) return 1;
        print_checksum(&e, "before-fork");
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            execl("/bin/echo", "echo", "helper ran", (char *)NULL);
            _exit(127);
        }
        int st = 0;
        if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) return 1;
        if (launch(&e, repeat)) return 1;
        print_checksum(&e, "after-fork");
        return 0;
    }
    if (!strcmp(mode, "worker")) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            if (setup(&e) || launch(&e, repeat)) _exit(1);
            print_checksum(&e, "worker");
            exit(0); /* exit(): the worker's atexit handlers run (result file) */
        }
        int st = 0;
        if (pid < 0 || waitpid(pid, &st, 0) < 0) return 1;
        return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
    }
    fprintf(stderr, "usage: fork_client --mode exec|worker\n");
    return 2;
}
