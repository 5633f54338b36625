/* The surrogate's first phase on small spaces: Bayesian optimisation proper.
 * A space-filling start (each new row as far as possible, in normalised value
 * indices, from every row measured so far) is followed by expected
 * improvement under a Gaussian process of log(time) (index_gp.h), scored over
 * every unseen configuration. On a small space with a small budget this finds
 * an optimum that only its surroundings announce (its neighbours fairly good,
 * the value's average poor), which the additive model misses. */
#include "tuner/strategies/common.h"
#include "tuner/strategies/index_gp.h"

#include <math.h>
#include <stdlib.h>

/* Tuned in simulation on tests/data/gemm_pocl.json.gz and slices of the
 * datasets of ../shared/datasets (README, strategies). */
#define BO_NOISE 0.1 /* observation noise variance, targets standardised */
/* Length scale, in [0, 1] index units: values a third of a parameter's range
 * apart correlate at 0.8. Choosing among 0.25, 0.5 and 1 by marginal
 * likelihood, or adding a per-value (additive) kernel part, did worse at 12
 * evaluations: a dozen points cannot pin hyperparameters down. */
static const double bo_scales[] = {0.5};

/* Unseen row farthest (L1, normalised indices) from every measured row; ties
 * are broken at random. A random row when nothing was measured yet. */
static long maximin_pick(aoe_search *s, const double *scale)
{
    const aoe_search_space *sp = s->space;
    if (s->evals == 0) return aoe_search_random_unseen(s);
    long best = -1;
    double bd = -1;
    size_t ties = 0;
    for (size_t r = 0; r < sp->n_configs; r++) {
        if (aoe_search_seen(s, (long)r)) continue;
        const uint16_t *x = aoe_search_row(s, (long)r);
        double d = INFINITY;
        for (size_t i = 0; i < s->evals && d > bd - 1e-12; i++) {
            const uint16_t *y = aoe_search_row(s, s->history[i]);
            double t = 0;
            for (int p = 0; p < sp->n_params; p++) t += fabs((double)x[p] - y[p]) * scale[p];
            if (t < d) d = t;
        }
        if (d > bd + 1e-12) {
            bd = d, best = (long)r, ties = 1;
        } else if (d > bd - 1e-12 && aoe_rng_below(&s->rng, ++ties) == 0) {
            best = (long)r;
        }
    }
    return best;
}

/* Parameters that vary, plus one: the start design's size (at most a third of
 * the phase, at least 2). */
static size_t design_size(const aoe_search_space *sp, size_t until)
{
    size_t n = 1;
    for (int p = 0; p < sp->n_params; p++) n += sp->n_values[p] > 1;
    if (n > until / 3) n = until / 3;
    return n < 2 ? 2 : n;
}

void aoe_surrogate_bo(aoe_search *s, size_t until)
{
    const aoe_search_space *sp = s->space;
    aoe_index_gp g = {0};
    long *rows = malloc((until ? until : 1) * sizeof(long));
    double *ys = malloc((until ? until : 1) * sizeof(double));
    if (!rows || !ys || aoe_index_gp_init(&g, sp, until, BO_NOISE)) goto out;
    size_t n_design = design_size(sp, until);
    while (s->evals < until && !aoe_search_done(s)) {
        size_t n = 0;
        double sum = 0, sumsq = 0, worst = -INFINITY;
        for (size_t i = 0; i < s->evals; i++) {
            long r = s->history[i];
            if (s->times[r] <= 0) continue;
            rows[n] = r;
            ys[n] = log(s->times[r]);
            sum += ys[n], sumsq += ys[n] * ys[n];
            if (ys[n] > worst) worst = ys[n];
            n++;
        }
        /* A failure counts as the slowest time seen: its surroundings are not
         * worth the uncertainty that no measurement at all would leave. */
        for (size_t i = 0, ok = n; i < s->evals && ok >= 2; i++) {
            long r = s->history[i];
            if (s->times[r] > 0) continue;
            rows[n] = r;
            ys[n] = worst;
            sum += worst, sumsq += worst * worst;
            n++;
        }
        long next = -1;
        if (s->evals < n_design || n < 2) {
            next = s->evals < n_design ? maximin_pick(s, g.scale) : aoe_search_random_unseen(s);
        } else {
            double mean = sum / (double)n, var = sumsq / (double)n - mean * mean;
            double sd = sqrt(var > 1e-12 ? var : 1e-12), f = INFINITY;
            for (size_t i = 0; i < n; i++) {
                ys[i] = (ys[i] - mean) / sd;
                if (ys[i] < f) f = ys[i];
            }
            aoe_index_gp_fit(&g, s, rows, ys, n, bo_scales,
                             (int)(sizeof bo_scales / sizeof bo_scales[0]));
            double best = -INFINITY;
            for (size_t r = 0; r < sp->n_configs; r++) {
                if (aoe_search_seen(s, (long)r)) continue;
                double ei = aoe_index_gp_ei(&g, s, (long)r, f, best);
                if (ei > best) best = ei, next = (long)r;
            }
        }
        if (next < 0) next = aoe_search_random_unseen(s);
        if (next < 0) break;
        aoe_search_eval(s, next);
    }
out:
    aoe_index_gp_free(&g);
    free(rows);
    free(ys);
}
