/* A Gaussian process over configurations whose kernel depends only on how
 * many (varying) parameters two configurations share: an additive term (one
 * shared value) plus a pairwise term (two shared values). Unlike the additive
 * model it sees value interactions, and its variance says how unexplored a
 * configuration's surroundings are. Used by the surrogate strategy. */
#ifndef AOE_STRATEGIES_MATCH_GP_H
#define AOE_STRATEGIES_MATCH_GP_H

#include "tuner/strategies/common.h"

#include <stddef.h>

typedef struct {
    int n_eff;      /* parameters with more than one value */
    int *eff;       /* their indices */
    double *kernel; /* kernel by match count, n_eff + 1 entries */
    size_t n, cap;  /* observations fitted, at most cap */
    long *rows;
    double *l;     /* cap x cap: Cholesky factor of K + noise I */
    double *alpha; /* (K + noise I)^-1 y */
    double *tmp;
} aoe_match_gp;

/* Room for `cap` observations. Returns 0, or -1 when out of memory. */
int aoe_match_gp_init(aoe_match_gp *g, const aoe_search_space *sp, size_t cap);
void aoe_match_gp_free(aoe_match_gp *g);

/* Fits the first min(n, cap) rows with targets ys (standardised). */
void aoe_match_gp_fit(aoe_match_gp *g, const aoe_search *s, const long *rows, const double *ys,
                      size_t n);

/* Posterior mean minus kappa standard deviations at row `row`. */
double aoe_match_gp_lcb(aoe_match_gp *g, const aoe_search *s, long row, double kappa);

#endif
