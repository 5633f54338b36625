/* Test client: out = 16 * in + k * m (tests/kernels/scalar_add.cl) with the
 * scalars k and m from the command line, launched with a NULL local size: one
 * kernel whose scalar changes from run to run (keys across runs). */
#include "tests/support/testcl.h"

#include <stdio.h>
#include <stdlib.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: scalar_add [--value K] [--values V] [--mul M] [--n N] [options]\n"
            "Computes out = 16 * in + k * m on the first OpenCL device, checked on the CPU.\n"
            "  --value K   the scalar k of the first launch (default 1)\n"
            "  --values V  launches, each with the next k (k, k+1, ...; default 1)\n"
            "  --mul M     the scalar m (default 1)\n"
            "  --n N       elements (default 16384)\n"
            "%s  --help\n",
            tc_common_usage);
}

int main(int argc, char **argv)
{
    tc_opts o = {0, 1, NULL, "", NULL};
    long k0 = 1, values = 1, mul = 1, n = 1 << 14;
    const tc_size_opt sizes[] = {
        {"--value", &k0}, {"--values", &values}, {"--mul", &mul}, {"--n", &n}, {NULL, NULL}};
    int parsed = tc_parse_args(argc, argv, &o, sizes, usage);
    if (parsed) return parsed == 1 ? 0 : 2;
    if (n > (1L << 24) || k0 > (1L << 20) || values > 1000 || mul > 64) {
        fprintf(stderr,
                "scalar_add: --n at most 2^24, --value at most 2^20, --values at most 1000, --mul "
                "at most 64\n");
        return 2;
    }
    float *in = malloc((size_t)n * 4), *out = malloc((size_t)n * 4);
    if (!in || !out) return 1;
    tc_fill(in, (size_t)n, 7, 1); /* small integers: exact in float */
    tc_env e;
    tc_init(&e);
    cl_kernel kern = tc_build(&e, "scalar_add.cl", "scalar_add", o.options);
    cl_mem din = tc_buffer(&e, CL_MEM_READ_ONLY, (size_t)n * 4, in);
    cl_mem dout = tc_buffer(&e, CL_MEM_WRITE_ONLY, (size_t)n * 4, NULL);
    tc_arg_buffer(&e, kern, 0, din, (size_t)n * 4, CL_MEM_READ_ONLY, in);
    tc_arg_buffer(&e, kern, 1, dout, (size_t)n * 4, CL_MEM_WRITE_ONLY, NULL);
    int m = (int)mul;
    tc_arg_scalar(&e, kern, 3, sizeof m, &m);
    size_t global[1] = {(size_t)n};
    int bad = 0, k = 0;
    double us = 0;
    for (long v = 0; v < values; v++) {
        k = (int)(k0 + v);
        tc_arg_scalar(&e, kern, 2, sizeof k, &k);
        us = tc_run(&e, kern, 1, global, NULL, o.repeat);
        tc_read(&e, dout, (size_t)n * 4, out);
        for (long i = 0; i < n; i++)
            if (out[i] != 16.0f * in[i] + (float)(k * m)) {
                if (!bad) fprintf(stderr, "scalar_add: MISMATCH at %ld (k=%d)\n", i, k);
                bad = 1;
            }
    }
    printf("scalar_add: N=%ld k=%d values=%ld kernel_us=%.1f %s\n", n, k, values, us,
           bad ? "MISMATCH" : "ok");
    if (o.checksum) tc_print_checksum(out, (size_t)n * 4);
    if (o.emit_job) tc_emit_job(&e, o.emit_job);
    clReleaseMemObject(din);
    clReleaseMemObject(dout);
    clReleaseKernel(kern);
    tc_release(&e);
    free(in), free(out);
    return bad;
}
