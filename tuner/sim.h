/* Simulation mode: a recorded full search space (a gzipped Kernel Tuner cache
 * file, see ../shared/datasets/README.md) stands in for the hardware, so a
 * strategy can be scored by table look-ups against the known optimum. */
#ifndef AOE_SIM_H
#define AOE_SIM_H

#include "tuner/strategy.h"

#include <stddef.h>
#include <stdint.h>

#define AOE_SIM_MAX_PARAMS 64
#define AOE_SIM_MAX_BYTES (1024u * 1024u * 1024u) /* decompressed JSON, at most */

typedef struct {
    char *name;   /* file name without its directories */
    char *kernel; /* kernel_name, "" when absent */
    char *device; /* device_name, "" when absent */
    int n_params;
    char **param_names;     /* tune_params_keys order */
    int *n_values;          /* values per parameter */
    int *value_list_id;     /* see aoe_search_space */
    aoe_search_space space; /* one row per cache entry, failed ones included */
    uint16_t *configs;      /* storage of space.configs */
    double *times;          /* per row: time in ms, or -1 for a failed configuration */
    size_t n_failed;
    double optimum; /* best time of the whole space */
} aoe_sim_dataset;

/* Loads a dataset. Values of a parameter are ordered ascending when all are
 * numbers (neighbouring indices then mean neighbouring values), else kept in
 * file order. Returns NULL with one clear reason in err. */
aoe_sim_dataset *aoe_sim_load(const char *path, char *err, size_t errlen);
/* Same from an in-memory JSON text (used by the loader and the fuzz harness). */
aoe_sim_dataset *aoe_sim_parse(const char *json, size_t len, const char *name, char *err,
                               size_t errlen);
void aoe_sim_free(aoe_sim_dataset *ds);

/* One simulated run: the evaluation callback records every time it returns. */
typedef struct {
    const aoe_sim_dataset *ds;
    double *trace; /* times in evaluation order (-1: failed), capacity cap */
    size_t n, cap;
} aoe_sim_run;

/* aoe_eval_fn over an aoe_sim_run: the recorded time of row `config`. */
double aoe_sim_eval(void *run, size_t config);

/* Fraction of optimum after the first n entries of a trace: optimum / best
 * successful time among them, 0 when none succeeded. */
double aoe_sim_fraction(double optimum, const double *trace, size_t n_trace, size_t n);

/* Runs `strategy` `runs` times (seeds seed, seed+1, ...) with max_evals each and
 * writes the mean fraction of optimum at each of the n_at evaluation counts to
 * mean_at. Returns 0, or -1 for an unknown strategy or out of memory. */
int aoe_sim_score(const aoe_sim_dataset *ds, const char *strategy, size_t max_evals, int runs,
                  uint64_t seed, const size_t *at, size_t n_at, double *mean_at);

/* The same, and the standard error of each mean (sample sd / sqrt(runs), 0
 * for one run) and the wall-clock milliseconds the strategy took per
 * evaluation (its time to choose: a simulated evaluation is a look-up);
 * either may be NULL. */
int aoe_sim_score_stats(const aoe_sim_dataset *ds, const char *strategy, size_t max_evals, int runs,
                        uint64_t seed, const size_t *at, size_t n_at, double *mean_at,
                        double *stderr_at, double *ms_per_eval);

#endif
