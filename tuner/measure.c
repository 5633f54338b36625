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

/* One-sided 95 % Student t quantiles, 1 to 10 degrees of freedom (beyond:
 * the value for 10, slightly conservative). */
static double t95(size_t df)
{
    static const double t[] = {6.314, 2.920, 2.353, 2.132, 2.015,
                               1.943, 1.895, 1.860, 1.833, 1.812};
    return df == 0 ? HUGE_VAL : t[df <= 10 ? df - 1 : 9];
}

/* Half-width of the confidence interval of the median of n log ratios. From
 * 5 rounds on the round farthest from the median is left out of the sd, so a
 * single load spike cannot inflate (or decide) the noise estimate. */
static double half_width(const double *lr, size_t n, double med)
{
    size_t skip = n;
    if (n >= 5) {
        skip = 0;
        for (size_t i = 1; i < n; i++)
            if (fabs(lr[i] - med) > fabs(lr[skip] - med)) skip = i;
    }
    size_t m = 0;
    double sum = 0, ss = 0;
    for (size_t i = 0; i < n; i++)
        if (i != skip) sum += lr[i], m++;
    if (m < 2) return HUGE_VAL;
    double mean = sum / (double)m;
    for (size_t i = 0; i < n; i++)
        if (i != skip) ss += (lr[i] - mean) * (lr[i] - mean);
    double sd = sqrt(ss / (double)(m - 1));
    /* 1.2533: the standard error of a median is sqrt(pi/2) that of a mean. */
    return t95(m - 1) * 1.2533 * sd / sqrt((double)m);
}

aoe_paired_verdict aoe_paired_decide(const double *best_us, const double *default_us, size_t n,
                                     aoe_paired_stats *st)
{
    double lr[MAX_SAMPLES];
    aoe_paired_stats s = {.rounds = n, .lower = 0, .upper = HUGE_VAL};
    int valid = 1;
    if (n > MAX_SAMPLES) n = s.rounds = MAX_SAMPLES;
    for (size_t i = 0; i < n; i++) {
        double b = best_us[i], d = default_us[i];
        if (!(b > 0) || !(d > 0) || !isfinite(b) || !isfinite(d)) {
            valid = 0;
            break;
        }
        lr[i] = log(b / d);
        s.faster += b < d;
    }
    if (!valid) {
        if (st) *st = (aoe_paired_stats){.rounds = s.rounds, .upper = HUGE_VAL};
        return AOE_PAIRED_REJECT;
    }
    if (n) {
        double med = aoe_median(lr, n), h = half_width(lr, n, med);
        s.median_ratio = exp(med);
        s.lower = exp(med - h);
        s.upper = exp(med + h);
    }
    if (st) *st = s;
    size_t slower = n - s.faster, allowed = n >= 5 ? 1 : 0;
    if (slower >= 2 || (n && s.lower >= AOE_PAIRED_MIN_GAIN)) return AOE_PAIRED_REJECT;
    if (n >= AOE_PAIRED_MIN_ROUNDS && slower <= allowed && s.median_ratio < AOE_PAIRED_MIN_GAIN &&
        s.upper < 1)
        return AOE_PAIRED_ACCEPT;
    return AOE_PAIRED_UNDECIDED;
}
