/* Measurement statistics: median and spread of repeated timings, and the
 * noise test deciding whether one policy really beats another. */
#ifndef AOE_MEASURE_H
#define AOE_MEASURE_H

#include <stddef.h>

/* Median of n samples (sorts a copy; n <= 4096). 0 for n == 0. */
double aoe_median(const double *v, size_t n);

/* Spread: 1.4826 x the median absolute deviation (a robust standard
 * deviation), 0 for n < 2. */
double aoe_spread(const double *v, size_t n, double median);

/* True when `a` (median a_us, spread a_spread) is faster than `b` by more than
 * the measured noise: a + a_spread + b_spread < b, and by at least 1 %. */
int aoe_beats(double a_us, double a_spread, double b_us, double b_spread);

#endif
