/* Strategy dispatcher: name -> implementation, shared set-up and result. */
#include "tuner/strategy.h"
#include "core/strategy_list.h"
#include "tuner/strategies/common.h"

#include <string.h>

typedef struct {
    const char *name;
    aoe_strategy_fn run;
} strategy_entry;

/* Both lists come from strategy_list.h: the listed names, then hidden aliases. */
#define ENTRY(id, name, fn, in_all) {name, fn},
static const strategy_entry table[] = {AOE_STRATEGY_LIST(ENTRY) AOE_STRATEGY_HIDDEN(ENTRY)};

#define NAME(id, name, fn, in_all) name,
const char *const aoe_strategy_names[] = {AOE_STRATEGY_LIST(NAME) NULL};

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
