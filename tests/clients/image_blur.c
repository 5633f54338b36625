/* Test client: tests/kernels/image_blur.cl on a 2-D image (CL_RGBA /
 * CL_UNORM_INT8, or CL_R / CL_FLOAT with --float) read through a sampler
 * argument, written to a write-only image, launched with a NULL local size
 * (or --local X Y). Prints the output's checksum. --emit-job PATH writes the
 * launch's tuning job (image and sampler arguments, the input captured, the
 * output synthetic; --synthetic: the input too); --pixel-bytes N writes a
 * wrong pixel_bytes into it. */
#include "tests/support/testcl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check(cl_int rc, const char *what)
{
    if (rc != CL_SUCCESS) {
        fprintf(stderr, "image_blur: %s failed (%d)\n", what, rc);
        exit(1);
    }
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: image_blur [--width W] [--height H] [--float] [--synthetic] [--local X Y] "
            "[--pixel-bytes N] [options]\n%s",
            tc_common_usage);
}

/* The launch's job: input image captured, sampler, output image synthetic. */
static void emit(tc_env *e, const char *path, const aoe_job_image *im, const uint8_t *in,
                 uint64_t bytes, uint32_t pixel_bytes, int synthetic)
{
    aoe_job_arg args[3] = {
        {.kind = AOE_JOB_ARG_IMAGE,
         .size = bytes,
         .flags = CL_MEM_READ_ONLY,
         .data = (uint8_t *)in,
         .image = *im},
        {.kind = AOE_JOB_ARG_SAMPLER, .sampler = {0, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST}},
        {.kind = AOE_JOB_ARG_IMAGE, .size = bytes, .flags = CL_MEM_WRITE_ONLY, .image = *im}};
    if (pixel_bytes) { /* a damaged descriptor: the contents follow it, so the reader takes it */
        for (int i = 0; i < 3; i += 2) {
            args[i].image.pixel_bytes = pixel_bytes;
            args[i].size = aoe_job_image_bytes(&args[i].image);
        }
        args[0].data = calloc(1, args[0].size);
    }
    if (synthetic) args[0].data = NULL;
    memcpy(e->args, args, sizeof args);
    e->nargs = 3;
    tc_emit_job(e, path);
    if (pixel_bytes) free(args[0].data);
    memset(e->args, 0, sizeof args); /* tc_release frees what tc_arg_buffer copied: nothing here */
}

int main(int argc, char **argv)
{
    tc_opts o;
    memset(&o, 0, sizeof o);
    o.repeat = 1;
    o.options = "";
    long w = 64, h = 48, lx = 0, ly = 0, pb = 0;
    int flt = 0, synthetic = 0;
    for (int i = 1; i < argc; i++) { /* the client's own flags, then the common ones */
        if (!strcmp(argv[i], "--float") || !strcmp(argv[i], "--synthetic")) {
            *(!strcmp(argv[i], "--float") ? &flt : &synthetic) = 1;
            memmove(&argv[i], &argv[i + 1], (size_t)(argc - i) * sizeof *argv);
            argc--, i--;
        } else if (!strcmp(argv[i], "--local") && i + 2 < argc) {
            lx = tc_parse_positive("image_blur", "--local", argv[i + 1]);
            ly = tc_parse_positive("image_blur", "--local", argv[i + 2]);
            memmove(&argv[i], &argv[i + 3], (size_t)(argc - i - 2) * sizeof *argv);
            argc -= 3, i--;
        }
    }
    const tc_size_opt sizes[] = {
        {"--width", &w}, {"--height", &h}, {"--pixel-bytes", &pb}, {NULL, NULL}};
    int parsed = tc_parse_args(argc, argv, &o, sizes, usage);
    if (parsed) return parsed == 1 ? 0 : 2;
    cl_image_format f =
        flt ? (cl_image_format){CL_R, CL_FLOAT} : (cl_image_format){CL_RGBA, CL_UNORM_INT8};
    uint64_t bytes = (uint64_t)w * (uint64_t)h * 4;
    uint8_t *in = malloc(bytes), *out = malloc(bytes);
    if (!in || !out) return 1;
    uint32_t s = 12345;
    for (uint64_t i = 0; i < bytes; i++) {
        s ^= s << 13, s ^= s >> 17, s ^= s << 5;
        in[i] = (uint8_t)s;
    }
    if (flt) /* finite values in [0, 1) */
        for (uint64_t i = 0; i < bytes; i += 4) {
            float v = (float)in[i] / 256.0f;
            memcpy(in + i, &v, 4);
        }
    tc_env e;
    tc_init(&e);
    cl_kernel k = tc_build(&e, "image_blur.cl", "image_blur", o.options);
    cl_image_desc d;
    memset(&d, 0, sizeof d);
    d.image_type = CL_MEM_OBJECT_IMAGE2D;
    d.image_width = (size_t)w;
    d.image_height = (size_t)h;
    cl_int rc;
    cl_mem src = clCreateImage(e.ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &f, &d, in, &rc);
    check(rc, "clCreateImage (input)");
    cl_mem dst = clCreateImage(e.ctx, CL_MEM_WRITE_ONLY, &f, &d, NULL, &rc);
    check(rc, "clCreateImage (output)");
    cl_sampler_properties sp[] = {CL_SAMPLER_NORMALIZED_COORDS,
                                  CL_FALSE,
                                  CL_SAMPLER_ADDRESSING_MODE,
                                  CL_ADDRESS_CLAMP_TO_EDGE,
                                  CL_SAMPLER_FILTER_MODE,
                                  CL_FILTER_NEAREST,
                                  0};
    cl_sampler smp = clCreateSamplerWithProperties(e.ctx, sp, &rc);
    check(rc, "clCreateSamplerWithProperties");
    check(clSetKernelArg(k, 0, sizeof src, &src), "clSetKernelArg 0");
    check(clSetKernelArg(k, 1, sizeof smp, &smp), "clSetKernelArg 1");
    check(clSetKernelArg(k, 2, sizeof dst, &dst), "clSetKernelArg 2");
    size_t global[2] = {(size_t)w, (size_t)h}, local[2] = {(size_t)lx, (size_t)ly};
    tc_run(&e, k, 2, global, lx ? local : NULL, o.repeat);
    size_t origin[3] = {0, 0, 0}, region[3] = {(size_t)w, (size_t)h, 1};
    check(clEnqueueReadImage(e.queue, dst, CL_TRUE, origin, region, 0, 0, out, 0, NULL, NULL),
          "clEnqueueReadImage");
    printf("image_blur: %ldx%ld %s local=%ld,%ld ", w, h, flt ? "R/FLOAT" : "RGBA/UNORM_INT8", lx,
           ly);
    tc_print_checksum(out, bytes);
    if (o.emit_job) {
        aoe_job_image im = {CL_MEM_OBJECT_IMAGE2D,
                            f.image_channel_order,
                            f.image_channel_data_type,
                            4,
                            (uint64_t)w,
                            (uint64_t)h,
                            0,
                            0};
        emit(&e, o.emit_job, &im, in, bytes, (uint32_t)pb, synthetic);
    }
    clReleaseSampler(smp);
    clReleaseMemObject(src);
    clReleaseMemObject(dst);
    clReleaseKernel(k);
    tc_release(&e);
    free(in), free(out);
    return 0;
}
