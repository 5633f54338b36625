/* Genetic algorithm: a small elitist population, tournament selection,
 * uniform crossover and per-gene mutation. Children the constraints exclude
 * are bred again; children already measured are mutated until new, so every
 * evaluation is spent on a new valid configuration. */
#include "tuner/strategies/common.h"

#include <stdlib.h>
#include <string.h>

#define POP 20
#define BREED_TRIES 32

static double fitness(const aoe_search *s, long r)
{
    return s->times[r] > 0 ? s->times[r] : 1e300; /* failures never win */
}

static long tournament(aoe_search *s, const long *pop, size_t n)
{
    long a = pop[aoe_rng_below(&s->rng, n)], b = pop[aoe_rng_below(&s->rng, n)];
    return fitness(s, a) <= fitness(s, b) ? a : b;
}

static long breed(aoe_search *s, const long *pop, size_t n, uint16_t *vec)
{
    int np = s->space->n_params;
    for (int tries = 0; tries < BREED_TRIES; tries++) {
        const uint16_t *a = aoe_search_row(s, tournament(s, pop, n));
        const uint16_t *b = aoe_search_row(s, tournament(s, pop, n));
        for (int p = 0; p < np; p++) {
            vec[p] = aoe_rng_below(&s->rng, 2) ? a[p] : b[p];
            if (aoe_rng_below(&s->rng, (size_t)np) == 0)
                vec[p] = (uint16_t)aoe_rng_below(&s->rng, (size_t)s->space->n_values[p]);
        }
        long r = aoe_search_find(s, vec);
        if (r >= 0 && !aoe_search_seen(s, r)) return r;
        if (r >= 0 && tries > BREED_TRIES / 2) {
            r = aoe_search_perturb(s, r, 1 + tries % 3);
            if (!aoe_search_seen(s, r)) return r;
        }
    }
    return aoe_search_random_unseen(s); /* the population has converged */
}

static int by_fitness_ctx_cmp(const void *x, const void *y, void *ctx)
{
    double a = fitness(ctx, *(const long *)x), b = fitness(ctx, *(const long *)y);
    if (a != b) return a < b ? -1 : 1;
    return *(const long *)x < *(const long *)y ? -1 : *(const long *)x > *(const long *)y;
}

void aoe_strategy_genetic(aoe_search *s)
{
    long pool[2 * POP];
    size_t n = 0;
    uint16_t vec[s->space->n_params > 0 ? s->space->n_params : 1];
    if (s->best >= 0) pool[n++] = s->best;
    while (n < POP && !aoe_search_done(s)) {
        long r = aoe_search_random_unseen(s);
        if (r < 0) break;
        aoe_search_eval(s, r);
        pool[n++] = r;
    }
    while (n > 0 && !aoe_search_done(s)) {
        size_t m = n;
        for (size_t c = 0; c < POP && !aoe_search_done(s); c++) {
            long r = breed(s, pool, n, vec);
            if (r < 0) break;
            aoe_search_eval(s, r);
            pool[m++] = r;
        }
        if (m == n) break;
        qsort_r(pool, m, sizeof(long), by_fitness_ctx_cmp, s);
        n = m < POP ? m : POP; /* elitist: parents compete with children */
    }
}
