/* Model-guided search: a Bayesian additive model of log(time) (one weight per
 * parameter value, ridge prior) learnt from every measurement. Steps alternate
 * between a global pick, the unseen configuration that a Thompson sample of
 * the model ranks best over the whole valid space (exploration that favours
 * promising value combinations), and a local pick, the unseen neighbour of
 * the best configurations that the model's mean ranks best (the interactions
 * the additive model cannot see are found by looking next to the incumbent). */
#include "tuner/strategies/common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Tuned in simulation on the datasets of ../shared/datasets (README). */
#ifndef N_INIT
#define N_INIT 10        /* random configurations before the model is trusted */
#endif
#ifndef LAMBDA
#define LAMBDA 1.0       /* ridge prior on every value's weight */
#endif
#ifndef EXPLORE
#define EXPLORE 1.0      /* Thompson sample scale, in standard deviations of log(time) */
#endif
#ifndef CAP_QUANTILE
#define CAP_QUANTILE 0.5 /* times above this quantile count as this quantile */
#endif
#ifndef GLOBAL_PERIOD
#define GLOBAL_PERIOD 2  /* every 2nd step is global, the others local */
#endif
#ifndef RANDOM_PERIOD
#define RANDOM_PERIOD 10 /* every 10th step is uniformly random: escapes traps */
#endif
#ifndef LOCAL_TOP
#define LOCAL_TOP 3      /* local steps look next to the 3 best configurations */
#endif
#define MAX_FEATURES 512 /* beyond this the dense model costs too much: use ILS */
#ifndef MIX
#define MIX 2
#endif
#ifndef LOCAL_TOP_1
#define LOCAL_TOP_1 3
#endif
#ifndef GP_AFTER
#define GP_AFTER 10
#endif
#ifndef STALL
#define STALL 20
#endif
#ifndef RADIUS
#define RADIUS 2
#endif

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
} model;

static int model_init(model *m, const aoe_search_space *sp, double lambda)
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

static void model_free(model *m)
{
    free(m->offset);
    free(m->a);
    free(m->l);
    free(m->b);
    free(m->w);
    free(m->ws);
    free(m->tmp);
}

static void model_reset(model *m)
{
    size_t d = (size_t)m->d;
    memset(m->a, 0, d * d * sizeof(double));
    memset(m->b, 0, d * sizeof(double));
    for (size_t i = 0; i < d; i++) m->a[i * d + i] = m->lambda;
    m->sum_y = m->sum_yy = 0;
    m->n = 0;
}

static void model_add(model *m, const aoe_search_space *sp, const uint16_t *row, double y)
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
static void model_fit(model *m)
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
static void model_sample(model *m, aoe_rng *rng, double scale)
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

static double predict(const model *m, const double *w, const uint16_t *row, int np)
{
    double y = 0;
    for (int p = 0; p < np; p++) y += w[m->offset[p] + row[p]];
    return y;
}

/* Unseen row minimising the sampled model over the whole space. */
static long global_pick(aoe_search *s, model *m)
{
    int np = s->space->n_params;
    long best = -1;
    double by = INFINITY;
    for (size_t r = 0; r < s->space->n_configs; r++) {
        if (aoe_search_seen(s, (long)r)) continue;
        double y = predict(m, m->ws, aoe_search_row(s, (long)r), np);
        if (y < by) by = y, best = (long)r;
    }
    return best;
}


#ifndef W_ADD
#define W_ADD 1.0
#endif
#ifndef W_PAIR
#define W_PAIR 1.0
#endif
#ifndef NOISE
#define NOISE 0.1
#endif
#ifndef KAPPA
#define KAPPA 1.0
#endif

/* Gaussian process over match counts: k(x, x') depends on how many of the
 * varying parameters two configurations share (additive + pairwise terms). */
typedef struct {
    int P;       /* parameters with more than one value */
    int *eff;    /* their indices */
    size_t n, cap;
    long *rows;
    double *l, *alpha, *kv;
    double kcache[65];
} gp;

static int gp_init(gp *g, const aoe_search_space *sp, size_t cap)
{
    memset(g, 0, sizeof *g);
    g->eff = malloc((size_t)sp->n_params * sizeof(int));
    g->rows = malloc(cap * sizeof(long));
    g->l = malloc(cap * cap * sizeof(double));
    g->alpha = malloc(cap * sizeof(double));
    g->kv = malloc(cap * sizeof(double));
    g->cap = cap;
    if (!g->eff || !g->rows || !g->l || !g->alpha || !g->kv) return -1;
    for (int p = 0; p < sp->n_params; p++)
        if (sp->n_values[p] > 1) g->eff[g->P++] = p;
    int P = g->P > 1 ? g->P : 2;
    for (int m = 0; m <= g->P && m < 65; m++)
        g->kcache[m] = W_ADD * m / P + W_PAIR * (double)m * (m - 1) / ((double)P * (P - 1));
    return 0;
}

static void gp_free(gp *g)
{
    free(g->eff);
    free(g->rows);
    free(g->l);
    free(g->alpha);
    free(g->kv);
}

static double gp_k(const gp *g, const aoe_search *s, long a, long b)
{
    const uint16_t *x = aoe_search_row(s, a), *y = aoe_search_row(s, b);
    int m = 0;
    for (int i = 0; i < g->P; i++) m += x[g->eff[i]] == y[g->eff[i]];
    return g->kcache[m];
}

/* Fits rows/ys (n of them, y standardised). */
static void gp_fit(gp *g, const aoe_search *s, const long *rows, const double *ys, size_t n)
{
    size_t c = n;
    g->n = n;
    memcpy(g->rows, rows, n * sizeof(long));
    double *l = g->l;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j <= i; j++) l[i * c + j] = gp_k(g, s, rows[i], rows[j]) + (i == j ? NOISE : 0);
    for (size_t j = 0; j < n; j++) {
        double t = l[j * c + j];
        for (size_t k = 0; k < j; k++) t -= l[j * c + k] * l[j * c + k];
        double r = sqrt(t > 1e-12 ? t : 1e-12);
        l[j * c + j] = r;
        for (size_t i = j + 1; i < n; i++) {
            double u = l[i * c + j];
            for (size_t k = 0; k < j; k++) u -= l[i * c + k] * l[j * c + k];
            l[i * c + j] = u / r;
        }
    }
    for (size_t i = 0; i < n; i++) {
        double t = ys[i];
        for (size_t k = 0; k < i; k++) t -= l[i * c + k] * g->kv[k];
        g->kv[i] = t / l[i * c + i];
    }
    for (size_t i = n; i-- > 0;) {
        double t = g->kv[i];
        for (size_t k = i + 1; k < n; k++) t -= l[k * c + i] * g->alpha[k];
        g->alpha[i] = t / l[i * c + i];
    }
}

/* Lower confidence bound of row r. */
static double gp_lcb(gp *g, const aoe_search *s, long r)
{
    size_t n = g->n, c = n;
    double mu = 0, vv = 0;
    for (size_t i = 0; i < n; i++) {
        double k = gp_k(g, s, r, g->rows[i]);
        mu += k * g->alpha[i];
        double t = k;
        for (size_t j = 0; j < i; j++) t -= g->l[i * c + j] * g->kv[j];
        g->kv[i] = t / g->l[i * c + i];
        vv += g->kv[i] * g->kv[i];
    }
    double var = g->kcache[g->P] - vv;
    return mu - KAPPA * sqrt(var > 0 ? var : 0);
}

/* Unseen rows differing from `row` in one or two parameters. */
static size_t near_unseen(aoe_search *s, long row, int radius, long *out, size_t cap)
{
    int np = s->space->n_params;
    uint16_t vec[np];
    memcpy(vec, aoe_search_row(s, row), (size_t)np * sizeof(uint16_t));
    size_t k = 0;
    for (int p = 0; p < np; p++) {
        uint16_t op = vec[p];
        for (int v = 0; v < s->space->n_values[p]; v++) {
            if (v == op) continue;
            vec[p] = (uint16_t)v;
            long r = aoe_search_find(s, vec);
            if (r >= 0 && !aoe_search_seen(s, r) && k < cap) out[k++] = r;
            for (int q = p + 1; radius > 1 && q < np; q++) {
                uint16_t oq = vec[q];
                for (int w = 0; w < s->space->n_values[q]; w++) {
                    if (w == oq) continue;
                    vec[q] = (uint16_t)w;
                    long r2 = aoe_search_find(s, vec);
                    if (r2 >= 0 && !aoe_search_seen(s, r2) && k < cap) out[k++] = r2;
                }
                vec[q] = oq;
            }
        }
        vec[p] = op;
    }
    return k;
}

/* Unseen neighbour of one of the `top` best rows minimising the model mean. */
static long local_pick(aoe_search *s, model *m, const double *w, const long *ranked,
                       size_t n_ranked, size_t top, long *nb, size_t cap)
{
    int np = s->space->n_params;
    for (size_t i = 0; i < n_ranked && i < top; i++) {
        size_t k = near_unseen(s, ranked[i], 1, nb, cap);
        long best = -1;
        double by = INFINITY;
        for (size_t j = 0; j < k; j++) {
            if (aoe_search_seen(s, nb[j])) continue;
            double y = predict(m, w, aoe_search_row(s, nb[j]), np);
            if (y < by) by = y, best = nb[j];
        }
        if (best >= 0) return best;
    }
    return -1;
}

static long gp_local_pick(aoe_search *s, gp *g, const long *ranked, size_t n_ranked, size_t top,
                          long *nb, size_t cap, unsigned char *mark)
{
    long best = -1;
    double by = INFINITY;
    for (size_t i = 0; i < n_ranked && i < top; i++) {
        size_t k = near_unseen(s, ranked[i], RADIUS, nb, cap);
        for (size_t j = 0; j < k; j++) {
            if (mark[nb[j]]) continue;
            mark[nb[j]] = 1;
            double y = gp_lcb(g, s, nb[j]);
            if (y < by) by = y, best = nb[j];
        }
        for (size_t j = 0; j < k; j++) mark[nb[j]] = 0;
    }
    return best;
}

static int by_time(const void *x, const void *y, void *ctx)
{
    const aoe_search *s = ctx;
    long i = *(const long *)x, j = *(const long *)y;
    double a = s->times[i], b = s->times[j];
    if (a != b) return a < b ? -1 : 1;
    return i < j ? -1 : i > j; /* ties by row: the order stays reproducible */
}

void aoe_strategy_surrogate(aoe_search *s)
{
    const aoe_search_space *sp = s->space;
    size_t features = aoe_search_max_neighbours(s); /* one per parameter value */
    if (features > MAX_FEATURES) {
        aoe_strategy_ils(s);
        return;
    }
    size_t cap = aoe_search_max_neighbours(s);
    cap = cap * cap / 2 + cap;
    if (cap > sp->n_configs) cap = sp->n_configs;
    model m = {0};
    gp g = {0};
    unsigned char *mark = calloc(sp->n_configs, 1);
    double *ys = malloc(sp->n_configs * sizeof(double));
    size_t gcap = s->max_evals;
    long *nb = malloc((cap ? cap : 1) * sizeof(long));
    long *ranked = malloc(sp->n_configs * sizeof(long));
    if (!nb || !ranked || !mark || !ys || model_init(&m, sp, LAMBDA) || gp_init(&g, sp, gcap))
        goto out;
    size_t seen = 0, n_ranked = 0;
    size_t improved_at = 0;
    double last_best = INFINITY;
    for (int step = 0; !aoe_search_done(s); step++) {
        if (s->best_time < last_best) last_best = s->best_time, improved_at = s->evals;
        for (; seen < s->evals; seen++) {
            long r = s->history[seen];
            if (s->times[r] > 0) ranked[n_ranked++] = r; /* failures teach nothing */
        }
        long next = -1;
        if (n_ranked >= N_INIT && step % RANDOM_PERIOD != RANDOM_PERIOD - 1) {
            qsort_r(ranked, n_ranked, sizeof(long), by_time, s);
            /* Slow configurations are capped at a quantile: the model should
             * rank the good region, not explain how bad the bad ones are. */
            size_t qi = (size_t)(CAP_QUANTILE * (double)(n_ranked - 1));
            double ycap = log(s->times[ranked[qi]]);
            model_reset(&m);
            for (size_t i = 0; i < n_ranked; i++) {
                double y = log(s->times[ranked[i]]);
                model_add(&m, sp, aoe_search_row(s, ranked[i]), y < ycap ? y : ycap);
            }
            model_fit(&m);
            double var = m.sum_yy / m.n - (m.sum_y / m.n) * (m.sum_y / m.n);
            double sd = sqrt(var > 1e-12 ? var : 1e-12);
            bool local = step % GLOBAL_PERIOD != 0;
            /* Exploration widens while the incumbent stalls: a run stuck on a
             * plateau the model is sure of must look elsewhere. */
            double widen = 1 + (double)(s->evals - improved_at) / STALL;
            model_sample(&m, &s->rng, EXPLORE * sd * widen);
            bool gp_step = s->evals - improved_at >= GP_AFTER;
            if (local && !gp_step) next = local_pick(s, &m, m.w, ranked, n_ranked, LOCAL_TOP_1, nb, cap);
            else if (local) {
                double mean = m.sum_y / m.n;
                for (size_t i = 0; i < n_ranked; i++) {
                    double y = log(s->times[ranked[i]]);
                    ys[i] = ((y < ycap ? y : ycap) - mean) / sd;
                }
                gp_fit(&g, s, ranked, ys, n_ranked);
                next = gp_local_pick(s, &g, ranked, n_ranked, LOCAL_TOP, nb, cap, mark);
            }
            if (next < 0) {
                if (local) model_sample(&m, &s->rng, EXPLORE * sd * widen);
                next = global_pick(s, &m);
            }
        }
        if (next < 0) next = aoe_search_random_unseen(s);
        if (next < 0) break;
        aoe_search_eval(s, next);
#ifdef TRACE
        { const uint16_t *v = aoe_search_row(s, next); fprintf(stderr, "%zu %c %.3f best %.3f  ", s->evals, step % RANDOM_PERIOD == RANDOM_PERIOD - 1 ? 'R' : step % GLOBAL_PERIOD ? 'L' : 'G', s->times[next] > 0 ? 0.5536 / s->times[next] : 0, 0.5536 / s->best_time); for (int p = 0; p < sp->n_params; p++) fprintf(stderr, "%d ", v[p]); fprintf(stderr, "\n"); }
#endif
    }
out:
    model_free(&m);
    gp_free(&g);
    free(mark);
    free(ys);
    free(nb);
    free(ranked);
}
