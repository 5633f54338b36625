/* Candidate picks of the model-guided strategies: see model_picks.h. */
#include "tuner/strategies/model_picks.h"

#include <math.h>
#include <string.h>

#define GLOBAL_GP_TOP 64 /* global GP picks choose among the sample's 64 best rows */

long aoe_pick_global(aoe_search *s, aoe_additive_model *m)
{
    int np = s->space->n_params;
    long best = -1;
    double by = INFINITY;
    for (size_t r = 0; r < s->space->n_configs; r++) {
        if (aoe_search_seen(s, (long)r)) continue;
        double y = aoe_additive_predict(m, m->ws, aoe_search_row(s, (long)r), np);
        if (y < by) by = y, best = (long)r;
    }
    return best;
}

/* Unseen neighbour of one of the `top` best rows minimising the model mean. */
long aoe_pick_local(aoe_search *s, aoe_additive_model *m, const double *w, const long *ranked,
                    size_t n_ranked, size_t top, long *nb, size_t cap)
{
    int np = s->space->n_params;
    for (size_t i = 0; i < n_ranked && i < top; i++) {
        size_t k = aoe_search_neighbours(s, ranked[i], false, nb, cap);
        long best = -1;
        double by = INFINITY;
        for (size_t j = 0; j < k; j++) {
            if (aoe_search_seen(s, nb[j])) continue;
            double y = aoe_additive_predict(m, w, aoe_search_row(s, nb[j]), np);
            if (y < by) by = y, best = nb[j];
        }
        if (best >= 0) return best;
    }
    return -1;
}

/* Unseen rows differing from `row` in one or two parameters (at most cap). */
size_t aoe_within_two(aoe_search *s, long row, long *out, size_t cap)
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
            for (int q = p + 1; q < np; q++) {
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

/* Among the GLOBAL_GP_TOP unseen rows the sampled model ranks best, the one
 * with the lowest GP lower confidence bound: the additive model proposes
 * promising regions, the GP (which sees value pairs) picks among them. */
long aoe_pick_global_gp(aoe_search *s, aoe_additive_model *m, aoe_match_gp *g, double kappa)
{
    int np = s->space->n_params;
    long top[GLOBAL_GP_TOP];
    double ty[GLOBAL_GP_TOP];
    size_t k = 0;
    for (size_t r = 0; r < s->space->n_configs; r++) {
        if (aoe_search_seen(s, (long)r)) continue;
        double y = aoe_additive_predict(m, m->ws, aoe_search_row(s, (long)r), np);
        if (k == GLOBAL_GP_TOP && y >= ty[k - 1]) continue;
        size_t i = k < GLOBAL_GP_TOP ? k++ : k - 1; /* insertion into the sorted list */
        for (; i > 0 && ty[i - 1] > y; i--) top[i] = top[i - 1], ty[i] = ty[i - 1];
        top[i] = (long)r, ty[i] = y;
    }
    long best = -1;
    double by = INFINITY;
    for (size_t i = 0; i < k; i++) {
        double v = aoe_match_gp_lcb(g, s, top[i], kappa);
        if (v < by) by = v, best = top[i];
    }
    return best;
}

/* Unseen row within two changes of one of the `top` best rows minimising the
 * GP's lower confidence bound (`mark` keeps a row from being scored twice). */
long aoe_pick_gp(aoe_search *s, aoe_match_gp *g, double kappa, const long *ranked, size_t n_ranked,
                 size_t top, long *cand, size_t cap, unsigned char *mark)
{
    long best = -1;
    double by = INFINITY;
    for (size_t i = 0; i < n_ranked && i < top; i++) {
        size_t k = aoe_within_two(s, ranked[i], cand, cap);
        for (size_t j = 0; j < k; j++) {
            if (mark[cand[j]]) continue;
            mark[cand[j]] = 1;
            double y = aoe_match_gp_lcb(g, s, cand[j], kappa);
            if (y < by) by = y, best = cand[j];
        }
        for (size_t j = 0; j < k; j++) mark[cand[j]] = 0;
    }
    return best;
}
