/* The unseen configuration a model ranks best, in a given neighbourhood:
 * over the whole space (a posterior draw of the additive model), next to the
 * best configurations (its mean), or within two parameter changes of them
 * (the pairwise GP's lower confidence bound). Each returns a row not measured
 * yet, or -1 when the neighbourhood has none. */
#ifndef AOE_STRATEGIES_MODEL_PICKS_H
#define AOE_STRATEGIES_MODEL_PICKS_H

#include "tuner/strategies/additive_model.h"
#include "tuner/strategies/common.h"
#include "tuner/strategies/match_gp.h"

#include <stddef.h>

/* Unseen row minimising the model's last posterior draw (m->ws). */
long aoe_pick_global(aoe_search *s, aoe_additive_model *m);

/* Unseen neighbour (one change) of one of the `top` best rows of `ranked`
 * minimising the model with weights w; nb has room for cap rows. */
long aoe_pick_local(aoe_search *s, aoe_additive_model *m, const double *w, const long *ranked,
                    size_t n_ranked, size_t top, long *nb, size_t cap);

/* Unseen rows differing from `row` in one or two parameters (at most cap). */
size_t aoe_within_two(aoe_search *s, long row, long *out, size_t cap);

/* Among the 64 unseen rows the model's posterior draw ranks best, the one of
 * lowest GP bound (mean - kappa sd). */
long aoe_pick_global_gp(aoe_search *s, aoe_additive_model *m, aoe_match_gp *g, double kappa);

/* Unseen row within two changes of one of the `top` best rows of the lowest
 * GP bound; cand has room for cap rows, mark (one byte per row, zero) keeps
 * a row from being scored twice and is left zero. */
long aoe_pick_gp(aoe_search *s, aoe_match_gp *g, double kappa, const long *ranked, size_t n_ranked,
                 size_t top, long *cand, size_t cap, unsigned char *mark);

#endif
