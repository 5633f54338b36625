/* Test client: tests/kernels/slow_repeat.cl, whose duration is set by
 * --iters (a loop per work-item), launched with an explicit local size so
 * that its only tunable is REDO (tests/tunables/slow_repeat.json). */
#include "tests/support/testcl.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: slow_kernel [--n N (multiple of 64)] [--iters K] [options]\n%s",
            tc_common_usage);
}

/* What the kernel computes, for one work-item. */
static uint32_t expect(uint32_t x, long iters)
{
    for (long k = 0; k < iters; k++) x = (x * 1664525u + 1013904223u) ^ (x >> 13);
    return x;
}

int main(int argc, char **argv)
{
    tc_opts o;
    memset(&o, 0, sizeof o);
    o.repeat = 1;
    o.options = "";
    long n = 4096, iters = 1000;
    const tc_size_opt sizes[] = {{"--n", &n}, {"--iters", &iters}, {NULL, NULL}};
    int parsed = tc_parse_args(argc, argv, &o, sizes, usage);
    if (parsed) return parsed == 1 ? 0 : 2;
    if (n % 64 || n > (1L << 24) || iters > (1L << 30)) {
        fprintf(stderr, "slow_kernel: --n must be a multiple of 64 (at most 2^24), --iters at "
                        "most 2^30\n");
        return 2;
    }
    uint32_t *in = malloc((size_t)n * 4), *out = malloc((size_t)n * 4);
    if (!in || !out) return 1;
    for (long i = 0; i < n; i++) in[i] = (uint32_t)i * 2654435761u;
    tc_env e;
    tc_init(&e);
    cl_kernel k = tc_build(&e, "slow_repeat.cl", "slow_repeat", o.options);
    cl_mem din = tc_buffer(&e, CL_MEM_READ_ONLY, (size_t)n * 4, in);
    cl_mem dout = tc_buffer(&e, CL_MEM_WRITE_ONLY, (size_t)n * 4, NULL);
    int it = (int)iters;
    uint32_t zero = 0;
    tc_arg_buffer(&e, k, 0, din, (size_t)n * 4, CL_MEM_READ_ONLY, in);
    tc_arg_buffer(&e, k, 1, dout, (size_t)n * 4, CL_MEM_WRITE_ONLY, NULL);
    tc_arg_scalar(&e, k, 2, sizeof it, &it);
    tc_arg_scalar(&e, k, 3, sizeof zero, &zero);
    size_t global[1] = {(size_t)n}, local[1] = {64};
    double us = tc_run(&e, k, 1, global, local, o.repeat);
    tc_read(&e, dout, (size_t)n * 4, out);
    int bad = 0;
    for (long i = 0; i < n && !bad; i += 97) bad = out[i] != expect(in[i], iters);
    printf("slow_kernel: N=%ld iters=%ld kernel_us=%.1f %s\n", n, iters, us,
           bad ? "MISMATCH" : "ok");
    if (o.emit_job) tc_emit_job(&e, o.emit_job);
    clReleaseMemObject(din);
    clReleaseMemObject(dout);
    clReleaseKernel(k);
    tc_release(&e);
    free(in), free(out);
    return bad;
}
