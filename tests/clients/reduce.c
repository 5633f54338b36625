/* Test client: sum reduction (tests/kernels/reduce.cl), launched with a NULL
 * local size, so work-group size tuning applies (and, with auto-defines,
 * its #ifndef UNROLL default). */
#include "tests/support/testcl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: reduce [--n N] [--partials P] [options]\n"
            "Sums N floats on the first OpenCL device, checked against the CPU.\n"
            "  --n N             elements (default 262144)\n"
            "  --partials P      work-items, each summing a strided share (default 2048)\n"
            "%s  --help\n",
            tc_common_usage);
}

int main(int argc, char **argv)
{
    tc_opts o = {0, 1, NULL, "", NULL};
    long n = 1 << 18, parts = 2048;
    const tc_size_opt sizes[] = {{"--n", &n}, {"--partials", &parts}, {NULL, NULL}};
    int parsed = tc_parse_args(argc, argv, &o, sizes, usage);
    if (parsed) return parsed == 1 ? 0 : 2;
    if (n > (1L << 28) || parts > n) {
        fprintf(stderr, "reduce: --n at most 2^28 and --partials at most --n\n");
        return 2;
    }
    float *in = malloc((size_t)n * 4), *partial = malloc((size_t)parts * 4);
    if (!in || !partial) return 1;
    tc_fill(in, (size_t)n, 5, 1); /* small integers: every sum is exact in float */
    tc_env e;
    tc_init(&e);
    cl_kernel kern = tc_build(&e, "reduce.cl", "reduce_sum", o.options);
    cl_mem din = tc_buffer(&e, CL_MEM_READ_ONLY, (size_t)n * 4, in);
    cl_mem dpart = tc_buffer(&e, CL_MEM_WRITE_ONLY, (size_t)parts * 4, NULL);
    int in_n = (int)n;
    tc_arg_buffer(&e, kern, 0, din, (size_t)n * 4, CL_MEM_READ_ONLY, in);
    tc_arg_buffer(&e, kern, 1, dpart, (size_t)parts * 4, CL_MEM_WRITE_ONLY, NULL);
    tc_arg_scalar(&e, kern, 2, sizeof in_n, &in_n);
    size_t global[1] = {(size_t)parts};
    double us = tc_run(&e, kern, 1, global, NULL, o.repeat);
    tc_read(&e, dpart, (size_t)parts * 4, partial);
    double sum = 0, want = 0;
    for (long i = 0; i < parts; i++) sum += partial[i];
    for (long i = 0; i < n; i++) want += in[i];
    int bad = sum != want;
    if (bad) fprintf(stderr, "reduce: MISMATCH: got %.1f, expected %.1f\n", sum, want);
    printf("reduce: N=%ld partials=%ld sum=%.1f kernel_us=%.1f launches=%d %s\n", n, parts, sum, us,
           o.repeat, bad ? "MISMATCH" : "ok");
    if (o.checksum) tc_print_checksum(partial, (size_t)parts * 4);
    if (o.emit_job) tc_emit_job(&e, o.emit_job);
    if (o.check_job) bad |= tc_check_job(&e, kern, o.check_job);
    clReleaseMemObject(din);
    clReleaseMemObject(dpart);
    clReleaseKernel(kern);
    tc_release(&e);
    free(in), free(partial);
    return bad;
}
