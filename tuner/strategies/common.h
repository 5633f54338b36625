/* What every search strategy shares: a seeded PRNG, the distinct-evaluation
 * cache (a configuration is measured at most once), budget and clock checks,
 * and neighbourhoods found through a hash from value-index vector to row. */
#ifndef AOE_STRATEGIES_COMMON_H
#define AOE_STRATEGIES_COMMON_H

#include "tuner/strategy.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* xoshiro256** seeded through splitmix64: same seed, same sequence everywhere. */
typedef struct {
    uint64_t s[4];
} aoe_rng;

void aoe_rng_seed(aoe_rng *r, uint64_t seed);
uint64_t aoe_rng_next(aoe_rng *r);
double aoe_rng_uniform(aoe_rng *r);         /* [0, 1) */
size_t aoe_rng_below(aoe_rng *r, size_t n); /* [0, n), n > 0 */
void aoe_rng_shuffle(aoe_rng *r, long *a, size_t n);

/* Value of a configuration not measured yet in aoe_search.times. */
#define AOE_UNSEEN (-2.0)
/* Value of a configuration whose measurement failed. */
#define AOE_FAILED (-1.0)

typedef struct {
    const aoe_search_space *space;
    aoe_eval_fn eval;
    void *ctx;
    size_t max_evals;           /* 0 in the budget = the whole space */
    double deadline;            /* seconds on the clock, 0 = none */
    double started;             /* ... at aoe_search_init */
    double (*clock)(void *ctx); /* NULL: CLOCK_MONOTONIC */
    aoe_rng rng;

    double *times; /* per row: AOE_UNSEEN, AOE_FAILED or the measured time */
    size_t evals;  /* distinct rows measured (failures included) */
    size_t failures;
    long best; /* -1 while nothing succeeded */
    double best_time;
    long *history; /* rows in the order they were measured */

    uint32_t *slots; /* open-addressing table: row + 1, 0 = empty */
    size_t mask;
    bool timed_out;
} aoe_search;

/* Sets up the cache and index and evaluates budget->start_config first when
 * it is a valid row. Returns 0, or -1 when out of memory. */
int aoe_search_init(aoe_search *s, const aoe_search_space *space, aoe_eval_fn eval, void *ctx,
                    const aoe_budget *budget);
void aoe_search_free(aoe_search *s);
void aoe_search_result_of(const aoe_search *s, aoe_search_result *out);

/* True once the evaluation budget, the clock or the space is exhausted. */
bool aoe_search_done(aoe_search *s);

/* The evaluations the search can expect in all: max_evals, or under a time
 * limit the fewer of that and what fits in it at the pace so far. */
size_t aoe_search_horizon(const aoe_search *s);
/* True when a time limit will end the search within its last `share` of
 * the time and within `evals` evaluations at the mean pace so far: what a
 * strategy keeps for its last evaluations happens when the clock, not the
 * count, ends the search. False without a time limit. */
bool aoe_search_time_ending(const aoe_search *s, double share, size_t evals);

/* Time of row `row`: measured now if unseen (and the budget allows), else the
 * cached value. Returns the time, AOE_FAILED, or AOE_UNSEEN when the budget
 * refused the measurement. */
double aoe_search_eval(aoe_search *s, long row);

static inline bool aoe_search_seen(const aoe_search *s, long row)
{
    return s->times[row] != AOE_UNSEEN;
}
static inline const uint16_t *aoe_search_row(const aoe_search *s, long row)
{
    return s->space->configs + (size_t)row * (size_t)s->space->n_params;
}

/* Row holding exactly the value indices `vec`, or -1 (excluded by constraints). */
long aoe_search_find(const aoe_search *s, const uint16_t *vec);

/* Rows differing from `row` in one parameter: any other value (full) or the
 * next value up or down (adjacent). Writes at most `cap` rows, returns the count. */
size_t aoe_search_neighbours(const aoe_search *s, long row, bool adjacent_only, long *out,
                             size_t cap);
/* Upper bound on the neighbours of one row (for sizing `out`). */
size_t aoe_search_max_neighbours(const aoe_search *s);

/* A uniformly drawn row not measured yet, or -1 when every row was measured. */
long aoe_search_random_unseen(aoe_search *s);

/* Random walk of `steps` moves to neighbours from `row` (constraint-aware). */
long aoe_search_perturb(aoe_search *s, long row, int steps);

/* Strategy entry points (one file each). */
typedef void (*aoe_strategy_fn)(aoe_search *s);
void aoe_strategy_brute(aoe_search *s);
void aoe_strategy_random(aoe_search *s);
void aoe_strategy_annealing(aoe_search *s);
void aoe_strategy_genetic(aoe_search *s);
void aoe_strategy_ils(aoe_search *s);
void aoe_strategy_surrogate(aoe_search *s);
void aoe_strategy_portfolio(aoe_search *s);
/* The surrogate as a proposer of one configuration at a time, for the
 * portfolio: NULL when the space has too many values for its models (or out
 * of memory); propose returns an unseen row or -1. */
typedef struct aoe_surrogate aoe_surrogate;
aoe_surrogate *aoe_surrogate_new(aoe_search *s);
long aoe_surrogate_propose(aoe_surrogate *st, aoe_search *s);
void aoe_surrogate_free(aoe_surrogate *st);
/* Whether shape steps are possible on this space (see surrogate.c). */
bool aoe_surrogate_has_shapes(const aoe_surrogate *st);
/* A shape step now: an unseen row, or -1 (none left, or not possible here). */
long aoe_surrogate_shape(aoe_surrogate *st, aoe_search *s);
/* The model's local pick now (not a step of the schedule): the unseen
 * neighbour of the 3 best rows that the additive model's mean ranks best, or
 * -1 (before the model is fitted, or no unseen neighbour). */
long aoe_surrogate_local(aoe_surrogate *st, aoe_search *s);
/* From now on propose makes no periodic shape steps: the caller makes them. */
void aoe_surrogate_leave_shapes(aoe_surrogate *st);
/* Random configurations the surrogate measures before its model is fitted
 * (the portfolio's start too). */
size_t aoe_surrogate_initial_count(const aoe_search *s);
/* The surrogate's Bayesian-optimisation phase on small spaces: evaluates
 * until `until` distinct configurations were measured (surrogate_bo.c). */
void aoe_surrogate_bo(aoe_search *s, size_t until);

#endif
