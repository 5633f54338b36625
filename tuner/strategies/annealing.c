/* Simulated annealing over the one-parameter-change neighbourhood. The
 * temperature is relative (a move 10% slower is accepted with probability
 * exp(-0.1/T)) and cools geometrically with the spent share of the budget, so
 * the same schedule suits any time scale and any budget. */
#include "tuner/strategies/common.h"

#include <math.h>
#include <stdlib.h>

#define T_START 0.5
#define T_END 0.002
#define STALL_RESTART 32 /* moves without a new measurement before a random jump */

static long random_start(aoe_search *s, double *t)
{
    while (!aoe_search_done(s)) {
        long r = aoe_search_random_unseen(s);
        if (r < 0) return -1;
        *t = aoe_search_eval(s, r);
        if (*t > 0) return r;
    }
    return -1;
}

void aoe_strategy_annealing(aoe_search *s)
{
    size_t cap = aoe_search_max_neighbours(s);
    long *nb = malloc((cap ? cap : 1) * sizeof(long));
    if (!nb) return;
    double tcur = s->best_time;
    long cur = s->best >= 0 ? s->best : random_start(s, &tcur);
    int stall = 0;
    while (cur >= 0 && !aoe_search_done(s)) {
        size_t k = aoe_search_neighbours(s, cur, false, nb, cap);
        aoe_rng_shuffle(&s->rng, nb, k);
        long cand = -1;
        for (size_t i = 0; i < k && cand < 0; i++)
            if (!aoe_search_seen(s, nb[i])) cand = nb[i];
        if (cand < 0) {
            /* Every neighbour is known: wander for free, or jump when stuck. */
            if (k && ++stall < STALL_RESTART) {
                long nxt = nb[0];
                if (s->times[nxt] > 0) cur = nxt, tcur = s->times[nxt];
                continue;
            }
            stall = 0;
            cur = random_start(s, &tcur);
            continue;
        }
        stall = 0;
        double t = aoe_search_eval(s, cand);
        if (!(t > 0)) continue;
        double progress = (double)s->evals / (double)s->max_evals;
        double temp = T_START * pow(T_END / T_START, progress);
        double delta = (t - tcur) / tcur;
        if (delta <= 0 || aoe_rng_uniform(&s->rng) < exp(-delta / temp)) cur = cand, tcur = t;
    }
    free(nb);
}
