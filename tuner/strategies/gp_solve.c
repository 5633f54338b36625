#include "tuner/strategies/gp_solve.h"

#include <math.h>
#include <string.h>

double aoe_gp_factor_solve(double *l, size_t c, size_t n, const double *y, double *tmp,
                           double *alpha)
{
    double logdet = 0;
    for (size_t j = 0; j < n; j++) { /* Cholesky, lower triangle in place */
        double t = l[j * c + j];
        for (size_t k = 0; k < j; k++) t -= l[j * c + k] * l[j * c + k];
        double r = sqrt(t > 1e-12 ? t : 1e-12);
        l[j * c + j] = r;
        logdet += log(r);
        for (size_t i = j + 1; i < n; i++) {
            double u = l[i * c + j];
            for (size_t k = 0; k < j; k++) u -= l[i * c + k] * l[j * c + k];
            l[i * c + j] = u / r;
        }
    }
    double fit = 0;
    memcpy(tmp, y, n * sizeof *tmp);
    aoe_gp_forward(l, c, 0, n, tmp, &fit);
    for (size_t i = n; i-- > 0;) {
        double t = tmp[i];
        for (size_t k = i + 1; k < n; k++) t -= l[k * c + i] * alpha[k];
        alpha[i] = t / l[i * c + i];
    }
    return -0.5 * fit - logdet;
}

void aoe_gp_forward(const double *l, size_t c, size_t from, size_t to, double *k, double *explained)
{
    for (size_t i = from; i < to; i++) {
        double t = k[i];
        for (size_t j = 0; j < i; j++) t -= l[i * c + j] * k[j];
        k[i] = t / l[i * c + i];
        *explained += k[i] * k[i];
    }
}

double aoe_gp_mean_explained(const double *l, size_t c, size_t n, const double *alpha, double *k,
                             double *explained)
{
    double mean = 0;
    for (size_t i = 0; i < n; i++) mean += k[i] * alpha[i];
    *explained = 0;
    aoe_gp_forward(l, c, 0, n, k, explained);
    return mean;
}
