/* Search strategies over an enumerated space of valid configurations. A
 * strategy only ever proposes configurations from the list (constraint-aware
 * by construction) and spends one evaluation per distinct configuration. */
#ifndef AOE_STRATEGY_H
#define AOE_STRATEGY_H

#include "space/search_space.h"

#include <stddef.h>
#include <stdint.h>

/* Measures configuration `config` (row index). Returns its time (lower is
 * better, > 0), or a negative value if it failed. */
typedef double (*aoe_eval_fn)(void *ctx, size_t config);

typedef struct {
    size_t max_evals;    /* distinct configurations to evaluate at most */
    double time_limit_s; /* wall-clock limit, 0 = none */
    uint64_t seed;
    long start_config; /* evaluate this row first (the default policy), -1 = none */
    /* The clock the time limit is read on, in seconds, called with the
     * evaluation's ctx; NULL: CLOCK_MONOTONIC (a test counts time in
     * evaluations with it). */
    double (*clock)(void *ctx);
} aoe_budget;

typedef struct {
    long best_config; /* -1 if nothing succeeded */
    double best_time;
    size_t evaluations;
    size_t failures;
} aoe_search_result;

/* Runs strategy `name` (a name of strategy_list.h, listed or hidden).
 * Returns 0, or -1 for an unknown name. */
int aoe_strategy_run(const char *name, const aoe_search_space *space, aoe_eval_fn eval, void *ctx,
                     const aoe_budget *budget, aoe_search_result *out);

/* Names of the listed strategies (strategy_list.h order), NULL-terminated. */
extern const char *const aoe_strategy_names[];

#endif
