/* Fake kernels for the driver-API clients (libfakecuda_kernels.so): host
 * functions the fake driver runs for kernels of a fake image (fake_image.h).
 * Device pointers are host pointers in the fake. */
#include "fakecuda.h"

#include <stddef.h>
#include <stdint.h>

#define EXPORT __attribute__((visibility("default")))

/* vadd(float *c, const float *a, const float *b, int n): c = a + b * SCALE
 * (SCALE a -D value of the image, 1 by default), over the whole grid. */
EXPORT const fakecuda_params fakecuda_params_vadd = {4, {8, 8, 8, 4}};
EXPORT void fakecuda_kernel_vadd(const fakecuda_launch *l)
{
    float *c = *(float **)l->params[0];
    const float *a = *(const float **)l->params[1], *b = *(const float **)l->params[2];
    int n = *(const int *)l->params[3];
    float scale = (float)fakecuda_define(l, "SCALE", 1);
    size_t threads = (size_t)l->grid[0] * l->block[0];
    for (size_t i = 0; i < threads && i < (size_t)n; i++) c[i] = a[i] + b[i] * scale;
}

/* fill(unsigned *p, unsigned v): p[i] = v + i for each thread (no parameter
 * table: cuFuncGetParamInfo answers NOT_SUPPORTED). */
EXPORT void fakecuda_kernel_fill(const fakecuda_launch *l)
{
    unsigned *p = *(unsigned **)l->params[0];
    unsigned v = *(const unsigned *)l->params[1];
    size_t threads = (size_t)l->grid[0] * l->block[0] * l->grid[1] * l->block[1];
    for (size_t i = 0; i < threads; i++) p[i] = v + (unsigned)i;
}
