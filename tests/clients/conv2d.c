/* Test client: 2-D convolution (tests/kernels/conv2d.cl), launched with a NULL
 * local size, so work-group size tuning applies; PX is declared in
 * etc/tunables/conv2d.json. */
#include "tests/support/testcl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: conv2d [--width W] [--height H] [--radius R] [options]\n"
            "2-D convolution on the first OpenCL device, checked against the CPU.\n"
            "  --width, --height image size (default 256 x 256; width a multiple of 8)\n"
            "  --radius R        filter radius, (2R+1)^2 taps (default 2)\n"
            "%s  --help\n",
            tc_common_usage);
}

int main(int argc, char **argv)
{
    tc_opts o = {0, 1, NULL, "", NULL};
    long w = 256, h = 256, r = 2;
    const tc_size_opt sizes[] = {{"--width", &w}, {"--height", &h}, {"--radius", &r}, {NULL, NULL}};
    int parsed = tc_parse_args(argc, argv, &o, sizes, usage);
    if (parsed) return parsed == 1 ? 0 : 2;
    if (w % 8 || w > 16384 || h > 16384 || r > 16) {
        fprintf(stderr, "conv2d: width must be a multiple of 8 (<= 16384), height <= 16384, "
                        "radius <= 16\n");
        return 2;
    }
    long f = 2 * r + 1;
    size_t npix = (size_t)(w * h), nf = (size_t)(f * f);
    float *in = malloc(npix * 4), *filt = malloc(nf * 4), *out = malloc(npix * 4),
          *ref = malloc(npix * 4);
    if (!in || !filt || !out || !ref) return 1;
    tc_fill(in, npix, 3, 0);
    tc_fill(filt, nf, 4, 0);
    tc_env e;
    tc_init(&e);
    cl_kernel kern = tc_build(&e, "conv2d.cl", "conv2d", o.options);
    cl_mem din = tc_buffer(&e, CL_MEM_READ_ONLY, npix * 4, in);
    cl_mem dfilt = tc_buffer(&e, CL_MEM_READ_ONLY, nf * 4, filt);
    cl_mem dout = tc_buffer(&e, CL_MEM_WRITE_ONLY, npix * 4, NULL);
    int iw = (int)w, ih = (int)h, ir = (int)r;
    tc_arg_buffer(&e, kern, 0, din, npix * 4, CL_MEM_READ_ONLY, in);
    tc_arg_buffer(&e, kern, 1, dfilt, nf * 4, CL_MEM_READ_ONLY, filt);
    tc_arg_buffer(&e, kern, 2, dout, npix * 4, CL_MEM_WRITE_ONLY, NULL);
    tc_arg_scalar(&e, kern, 3, sizeof iw, &iw);
    tc_arg_scalar(&e, kern, 4, sizeof ih, &ih);
    tc_arg_scalar(&e, kern, 5, sizeof ir, &ir);
    size_t global[2] = {(size_t)w, (size_t)h}; /* PX=1: one pixel per work-item */
    double us = tc_run(&e, kern, 2, global, NULL, o.repeat);
    tc_read(&e, dout, npix * 4, out);
    for (long y = 0; y < h; y++)
        for (long x = 0; x < w; x++) {
            float acc = 0.0f;
            for (long fy = -r; fy <= r; fy++)
                for (long fx = -r; fx <= r; fx++) {
                    long yy = y + fy, xx = x + fx;
                    if (yy >= 0 && yy < h && xx >= 0 && xx < w)
                        acc += in[yy * w + xx] * filt[(fy + r) * f + (fx + r)];
                }
            ref[y * w + x] = acc;
        }
    int bad = tc_compare("conv2d", out, ref, npix, 1e-5);
    printf("conv2d: W=%ld H=%ld R=%ld kernel_us=%.1f launches=%d %s\n", w, h, r, us, o.repeat,
           bad ? "MISMATCH" : "ok");
    if (o.checksum) tc_print_checksum(out, npix * 4);
    if (o.emit_job) tc_emit_job(&e, o.emit_job);
    if (o.check_job) bad |= tc_check_job(&e, kern, o.check_job);
    clReleaseMemObject(din);
    clReleaseMemObject(dfilt);
    clReleaseMemObject(dout);
    clReleaseKernel(kern);
    tc_release(&e);
    free(in), free(filt), free(out), free(ref);
    return bad;
}
