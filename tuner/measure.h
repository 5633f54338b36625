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

/* Paired confirmation of a best variant against the default: in round i
 * both are measured back to back (order alternating, so drift hits both),
 * giving one ratio best_us[i] / default_us[i] per round. */
#define AOE_PAIRED_MIN_ROUNDS 3  /* rounds before a variant can be accepted */
#define AOE_PAIRED_MAX_ROUNDS 7  /* rounds the tuner runs at most while undecided */
#define AOE_PAIRED_MIN_GAIN 0.99 /* the median ratio must be below this (>= 1 % faster) */

typedef enum {
    AOE_PAIRED_REJECT = -1,   /* keep the default: slower, a tie, or under 1 % better */
    AOE_PAIRED_UNDECIDED = 0, /* within the noise so far: measure another round */
    AOE_PAIRED_ACCEPT = 1,    /* faster by more than the noise of the ratio */
} aoe_paired_verdict;

typedef struct {
    size_t rounds;
    size_t faster;       /* rounds in which the best was faster */
    double median_ratio; /* median of best/default over the rounds */
    double lower, upper; /* ~95 % one-sided confidence bounds of that median */
} aoe_paired_stats;

/* Decides from n rounds of paired medians (pure; no timing of its own).
 * ACCEPT needs n >= AOE_PAIRED_MIN_ROUNDS, median ratio < AOE_PAIRED_MIN_GAIN,
 * upper < 1, and the best faster in every round (every round but one from 5
 * rounds on: one load spike neither vetoes nor decides). REJECT when the best
 * was not faster in 2 rounds, when lower >= AOE_PAIRED_MIN_GAIN, or when a
 * timing is not a positive finite number. The bounds come from the log ratios:
 * median +- t(95 %, m-1) x 1.2533 x sd / sqrt(m), sd over the m rounds left
 * after dropping (from 5 rounds on) the one farthest from the median.
 * `st` may be NULL. */
aoe_paired_verdict aoe_paired_decide(const double *best_us, const double *default_us, size_t n,
                                     aoe_paired_stats *st);

#endif
