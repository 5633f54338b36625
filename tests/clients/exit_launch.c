/* Test client: one launch of reduce_sum (tests/kernels/reduce.cl), its
 * result printed on a buffered stdout, then exit without releasing anything,
 * as a short program does. Under the shim with a -D policy in the bank, the
 * program exits while the variant program may still be building
 * (tests/integration/shim_exit.sh). --threads N: N threads each launch the
 * kernel once (one kernel object per thread) before the exit. --no-check:
 * the sums are not checked (tests/fakecl computes nothing). --wait-file P:
 * before exiting, wait (at most 20 s) until P exists (tests/fakecl creates
 * it once a variant build is under way). */
#include "tests/support/testcl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N (1 << 16)
#define PARTS 256

typedef struct {
    tc_env *e;
    cl_kernel k;
    cl_mem in, out;
    float partial[PARTS];
    cl_int rc;
} job;

static void *run(void *arg)
{
    job *j = arg;
    int n = N;
    size_t global = PARTS;
    j->rc = clSetKernelArg(j->k, 0, sizeof j->in, &j->in);
    j->rc |= clSetKernelArg(j->k, 1, sizeof j->out, &j->out);
    j->rc |= clSetKernelArg(j->k, 2, sizeof n, &n);
    j->rc |= clEnqueueNDRangeKernel(j->e->queue, j->k, 1, NULL, &global, NULL, 0, NULL, NULL);
    j->rc |= clEnqueueReadBuffer(j->e->queue, j->out, CL_TRUE, 0, sizeof j->partial, j->partial, 0,
                                 NULL, NULL);
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = 1, check = 1;
    const char *wait_file = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--no-check"))
            check = 0;
        else if (!strcmp(argv[i], "--wait-file") && i + 1 < argc)
            wait_file = argv[++i];
        else
            threads = 0;
    }
    if (threads < 1 || threads > 16) {
        fprintf(stderr, "usage: exit_launch [--threads 1..16] [--no-check] [--wait-file P]\n");
        return 2;
    }
    static float in[N];
    tc_fill(in, N, 5, 1); /* small integers: the sum is exact */
    double want = 0;
    for (int i = 0; i < N; i++) want += in[i];
    static tc_env e;
    tc_init(&e);
    cl_kernel k0 = tc_build(&e, "reduce.cl", "reduce_sum", "");
    cl_int err;
    cl_mem din =
        clCreateBuffer(e.ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof in, in, &err);
    static job jobs[16];
    pthread_t tid[16];
    for (int t = 0; t < threads; t++) {
        jobs[t].e = &e;
        jobs[t].k = t ? clCreateKernel(e.program, "reduce_sum", &err) : k0;
        jobs[t].in = din;
        jobs[t].out = clCreateBuffer(e.ctx, CL_MEM_WRITE_ONLY, PARTS * 4, NULL, &err);
        if (pthread_create(&tid[t], NULL, run, &jobs[t])) return 1;
    }
    int bad = 0;
    for (int t = 0; t < threads; t++) {
        pthread_join(tid[t], NULL);
        double sum = 0;
        for (int i = 0; i < PARTS; i++) sum += jobs[t].partial[i];
        bad |= jobs[t].rc != CL_SUCCESS || (check && sum != want);
        printf("exit_launch: thread %d sum=%.1f %s\n", t, sum, sum == want ? "ok" : "MISMATCH");
    }
    for (int i = 0; wait_file && i < 2000 && access(wait_file, F_OK); i++) usleep(10000);
    printf("exit_launch: done\n"); /* the last line: a lost buffer loses it */
    return bad;
}
