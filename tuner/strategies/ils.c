/* Greedy iterated local search: first-improvement hill climbing over the
 * one-parameter-change neighbourhood (in a seeded random order); at a local
 * optimum, a short random walk from the best optimum found restarts the climb. */
#include "tuner/strategies/common.h"

#include <stdlib.h>

#define PERTURB_STEPS 3
#define FAILED_KICKS 8 /* kicks that found nothing new before a random restart */

static long first_success(aoe_search *s, long r)
{
    while (!aoe_search_done(s)) {
        if (r < 0) r = aoe_search_random_unseen(s);
        if (r < 0) return -1;
        if (aoe_search_eval(s, r) > 0) return r;
        r = -1;
    }
    return -1;
}

/* Climbs from `cur` until no neighbour improves; returns the local optimum. */
static long climb(aoe_search *s, long cur, long *nb, size_t cap)
{
    for (bool improved = true; improved && !aoe_search_done(s);) {
        improved = false;
        size_t k = aoe_search_neighbours(s, cur, false, nb, cap);
        aoe_rng_shuffle(&s->rng, nb, k);
        for (size_t i = 0; i < k && !aoe_search_done(s); i++) {
            double t = aoe_search_eval(s, nb[i]);
            if (t > 0 && t < s->times[cur]) {
                cur = nb[i];
                improved = true;
                break;
            }
        }
    }
    return cur;
}

void aoe_strategy_ils(aoe_search *s)
{
    size_t cap = aoe_search_max_neighbours(s);
    long *nb = malloc((cap ? cap : 1) * sizeof(long));
    if (!nb) return;
    long home = first_success(s, s->best), cur = home;
    int stuck = 0;
    while (home >= 0 && !aoe_search_done(s)) {
        size_t before = s->evals;
        if (aoe_search_eval(s, cur) > 0) {
            long opt = climb(s, cur, nb, cap);
            if (s->times[opt] < s->times[home]) home = opt;
        }
        stuck = s->evals == before ? stuck + 1 : 0;
        if (stuck >= FAILED_KICKS) {
            /* The walks keep landing on known ground: restart somewhere new. */
            stuck = 0;
            cur = first_success(s, -1);
            if (cur < 0) break;
            continue;
        }
        cur = aoe_search_perturb(s, home, PERTURB_STEPS);
    }
    free(nb);
}
