/* Brute force: every valid configuration once, in a seeded shuffled order, so
 * that a budget smaller than the space still samples it evenly and different
 * seeds visit it differently. */
#include "tuner/strategies/common.h"

#include <stdlib.h>

void aoe_strategy_brute(aoe_search *s)
{
    size_t n = s->space->n_configs;
    long *order = malloc((n ? n : 1) * sizeof(long));
    if (!order) return;
    for (size_t i = 0; i < n; i++) order[i] = (long)i;
    aoe_rng_shuffle(&s->rng, order, n);
    for (size_t i = 0; i < n && !aoe_search_done(s); i++) aoe_search_eval(s, order[i]);
    free(order);
}
