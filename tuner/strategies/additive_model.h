/* A Bayesian additive model of log(time): one weight per parameter value,
 * ridge prior, fitted by Cholesky. It ranks value combinations by the average
 * effect of each value; its posterior draws give Thompson-sampling
 * exploration. Shared by the surrogate and portfolio strategies. */
#ifndef AOE_STRATEGIES_ADDITIVE_MODEL_H
#define AOE_STRATEGIES_ADDITIVE_MODEL_H

#include "tuner/strategies/common.h"

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int d;       /* features: one per parameter value */
    int *offset; /* first feature of each parameter */
    double *a;   /* d x d: X'X + lambda I */
    double *b;   /* X'y */
    double *l;   /* Cholesky factor of a */
    double *w;   /* posterior mean */
    double *ws;  /* one posterior sample */
    double *tmp;
    double lambda;
    double sum_y, sum_yy;
    size_t n;
} aoe_additive_model;

/* Room for the space's features; returns 0, or -1 when out of memory. */
int aoe_additive_init(aoe_additive_model *m, const aoe_search_space *sp, double lambda);
void aoe_additive_free(aoe_additive_model *m);
/* Forgets every observation. */
void aoe_additive_reset(aoe_additive_model *m);
void aoe_additive_add(aoe_additive_model *m, const aoe_search_space *sp, const uint16_t *row,
                      double y);
/* Posterior mean weights w (relative to the mean of the observations). */
void aoe_additive_fit(aoe_additive_model *m);
/* ws = one posterior draw, its spread scaled by `scale`. */
void aoe_additive_sample(aoe_additive_model *m, aoe_rng *rng, double scale);
double aoe_additive_predict(const aoe_additive_model *m, const double *w, const uint16_t *row,
                            int np);

/* qsort_r order of rows by measured time (ctx: the aoe_search), ties by row. */
int aoe_by_time(const void *x, const void *y, void *ctx);

#endif
