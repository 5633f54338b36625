/* Fake kernels for the tuning test (tests/integration/shim_cuda_tune.sh,
 * client tests/clients/cuda/driver/cuda_nvrtc_tune_linked.c), in
 * libfakecuda_kernels.so. tscale's work per thread is the image's -D WPT,
 * so a variant compiled with another WPT covers the output only when it is
 * launched with the grid the policy derives from WPT; the WPT of its last
 * launch is exported for the test to see which variant ran. */
#include "fakecuda.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define EXPORT __attribute__((visibility("default")))

/* The WPT of the last tscale launch (0 before any). */
EXPORT atomic_int fakecuda_tscale_last_wpt;

/* tscale(float *out, const float *in, float a, int n): out[i] = a * in[i],
 * WPT consecutive elements per thread of the whole grid. */
EXPORT const fakecuda_params fakecuda_params_tscale = {4, {8, 8, 4, 4}};
EXPORT void fakecuda_kernel_tscale(const fakecuda_launch *l)
{
    float *out = *(float **)l->params[0];
    const float *in = *(const float **)l->params[1];
    float a = *(const float *)l->params[2];
    long long n = *(const int *)l->params[3];
    long long wpt = fakecuda_define(l, "WPT", 1);
    atomic_store_explicit(&fakecuda_tscale_last_wpt, (int)wpt, memory_order_relaxed);
    unsigned long long threads = 1;
    for (int d = 0; d < 3; d++) threads *= (unsigned long long)l->grid[d] * l->block[d];
    for (unsigned long long t = 0; t < threads; t++)
        for (long long k = 0; k < wpt; k++) {
            long long i = (long long)t * wpt + k;
            if (i < n) out[i] = a * in[i];
        }
}

/* vcopy(float *out, const float *in, int n): out = in, over the whole grid. */
EXPORT void fakecuda_kernel_vcopy(const fakecuda_launch *l)
{
    float *out = *(float **)l->params[0];
    const float *in = *(const float **)l->params[1];
    long long n = *(const int *)l->params[2];
    unsigned long long threads = 1;
    for (int d = 0; d < 3; d++) threads *= (unsigned long long)l->grid[d] * l->block[d];
    for (unsigned long long i = 0; i < threads && (long long)i < n; i++) out[i] = in[i];
}
