/* An exact Gaussian process over configurations whose kernel is a squared
 * exponential of the distance between normalised value indices (each
 * parameter's indices mapped onto [0, 1]): configurations with nearby values
 * are alike. Its length scale is picked among a few by marginal likelihood,
 * or, with `average`, every scale is kept and expected improvement is their
 * average weighted by likelihood. Meant for small spaces, where every unseen
 * configuration can be scored. */
#ifndef AOE_STRATEGIES_INDEX_GP_H
#define AOE_STRATEGIES_INDEX_GP_H

#include "tuner/strategies/common.h"

#include <stddef.h>

#define AOE_GP_SCALES 3 /* length scales one fit may keep: the portfolio's three */

typedef struct {
    int np;
    double *scale;            /* per parameter: 1 / (values - 1), 0 for a single value */
    int average;              /* 0: the most likely scale only; 1: every scale, by likelihood */
    int kept;                 /* scales kept by the last fit ... */
    double ls[AOE_GP_SCALES]; /* ... each in normalised index units ... */
    double w[AOE_GP_SCALES];  /* ... and its weight (posterior probability) */
    double noise;             /* observation noise variance (targets standardised) */
    size_t n, cap;            /* observations fitted, at most cap */
    long *rows;
    double *l;     /* per kept scale, cap x cap: Cholesky factor of K + noise I */
    double *alpha; /* per kept scale, cap: (K + noise I)^-1 y */
    double *tmp;   /* per kept scale, cap: a kernel vector */
} aoe_index_gp;

/* Room for `cap` observations. Returns 0, or -1 when out of memory. */
int aoe_index_gp_init(aoe_index_gp *g, const aoe_search_space *sp, size_t cap, double noise);
void aoe_index_gp_free(aoe_index_gp *g);

/* Fits the first min(n, cap) rows with standardised targets ys under each of
 * the n_ls (at most AOE_GP_SCALES) length scales, keeping the one of highest
 * marginal likelihood or, with `average`, every one whose posterior
 * probability (a uniform prior over the scales) is at least 0.001. */
void aoe_index_gp_fit(aoe_index_gp *g, const aoe_search *s, const long *rows, const double *ys,
                      size_t n, const double *ls, int n_ls);

/* Expected improvement below `f` of a normal (mu, sd). */
double aoe_expected_improvement(double f, double mu, double sd);

/* Expected improvement below `f` at row `row` (averaged over the kept scales
 * by their weights), or, when it cannot exceed `floor`, some value no greater
 * than `floor` (computed faster). */
double aoe_index_gp_ei(aoe_index_gp *g, const aoe_search *s, long row, double f, double floor);

#endif
