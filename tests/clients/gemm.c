/* Test client: tiled GEMM with local memory (tests/kernels/gemm.cl), launched
 * with its own local size (TS, TS/WPT); tunables in etc/tunables/gemm.json. */
#include "tests/support/testcl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gemm [--m M] [--n N] [--k K] [options]\n"
            "C = A*B on the first OpenCL device, checked against the CPU.\n"
            "  --m, --n, --k     matrix sizes, multiples of 64 (default 256)\n"
            "  --ts, --wpt, --width N  set TS, WPT, WIDTH with -D in the build options, as a\n"
            "                    program with its own tuned values does (default: the\n"
            "                    kernel's #ifndef defaults 16, 1, 1)\n"
            "%s  --help\n",
            tc_common_usage);
}

int main(int argc, char **argv)
{
    tc_opts o = {0, 1, NULL, "", NULL};
    long m = 256, n = 256, k = 256, ts = 0, wpt = 0, width = 0;
    const tc_size_opt sizes[] = {{"--m", &m},     {"--n", &n},         {"--k", &k}, {"--ts", &ts},
                                 {"--wpt", &wpt}, {"--width", &width}, {NULL, NULL}};
    int parsed = tc_parse_args(argc, argv, &o, sizes, usage);
    if (parsed) return parsed == 1 ? 0 : 2;
    if (m % 64 || n % 64 || k % 64 || m > 8192 || n > 8192 || k > 8192) {
        fprintf(stderr, "gemm: --m, --n, --k must be multiples of 64 up to 8192\n");
        return 2;
    }
    long TS = ts ? ts : 16, WPT = wpt ? wpt : 1;
    if (64 % TS || TS % WPT || (width && width != 1 && width != 2 && width != 4 && width != 8) ||
        (width && TS % width)) {
        fprintf(stderr, "gemm: --ts must divide 64, --wpt divide --ts, --width be 1, 2, 4 or 8 "
                        "and divide --ts\n");
        return 2;
    }
    char options[512];
    int len = snprintf(options, sizeof options, "%s", o.options);
    if (ts) len += snprintf(options + len, sizeof options - (size_t)len, " -DTS=%ld", ts);
    if (wpt) len += snprintf(options + len, sizeof options - (size_t)len, " -DWPT=%ld", wpt);
    if (width) snprintf(options + len, sizeof options - (size_t)len, " -DWIDTH=%ld", width);
    size_t na = (size_t)(m * k), nb = (size_t)(k * n), nc = (size_t)(m * n);
    float *a = malloc(na * 4), *b = malloc(nb * 4), *c = malloc(nc * 4), *ref = calloc(nc, 4);
    if (!a || !b || !c || !ref) return 1;
    tc_fill(a, na, 1, 0);
    tc_fill(b, nb, 2, 0);
    tc_env e;
    tc_init(&e);
    cl_kernel kern = tc_build(&e, "gemm.cl", "gemm_tiled", options);
    cl_mem da = tc_buffer(&e, CL_MEM_READ_ONLY, na * 4, a);
    cl_mem db = tc_buffer(&e, CL_MEM_READ_ONLY, nb * 4, b);
    cl_mem dc = tc_buffer(&e, CL_MEM_WRITE_ONLY, nc * 4, NULL);
    int im = (int)m, in = (int)n, ik = (int)k;
    tc_arg_scalar(&e, kern, 0, sizeof im, &im);
    tc_arg_scalar(&e, kern, 1, sizeof in, &in);
    tc_arg_scalar(&e, kern, 2, sizeof ik, &ik);
    tc_arg_buffer(&e, kern, 3, da, na * 4, CL_MEM_READ_ONLY, a);
    tc_arg_buffer(&e, kern, 4, db, nb * 4, CL_MEM_READ_ONLY, b);
    tc_arg_buffer(&e, kern, 5, dc, nc * 4, CL_MEM_WRITE_ONLY, NULL);
    size_t global[2] = {(size_t)m, (size_t)(n / WPT)}, local[2] = {(size_t)TS, (size_t)(TS / WPT)};
    double us = tc_run(&e, kern, 2, global, local, o.repeat);
    tc_read(&e, dc, nc * 4, c);
    for (long i = 0; i < m; i++)
        for (long p = 0; p < k; p++) {
            float av = a[i * k + p];
            for (long j = 0; j < n; j++) ref[i * n + j] += av * b[p * n + j];
        }
    int bad = tc_compare("gemm", c, ref, nc, 1e-4);
    printf("gemm: M=%ld N=%ld K=%ld kernel_us=%.1f launches=%d %s\n", m, n, k, us, o.repeat,
           bad ? "MISMATCH" : "ok");
    if (o.checksum) tc_print_checksum(c, nc * 4);
    if (o.emit_job) tc_emit_job(&e, o.emit_job);
    if (o.check_job) bad |= tc_check_job(&e, kern, o.check_job);
    clReleaseMemObject(da);
    clReleaseMemObject(db);
    clReleaseMemObject(dc);
    clReleaseKernel(kern);
    tc_release(&e);
    free(a), free(b), free(c), free(ref);
    return bad;
}
