/* Match-count Gaussian process: see match_gp.h. */
#include "tuner/strategies/match_gp.h"
#include "tuner/strategies/gp_solve.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Tuned in simulation (README, strategies); targets are standardised. */
#define W_ADD 1.0  /* prior variance of the additive part */
#define W_PAIR 1.0 /* prior variance of the pairwise part */
#define NOISE 0.1  /* observation noise variance */

int aoe_match_gp_init(aoe_match_gp *g, const aoe_search_space *sp, size_t cap)
{
    memset(g, 0, sizeof *g);
    size_t c = cap ? cap : 1;
    g->cap = c;
    g->eff = malloc((size_t)sp->n_params * sizeof(int));
    g->kernel = malloc(((size_t)sp->n_params + 1) * sizeof(double));
    g->rows = malloc(c * sizeof(long));
    g->l = malloc(c * c * sizeof(double));
    g->alpha = malloc(c * sizeof(double));
    g->tmp = malloc(c * sizeof(double));
    if (!g->eff || !g->kernel || !g->rows || !g->l || !g->alpha || !g->tmp) return -1;
    for (int p = 0; p < sp->n_params; p++)
        if (sp->n_values[p] > 1) g->eff[g->n_eff++] = p;
    /* Share of the value singles and pairs two configurations have in common. */
    double P = g->n_eff > 1 ? g->n_eff : 2;
    for (int m = 0; m <= g->n_eff; m++)
        g->kernel[m] = W_ADD * m / P + W_PAIR * (double)m * (m - 1) / (P * (P - 1));
    return 0;
}

void aoe_match_gp_free(aoe_match_gp *g)
{
    free(g->eff);
    free(g->kernel);
    free(g->rows);
    free(g->l);
    free(g->alpha);
    free(g->tmp);
    memset(g, 0, sizeof *g);
}

static double kern(const aoe_match_gp *g, const aoe_search *s, long a, long b)
{
    const uint16_t *x = aoe_search_row(s, a), *y = aoe_search_row(s, b);
    int m = 0;
    for (int i = 0; i < g->n_eff; i++) m += x[g->eff[i]] == y[g->eff[i]];
    return g->kernel[m];
}

void aoe_match_gp_fit(aoe_match_gp *g, const aoe_search *s, const long *rows, const double *ys,
                      size_t n)
{
    if (n > g->cap) n = g->cap;
    size_t c = g->cap;
    double *l = g->l;
    g->n = n;
    memcpy(g->rows, rows, n * sizeof(long));
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j <= i; j++)
            l[i * c + j] = kern(g, s, rows[i], rows[j]) + (i == j ? NOISE : 0);
    aoe_gp_factor_solve(l, c, n, ys, g->tmp, g->alpha);
}

double aoe_match_gp_lcb(aoe_match_gp *g, const aoe_search *s, long row, double kappa)
{
    for (size_t i = 0; i < g->n; i++) g->tmp[i] = kern(g, s, row, g->rows[i]);
    double explained;
    double mu = aoe_gp_mean_explained(g->l, g->cap, g->n, g->alpha, g->tmp, &explained);
    double var = g->kernel[g->n_eff] - explained;
    return mu - kappa * sqrt(var > 0 ? var : 0);
}
