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
    g->scale = malloc((size_t)(sp->n_params ? sp->n_params : 1) * sizeof(double));
    g->rows = malloc(c * sizeof(long));
    g->l = malloc(AOE_GP_SCALES * c * c * sizeof(double));
    g->alpha = malloc(AOE_GP_SCALES * c * sizeof(double));
    g->tmp = malloc(AOE_GP_SCALES * c * sizeof(double));
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

/* Cholesky of K + noise I for length scale ls into slot `k` of g->l, alpha
 * into slot `k` of g->alpha; returns the log marginal likelihood (constant
 * dropped). */
static double fit_one(aoe_index_gp *g, const aoe_search *s, const double *ys, double ls, int k)
{
    size_t n = g->n, c = g->cap;
    double *l = g->l + (size_t)k * c * c;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j <= i; j++)
            l[i * c + j] = kern(g, s, g->rows[i], g->rows[j], ls) + (i == j ? g->noise : 0);
    return aoe_gp_factor_solve(l, c, n, ys, g->tmp, g->alpha + (size_t)k * c);
}

/* Slot `from`'s factor and alpha moved into slot `to`. */
static void move_slot(aoe_index_gp *g, int from, int to)
{
    size_t c = g->cap;
    memcpy(g->l + (size_t)to * c * c, g->l + (size_t)from * c * c, c * c * sizeof(double));
    memcpy(g->alpha + (size_t)to * c, g->alpha + (size_t)from * c, c * sizeof(double));
}

void aoe_index_gp_fit(aoe_index_gp *g, const aoe_search *s, const long *rows, const double *ys,
                      size_t n, const double *ls, int n_ls)
{
    g->n = n < g->cap ? n : g->cap;
    memcpy(g->rows, rows, g->n * sizeof(long));
    n_ls = n_ls < AOE_GP_SCALES ? n_ls : AOE_GP_SCALES;
    double lml[AOE_GP_SCALES], top = -INFINITY, sum = 0;
    int best = 0;
    for (int i = 0; i < n_ls; i++) { /* each scale's factor in its own slot */
        lml[i] = fit_one(g, s, ys, ls[i], i);
        if (lml[i] > top) top = lml[i], best = i;
    }
    if (!g->average || !isfinite(top)) {
        if (best) move_slot(g, best, 0);
        g->kept = 1, g->ls[0] = ls[best], g->w[0] = 1;
        return;
    }
    g->kept = 0;
    double e[AOE_GP_SCALES], total = 0;
    for (int i = 0; i < n_ls; i++) sum += e[i] = isfinite(lml[i]) ? exp(lml[i] - top) : 0;
    for (int i = 0; i < n_ls; i++) {
        double w = e[i] / sum;
        if (w < 1e-3) continue; /* too unlikely to change a choice: not scored */
        if (g->kept != i) move_slot(g, i, g->kept);
        g->ls[g->kept] = ls[i], g->w[g->kept++] = w, total += w;
    }
    for (int k = 0; k < g->kept; k++) g->w[k] /= total;
}

/* The posterior variance only shrinks as the forward solve L v = k goes on
 * (variance 1 - |v|^2), and expected improvement grows with the deviation,
 * so a partial solve bounds it from above (and a weighted sum of such bounds
 * bounds the average): a row whose bound is already no better than `floor` is
 * left there. The best row is the one a full score would find; most rows cost
 * only their kernel vectors and a few solve steps. */
double aoe_index_gp_ei(aoe_index_gp *g, const aoe_search *s, long row, double f, double floor)
{
    size_t n = g->n, c = g->cap;
    double mean[AOE_GP_SCALES] = {0}, explained[AOE_GP_SCALES] = {0};
    for (int k = 0; k < g->kept; k++) {
        double *v = g->tmp + (size_t)k * c, *alpha = g->alpha + (size_t)k * c;
        for (size_t i = 0; i < n; i++) {
            v[i] = kern(g, s, row, g->rows[i], g->ls[k]);
            mean[k] += v[i] * alpha[i];
        }
    }
    for (size_t i = 0;; i += EI_CHECK) { /* a bound until i reaches n, then the value */
        double ei = 0;
        for (int k = 0; k < g->kept; k++) {
            double var = 1 - explained[k];
            ei += g->w[k] * aoe_expected_improvement(f, mean[k], sqrt(var > 1e-12 ? var : 1e-12));
        }
        if (i >= n || ei <= floor) return ei;
        size_t to = i + EI_CHECK < n ? i + EI_CHECK : n;
        for (int k = 0; k < g->kept; k++)
            aoe_gp_forward(g->l + (size_t)k * c * c, c, i, to, g->tmp + (size_t)k * c,
                           &explained[k]);
    }
}

double aoe_expected_improvement(double f, double mu, double sd)
{
    double z = (f - mu) / sd;
    return (f - mu) * 0.5 * erfc(-z / M_SQRT2) + sd * exp(-0.5 * z * z) / sqrt(2 * M_PI);
}
