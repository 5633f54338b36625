/* A horizontal [1 2 1] / 4 blur of a 2-D image read through a sampler,
 * written to a write-only image (tests/clients/image_blur.c). BREAK=1 is a
 * planted bad variant: one pixel, (3, 2), comes out wrong. */
#ifndef BREAK
#define BREAK 0
#endif

__kernel void image_blur(__read_only image2d_t src, sampler_t smp, __write_only image2d_t dst)
{
    int x = get_global_id(0), y = get_global_id(1);
    float4 s = read_imagef(src, smp, (int2)(x - 1, y)) + 2.0f * read_imagef(src, smp, (int2)(x, y)) +
               read_imagef(src, smp, (int2)(x + 1, y));
    s *= 0.25f;
#if BREAK
    if (x == 3 && y == 2) s.x = s.x > 0.5f ? 0.0f : 1.0f;
#endif
    write_imagef(dst, (int2)(x, y), s);
}
