/* Value-index Gaussian process: see index_gp.h. */
#include "tuner/strategies/index_gp.h"
#include "tuner/strategies/gp_solve.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EI_CHECK 16 /* solve steps between two looks at the bound */

int aoe_index_gp_init(aoe_index_gp *g, const aoe_search_space *sp, size_t cap, double noise)
{
    memset(g, 0, sizeof *g);
    size_t c = cap ? cap : 1;
    g->np = sp->n_params;
    g->cap = c;
    g->noise = noise;
    g->ls = 1;
    g->scale = malloc((size_t)(sp->n_params ? sp->n_params : 1) * sizeof(double));
    g->rows = malloc(c * sizeof(long));
    g->l = malloc(c * c * sizeof(double));
    g->alpha = malloc(c * sizeof(double));
    g->tmp = malloc(c * sizeof(double));
    if (!g->scale || !g->rows || !g->l || !g->alpha || !g->tmp) return -1;
    for (int p = 0; p < sp->n_params; p++)
        g->scale[p] = sp->n_values[p] > 1 ? 1.0 / (sp->n_values[p] - 1) : 0;
    return 0;
}

void aoe_index_gp_free(aoe_index_gp *g)
{
    free(g->scale);
    free(g->rows);
    free(g->l);
    free(g->alpha);
    free(g->tmp);
    memset(g, 0, sizeof *g);
}

static double kern(const aoe_index_gp *g, const aoe_search *s, long a, long b, double ls)
{
    const uint16_t *x = aoe_search_row(s, a), *y = aoe_search_row(s, b);
    double d2 = 0;
    for (int p = 0; p < g->np; p++) {
        double d = ((double)x[p] - (double)y[p]) * g->scale[p];
        d2 += d * d;
    }
    return exp(-0.5 * d2 / (ls * ls));
}

/* Cholesky of K + noise I for length scale ls into g->l, alpha into g->alpha;
 * returns the log marginal likelihood (constant dropped). */
static double fit_one(aoe_index_gp *g, const aoe_search *s, const double *ys, double ls)
{
    size_t n = g->n, c = g->cap;
    double *l = g->l;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j <= i; j++)
            l[i * c + j] = kern(g, s, g->rows[i], g->rows[j], ls) + (i == j ? g->noise : 0);
    return aoe_gp_factor_solve(l, c, n, ys, g->tmp, g->alpha);
}

void aoe_index_gp_fit(aoe_index_gp *g, const aoe_search *s, const long *rows, const double *ys,
                      size_t n, const double *ls, int n_ls)
{
    g->n = n < g->cap ? n : g->cap;
    memcpy(g->rows, rows, g->n * sizeof(long));
    int best = 0;
    double best_lml = -INFINITY;
    for (int i = 0; i < n_ls && n_ls > 1; i++) {
        double lml = fit_one(g, s, ys, ls[i]);
        if (lml > best_lml) best_lml = lml, best = i;
    }
    g->ls = ls[best];
    fit_one(g, s, ys, g->ls); /* the factor of the chosen scale is the one kept */
}

/* The posterior variance only shrinks as the forward solve L v = k goes on
 * (variance 1 - |v|^2), and expected improvement grows with the deviation,
 * so a partial solve bounds it from above: a row whose bound is already no
 * better than `floor` is left there. The best row is the one a full score
 * would find; most rows cost only their kernel vector and a few solve steps. */
double aoe_index_gp_ei(aoe_index_gp *g, const aoe_search *s, long row, double f, double floor)
{
    size_t n = g->n, c = g->cap;
    double *k = g->tmp, mean = 0, ex = 0;
    for (size_t i = 0; i < n; i++) {
        k[i] = kern(g, s, row, g->rows[i], g->ls);
        mean += k[i] * g->alpha[i];
    }
    for (size_t i = 0;; i += EI_CHECK) { /* a bound until i reaches n, then the value */
        double var = 1 - ex;
        double ei = aoe_expected_improvement(f, mean, sqrt(var > 1e-12 ? var : 1e-12));
        if (i >= n || ei <= floor) return ei;
        aoe_gp_forward(g->l, c, i, i + EI_CHECK < n ? i + EI_CHECK : n, k, &ex);
    }
}

double aoe_expected_improvement(double f, double mu, double sd)
{
    double z = (f - mu) / sd;
    return (f - mu) * 0.5 * erfc(-z / M_SQRT2) + sd * exp(-0.5 * z * z) / sqrt(2 * M_PI);
}
