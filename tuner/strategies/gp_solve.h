/* The linear algebra both Gaussian-process surrogates share: a Cholesky
 * factor of K + noise I (lower triangle, row stride `stride`, filled by the
 * caller) and the solves against it. Only the kernels differ. */
#ifndef AOE_GP_SOLVE_H
#define AOE_GP_SOLVE_H

#include <stddef.h>

/* Factorises l in place and solves alpha = (K + noise I)^-1 y (tmp: n
 * scratch). Returns the log marginal likelihood up to a constant. */
double aoe_gp_factor_solve(double *l, size_t stride, size_t n, const double *y, double *tmp,
                           double *alpha);

/* Rows [from, to) of the forward solve k <- L^-1 k (rows before `from`
 * already solved), adding their squares to *explained. */
void aoe_gp_forward(const double *l, size_t stride, size_t from, size_t to, double *k,
                    double *explained);

/* k holds k(x, x_i) for the n observations: returns sum k_i alpha_i (the
 * posterior mean) and |L^-1 k|^2 in *explained (k is overwritten). */
double aoe_gp_mean_explained(const double *l, size_t stride, size_t n, const double *alpha,
                             double *k, double *explained);

#endif
