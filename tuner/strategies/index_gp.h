/* An exact Gaussian process over configurations whose kernel is a squared
 * exponential of the distance between normalised value indices (each
 * parameter's indices mapped onto [0, 1]): configurations with nearby values
 * are alike. Its length scale is picked among a few by marginal likelihood.
 * Meant for small spaces, where every unseen configuration can be scored. */
#ifndef AOE_STRATEGIES_INDEX_GP_H
#define AOE_STRATEGIES_INDEX_GP_H

#include "tuner/strategies/common.h"

#include <stddef.h>

typedef struct {
    int np;
    double *scale; /* per parameter: 1 / (values - 1), 0 for a single value */
    double ls;     /* length scale of the last fit, in normalised index units */
    double noise;  /* observation noise variance (targets standardised) */
    size_t n, cap; /* observations fitted, at most cap */
    long *rows;
    double *l;     /* cap x cap: Cholesky factor of K + noise I */
    double *alpha; /* (K + noise I)^-1 y */
    double *tmp;
} aoe_index_gp;

/* Room for `cap` observations. Returns 0, or -1 when out of memory. */
int aoe_index_gp_init(aoe_index_gp *g, const aoe_search_space *sp, size_t cap, double noise);
void aoe_index_gp_free(aoe_index_gp *g);

/* Fits the first min(n, cap) rows with standardised targets ys, trying each
 * of the n_ls length scales and keeping the one of highest marginal likelihood. */
void aoe_index_gp_fit(aoe_index_gp *g, const aoe_search *s, const long *rows, const double *ys,
                      size_t n, const double *ls, int n_ls);

/* Expected improvement below `f` of a normal (mu, sd). */
double aoe_expected_improvement(double f, double mu, double sd);

/* Expected improvement below `f` at row `row`, or, when it cannot exceed
 * `floor`, some value no greater than `floor` (computed faster). */
double aoe_index_gp_ei(aoe_index_gp *g, const aoe_search *s, long row, double f, double floor);

#endif
