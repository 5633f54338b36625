/* Test client: several threads launch ONE kernel object (reduce_sum,
 * arguments set once before the threads start, as OpenCL requires) while the
 * bank's policy for it may change underneath (tests/integration/
 * shim_race.sh imports new records meanwhile). Prints the launches made:
 *   race_launch: threads=T launches=N failed=F
 * Usage: race_launch [--threads T] [--launches N per thread] [--wait-file P:
 * keep launching (up to 30 s) until P exists] */
#include "tests/support/testcl.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 4096
#define PARTS 256

static tc_env e;
static cl_kernel kern;
static long per_thread = 20000;
static const char *wait_file;
static atomic_long launched, failed;

static void *run(void *arg)
{
    (void)arg;
    size_t global = PARTS;
    for (long i = 0;; i++) {
        if (i >= per_thread && (!wait_file || !access(wait_file, F_OK))) break;
        if (i >= per_thread * 1000) break; /* the file never came: stop anyway */
        if (clEnqueueNDRangeKernel(e.queue, kern, 1, NULL, &global, NULL, 0, NULL, NULL))
            atomic_fetch_add(&failed, 1);
        atomic_fetch_add(&launched, 1);
        if (i % 256 == 255) clFinish(e.queue);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = 4;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--launches") && i + 1 < argc)
            per_thread = atol(argv[++i]);
        else if (!strcmp(argv[i], "--wait-file") && i + 1 < argc)
            wait_file = argv[++i];
        else
            threads = 0;
    }
    if (threads < 1 || threads > 64 || per_thread < 1) {
        fprintf(stderr, "usage: race_launch [--threads 1..64] [--launches N] [--wait-file P]\n");
        return 2;
    }
    static float in[N];
    tc_fill(in, N, 5, 1);
    tc_init(&e);
    kern = tc_build(&e, "reduce.cl", "reduce_sum", "");
    cl_int err;
    cl_mem din =
        clCreateBuffer(e.ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof in, in, &err);
    cl_mem dout = clCreateBuffer(e.ctx, CL_MEM_WRITE_ONLY, PARTS * 4, NULL, &err);
    int n = N;
    clSetKernelArg(kern, 0, sizeof din, &din);
    clSetKernelArg(kern, 1, sizeof dout, &dout);
    clSetKernelArg(kern, 2, sizeof n, &n);
    pthread_t tid[64];
    for (int t = 0; t < threads; t++)
        if (pthread_create(&tid[t], NULL, run, NULL)) return 1;
    for (int t = 0; t < threads; t++) pthread_join(tid[t], NULL);
    clFinish(e.queue);
    printf("race_launch: threads=%d launches=%ld failed=%ld\n", threads, atomic_load(&launched),
           atomic_load(&failed));
    clReleaseMemObject(din);
    clReleaseMemObject(dout);
    clReleaseKernel(kern);
    tc_release(&e);
    return atomic_load(&failed) != 0;
}
