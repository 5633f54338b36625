/* Test client: matrix transpose (tests/kernels/transpose.cl), launched with a
 * NULL local size, so work-group size tuning applies. */
#include "tests/support/testcl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: transpose [--width W] [--height H] [options]\n"
            "Transposes an H x W matrix on the first OpenCL device, checked against the CPU.\n"
            "  --width, --height matrix size (default 512 x 256)\n"
            "%s  --help\n",
            tc_common_usage);
}

int main(int argc, char **argv)
{
    tc_opts o = {0, 1, NULL, "", NULL};
    long w = 512, h = 256;
    const tc_size_opt sizes[] = {{"--width", &w}, {"--height", &h}, {NULL, NULL}};
    int parsed = tc_parse_args(argc, argv, &o, sizes, usage);
    if (parsed) return parsed == 1 ? 0 : 2;
    if (w > 16384 || h > 16384) {
        fprintf(stderr, "transpose: width and height at most 16384\n");
        return 2;
    }
    size_t nel = (size_t)(w * h);
    float *in = malloc(nel * 4), *out = malloc(nel * 4), *ref = malloc(nel * 4);
    if (!in || !out || !ref) return 1;
    tc_fill(in, nel, 6, 0);
    tc_env e;
    tc_init(&e);
    cl_kernel kern = tc_build(&e, "transpose.cl", "transpose", o.options);
    cl_mem din = tc_buffer(&e, CL_MEM_READ_ONLY, nel * 4, in);
    cl_mem dout = tc_buffer(&e, CL_MEM_WRITE_ONLY, nel * 4, NULL);
    int iw = (int)w, ih = (int)h;
    tc_arg_buffer(&e, kern, 0, din, nel * 4, CL_MEM_READ_ONLY, in);
    tc_arg_buffer(&e, kern, 1, dout, nel * 4, CL_MEM_WRITE_ONLY, NULL);
    tc_arg_scalar(&e, kern, 2, sizeof iw, &iw);
    tc_arg_scalar(&e, kern, 3, sizeof ih, &ih);
    size_t global[2] = {(size_t)w, (size_t)h};
    double us = tc_run(&e, kern, 2, global, NULL, o.repeat);
    tc_read(&e, dout, nel * 4, out);
    for (long y = 0; y < h; y++)
        for (long x = 0; x < w; x++) ref[x * h + y] = in[y * w + x];
    int bad = memcmp(out, ref, nel * 4) != 0;
    if (bad) tc_compare("transpose", out, ref, nel, 0);
    printf("transpose: W=%ld H=%ld kernel_us=%.1f launches=%d %s\n", w, h, us, o.repeat,
           bad ? "MISMATCH" : "ok");
    if (o.checksum) tc_print_checksum(out, nel * 4);
    if (o.emit_job) tc_emit_job(&e, o.emit_job);
    if (o.check_job) bad |= tc_check_job(&e, kern, o.check_job);
    clReleaseMemObject(din);
    clReleaseMemObject(dout);
    clReleaseKernel(kern);
    tc_release(&e);
    free(in), free(out), free(ref);
    return bad;
}
