/* Strategy dispatcher: name -> implementation, shared set-up and result. */
#include "tuner/strategy.h"
#include "tuner/strategies/common.h"

#include <string.h>

typedef struct {
    const char *name;
    aoe_strategy_fn run;
} strategy_entry;

/* "auto" is the best strategy measured in simulation (README, strategies).
 * "bandit", named in an early draft of strategy.h, is accepted as "auto". */
static const strategy_entry table[] = {
    {"auto", aoe_strategy_surrogate},      {"brute", aoe_strategy_brute},
    {"random", aoe_strategy_random},       {"annealing", aoe_strategy_annealing},
    {"genetic", aoe_strategy_genetic},     {"ils", aoe_strategy_ils},
    {"surrogate", aoe_strategy_surrogate}, {"bandit", aoe_strategy_surrogate},
};

const char *const aoe_strategy_names[] = {"auto",    "brute", "random",    "annealing",
                                          "genetic", "ils",   "surrogate", NULL};

int aoe_strategy_run(const char *name, const aoe_search_space *space, aoe_eval_fn eval, void *ctx,
                     const aoe_budget *budget, aoe_search_result *out)
{
    aoe_strategy_fn fn = NULL;
    for (size_t i = 0; name && i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(name, table[i].name)) fn = table[i].run;
    if (!fn || !space || !eval || !budget || !out) return -1;
    memset(out, 0, sizeof *out);
    out->best_config = -1;
    if (space->n_configs && (!space->configs || !space->n_values || space->n_params < 1)) return -1;
    aoe_search s;
    if (aoe_search_init(&s, space, eval, ctx, budget)) return -1; /* out of memory */
    if (space->n_configs > 0) fn(&s);
    aoe_search_result_of(&s, out);
    aoe_search_free(&s);
    return 0;
}
