/* libFuzzer harness: the simulation dataset loader (Kernel Tuner cache JSON)
 * on arbitrary bytes. A dataset that loads must be consistent, and every
 * strategy must search it within its budget without leaving the space. */
// clang-format off
// fuzz-sources: tuner/sim.c tuner/strategy.c tuner/strategies/*.c
// clang-format on
#include "tuner/sim.h"
#include "tuner/strategy.h"

#include <math.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    aoe_sim_dataset *ds = aoe_sim_parse((const char *)data, size, "fuzz", err, sizeof err);
    if (!ds) return 0;
    const aoe_search_space *sp = &ds->space;
    if (!(ds->optimum > 0) || sp->n_configs == 0 || ds->n_failed >= sp->n_configs) abort();
    for (size_t r = 0; r < sp->n_configs; r++)
        for (int p = 0; p < sp->n_params; p++)
            if (sp->configs[r * (size_t)sp->n_params + (size_t)p] >= sp->n_values[p]) abort();
    for (int p = 0; p < sp->n_params; p++) { /* a list id names an earlier, same-size list */
        int id = sp->value_list_id[p];
        if (id < 0 || id > p || sp->value_list_id[id] != id || sp->n_values[id] != sp->n_values[p])
            abort();
    }
    double trace[16];
    aoe_sim_run run = {.ds = ds, .trace = trace, .cap = 16};
    for (int i = 0; aoe_strategy_names[i]; i++) {
        aoe_budget b = {.max_evals = 16, .seed = (uint64_t)size, .start_config = -1};
        aoe_search_result res;
        run.n = 0;
        if (aoe_strategy_run(aoe_strategy_names[i], sp, aoe_sim_eval, &run, &b, &res)) abort();
        if (res.evaluations > 16 || res.evaluations != run.n) abort();
        if (res.best_config >= 0 && ds->times[res.best_config] != res.best_time) abort();
    }
    aoe_sim_free(ds);
    return 0;
}
