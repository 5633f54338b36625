/* Robust statistics for kernel timings: medians resist the odd slow run
 * (preemption, page faults) that would skew a mean. */
#include "tuner/measure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SAMPLES 4096

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double aoe_median(const double *v, size_t n)
{
    double tmp[MAX_SAMPLES];
    if (n == 0) return 0;
    if (n > MAX_SAMPLES) n = MAX_SAMPLES;
    memcpy(tmp, v, n * sizeof *tmp);
    qsort(tmp, n, sizeof *tmp, cmp_double);
    return n % 2 ? tmp[n / 2] : 0.5 * (tmp[n / 2 - 1] + tmp[n / 2]);
}

double aoe_spread(const double *v, size_t n, double median)
{
    double dev[MAX_SAMPLES];
    if (n < 2) return 0;
    if (n > MAX_SAMPLES) n = MAX_SAMPLES;
    for (size_t i = 0; i < n; i++) dev[i] = fabs(v[i] - median);
    return 1.4826 * aoe_median(dev, n);
}

int aoe_beats(double a_us, double a_spread, double b_us, double b_spread)
{
    if (!(a_us > 0) || !(b_us > 0)) return 0;
    return a_us + a_spread + b_spread < b_us && a_us < 0.99 * b_us;
}
