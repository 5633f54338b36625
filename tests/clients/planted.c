/* Test client: tests/kernels/planted_scale.cl (out = 2 * in), launched with
 * an explicit local size so that its only tunable is MODE, whose bad values
 * crash, hang, write wrong results or write out of bounds. */
#include "tests/support/testcl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: planted [--n N (multiple of 64)] [options]\n%s", tc_common_usage);
}

int main(int argc, char **argv)
{
    tc_opts o;
    memset(&o, 0, sizeof o);
    o.repeat = 1;
    o.options = "";
    long n = 4096;
    const tc_size_opt sizes[] = {{"--n", &n}, {NULL, NULL}};
    int parsed = tc_parse_args(argc, argv, &o, sizes, usage);
    if (parsed) return parsed == 1 ? 0 : 2;
    if (n % 64 || n > (1L << 24)) {
        fprintf(stderr, "planted: --n must be a multiple of 64, at most 2^24\n");
        return 2;
    }
    float *in = malloc((size_t)n * 4), *out = malloc((size_t)n * 4);
    if (!in || !out) return 1;
    tc_fill(in, (size_t)n, 3, 0);
    tc_env e;
    tc_init(&e);
    cl_kernel k = tc_build(&e, "planted_scale.cl", "planted_scale", o.options);
    cl_mem din = tc_buffer(&e, CL_MEM_READ_ONLY, (size_t)n * 4, in);
    cl_mem dout = tc_buffer(&e, CL_MEM_WRITE_ONLY, (size_t)n * 4, NULL);
    int nn = (int)n;
    tc_arg_buffer(&e, k, 0, din, (size_t)n * 4, CL_MEM_READ_ONLY, in);
    tc_arg_buffer(&e, k, 1, dout, (size_t)n * 4, CL_MEM_WRITE_ONLY, NULL);
    tc_arg_scalar(&e, k, 2, sizeof nn, &nn);
    size_t global[1] = {(size_t)n}, local[1] = {64};
    double us = tc_run(&e, k, 1, global, local, o.repeat);
    tc_read(&e, dout, (size_t)n * 4, out);
    int bad = 0;
    for (long i = 0; i < n && !bad; i++) bad = out[i] != 2.0f * in[i];
    printf("planted: N=%ld kernel_us=%.1f %s\n", n, us, bad ? "MISMATCH" : "ok");
    if (o.emit_job) tc_emit_job(&e, o.emit_job);
    clReleaseMemObject(din);
    clReleaseMemObject(dout);
    clReleaseKernel(k);
    tc_release(&e);
    free(in), free(out);
    return bad;
}
