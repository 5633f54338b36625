/* The additive model of log(time): see additive_model.h. */
#include "tuner/strategies/additive_model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int aoe_additive_init(aoe_additive_model *m, const aoe_search_space *sp, double lambda)
{
    memset(m, 0, sizeof *m);
    m->offset = malloc((size_t)sp->n_params * sizeof(int));
    m->lambda = lambda;
    if (!m->offset) return -1;
    for (int p = 0; p < sp->n_params; p++) {
        m->offset[p] = m->d;
        m->d += sp->n_values[p];
    }
    size_t d = (size_t)m->d;
    m->a = calloc(d * d, sizeof(double));
    m->l = calloc(d * d, sizeof(double));
    m->b = calloc(d, sizeof(double));
    m->w = calloc(d, sizeof(double));
    m->ws = calloc(d, sizeof(double));
    m->tmp = calloc(d, sizeof(double));
    if (!m->a || !m->l || !m->b || !m->w || !m->ws || !m->tmp) return -1;
    for (size_t i = 0; i < d; i++) m->a[i * d + i] = lambda;
    return 0;
}

void aoe_additive_free(aoe_additive_model *m)
{
    free(m->offset);
    free(m->a);
    free(m->l);
    free(m->b);
    free(m->w);
    free(m->ws);
    free(m->tmp);
}

void aoe_additive_reset(aoe_additive_model *m)
{
    size_t d = (size_t)m->d;
    memset(m->a, 0, d * d * sizeof(double));
    memset(m->b, 0, d * sizeof(double));
    for (size_t i = 0; i < d; i++) m->a[i * d + i] = m->lambda;
    m->sum_y = m->sum_yy = 0;
    m->n = 0;
}

void aoe_additive_add(aoe_additive_model *m, const aoe_search_space *sp, const uint16_t *row,
                      double y)
{
    int np = sp->n_params;
    size_t d = (size_t)m->d;
    for (int p = 0; p < np; p++) {
        int i = m->offset[p] + row[p];
        m->b[i] += y;
        for (int q = 0; q < np; q++) m->a[(size_t)i * d + (size_t)(m->offset[q] + row[q])] += 1;
    }
    m->sum_y += y;
    m->sum_yy += y * y;
    m->n++;
}

/* Cholesky of a, then w = a^-1 X'(y - mean): weights relative to the mean. */
void aoe_additive_fit(aoe_additive_model *m)
{
    size_t d = (size_t)m->d;
    double mean = m->sum_y / (double)m->n;
    memcpy(m->l, m->a, d * d * sizeof(double));
    for (size_t j = 0; j < d; j++) {
        double s = m->l[j * d + j];
        for (size_t k = 0; k < j; k++) s -= m->l[j * d + k] * m->l[j * d + k];
        double r = sqrt(s > 1e-12 ? s : 1e-12);
        m->l[j * d + j] = r;
        for (size_t i = j + 1; i < d; i++) {
            double t = m->l[i * d + j];
            for (size_t k = 0; k < j; k++) t -= m->l[i * d + k] * m->l[j * d + k];
            m->l[i * d + j] = t / r;
        }
    }
    /* X'(y - mean) = b - mean * count, and a feature's count is a_ii - lambda. */
    for (size_t i = 0; i < d; i++) {
        double t = m->b[i] - mean * (m->a[i * d + i] - m->lambda);
        for (size_t k = 0; k < i; k++) t -= m->l[i * d + k] * m->tmp[k];
        m->tmp[i] = t / m->l[i * d + i];
    }
    for (size_t i = d; i-- > 0;) {
        double t = m->tmp[i];
        for (size_t k = i + 1; k < d; k++) t -= m->l[k * d + i] * m->w[k];
        m->w[i] = t / m->l[i * d + i];
    }
}

/* ws = w + scale * L^-T z, z standard normal: a draw from the posterior. */
void aoe_additive_sample(aoe_additive_model *m, aoe_rng *rng, double scale)
{
    size_t d = (size_t)m->d;
    for (size_t i = 0; i < d; i++) {
        double u1 = aoe_rng_uniform(rng), u2 = aoe_rng_uniform(rng);
        m->tmp[i] = sqrt(-2 * log(1 - u1)) * cos(2 * M_PI * u2);
    }
    for (size_t i = d; i-- > 0;) {
        double t = m->tmp[i];
        for (size_t k = i + 1; k < d; k++) t -= m->l[k * d + i] * m->ws[k];
        m->ws[i] = t / m->l[i * d + i];
    }
    for (size_t i = 0; i < d; i++) m->ws[i] = m->w[i] + scale * m->ws[i];
}

double aoe_additive_predict(const aoe_additive_model *m, const double *w, const uint16_t *row,
                            int np)
{
    double y = 0;
    for (int p = 0; p < np; p++) y += w[m->offset[p] + row[p]];
    return y;
}

/* Unseen row minimising the sampled model over the whole space. */

int aoe_by_time(const void *x, const void *y, void *ctx)
{
    const aoe_search *s = ctx;
    long i = *(const long *)x, j = *(const long *)y;
    double a = s->times[i], b = s->times[j];
    if (a != b) return a < b ? -1 : 1;
    return i < j ? -1 : i > j; /* ties by row: the order stays reproducible */
}
