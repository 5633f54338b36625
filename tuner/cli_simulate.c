/* `aoe tune --simulate`: scores strategies on a recorded full search space. */
#include "tuner/cli.h"
#include "tuner/sim.h"
#include "tuner/strategy.h"
#include "core/strategy_list.h"
#include "tuner/strategies/portfolio.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const size_t checkpoints[] = {25, 50, 100, 200, 400};
#define N_CHECKPOINTS (sizeof checkpoints / sizeof checkpoints[0])
#define MAX_RUNS 100000

static void usage(FILE *out)
{
    fprintf(out,
            "usage: aoe tune --simulate FILE.json.gz [--strategy S|all] [--max-evals N]\n"
            "                [--runs R] [--seed K] [--set NAME=VALUE]... [--json]\n"
            "\n"
            "Scores search strategies on a recorded full search space (a gzipped Kernel Tuner\n"
            "cache file): each evaluation is a look-up of the recorded time, a failed\n"
            "configuration costs an evaluation. Prints the mean fraction of optimum (best\n"
            "time of the space / best time found) after 25, 50, 100, 200 and 400 evaluations\n"
            "(those <= N, and N itself), over R seeded runs; random search is always shown\n"
            "as the reference.\n"
            "\n"
            "  --strategy S   one of:");
    for (int i = 0; aoe_strategy_names[i]; i++) fprintf(out, " %s", aoe_strategy_names[i]);
    fprintf(
        out,
        ", or all (default)\n"
        "  --max-evals N  evaluations per run (default 200)\n"
        "  --runs R       runs per strategy, seeds K, K+1, ... (default 20)\n"
        "  --seed K       first seed (default 1)\n"
        "  --json         {\"dataset\", \"optimum\", \"strategies\": [{\"strategy\",\n"
        "                 \"fraction_at\": {\"25\": f, ...}, \"stderr_at\": {\"25\": se, ...},\n"
        "                 \"ms_per_eval\": time to choose one configuration}]}\n"
        "  --set N=V      one setting of the portfolio search (auto), to choose them\n"
        "                 by cross-validation (scripts/bench/cross-validate); the\n"
        "                 settings with their defaults (tuner/strategies/portfolio.c):\n"
        "%s",
        aoe_portfolio_help());
}

static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    if (!s || !*s || *s == '-') return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v > max) return -1;
    *out = v;
    return 0;
}

static bool known_strategy(const char *name)
{
    for (int i = 0; aoe_strategy_names[i]; i++)
        if (!strcmp(aoe_strategy_names[i], name)) return true;
    return false;
}

typedef struct {
    const char *file, *strategy;
    uint64_t max_evals, runs, seed;
    bool json;
} sim_args;

/* Returns -1 on a usage error (message printed), 1 for --help, 0 otherwise. */
static int parse_args(int argc, char **argv, sim_args *a)
{
    *a = (sim_args){.strategy = "all", .max_evals = 200, .runs = 20, .seed = 1};
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) return 1;
        if (!strcmp(o, "--json")) {
            a->json = true;
            continue;
        }
        bool takes = !strcmp(o, "--simulate") || !strcmp(o, "--strategy") ||
                     !strcmp(o, "--max-evals") || !strcmp(o, "--runs") || !strcmp(o, "--seed") ||
                     !strcmp(o, "--set");
        if (!takes) {
            fprintf(stderr, "aoe tune --simulate: unknown argument '%s'\n", o);
            return -1;
        }
        if (v && (!strcmp(v, "--help") || !strcmp(v, "-h"))) return 1; /* `--simulate --help` */
        if (!v) {
            fprintf(stderr, "aoe tune --simulate: %s needs a value\n", o);
            return -1;
        }
        i++;
        if (!strcmp(o, "--simulate"))
            a->file = v;
        else if (!strcmp(o, "--set")) {
            const char *eq = strchr(v, '=');
            char name[32], *end = NULL;
            double x = eq ? strtod(eq + 1, &end) : 0;
            size_t len = eq ? (size_t)(eq - v) : 0;
            if (len && len < sizeof name) {
                memcpy(name, v, len);
                name[len] = 0;
            }
            if (!eq || !len || len >= sizeof name) {
                fprintf(stderr, "aoe tune --simulate: --set needs NAME=VALUE, not '%s'\n", v);
                return -1;
            }
            if (!aoe_portfolio_range(name)) {
                fprintf(stderr, "aoe tune --simulate: --set: no setting '%s' (the settings: %s)\n",
                        name, aoe_portfolio_names());
                return -1;
            }
            if (end == eq + 1 || *end || aoe_portfolio_set(name, x)) {
                fprintf(stderr, "aoe tune --simulate: --set %s takes %s, not '%s'\n", name,
                        aoe_portfolio_range(name), eq + 1);
                return -1;
            }
        } else if (!strcmp(o, "--strategy")) {
            if (strcmp(v, "all") && !known_strategy(v)) {
                fprintf(stderr, "aoe tune --simulate: unknown strategy '%s'\n", v);
                return -1;
            }
            a->strategy = v;
        } else if (!strcmp(o, "--max-evals")) {
            if (parse_u64(v, 1000000, &a->max_evals) || !a->max_evals) {
                fprintf(stderr, "aoe tune --simulate: --max-evals must be 1..1000000, not '%s'\n",
                        v);
                return -1;
            }
        } else if (!strcmp(o, "--runs")) {
            if (parse_u64(v, MAX_RUNS, &a->runs) || !a->runs) {
                fprintf(stderr, "aoe tune --simulate: --runs must be 1..%d, not '%s'\n", MAX_RUNS,
                        v);
                return -1;
            }
        } else if (parse_u64(v, UINT64_MAX, &a->seed)) {
            fprintf(stderr, "aoe tune --simulate: --seed must be an unsigned integer, not '%s'\n",
                    v);
            return -1;
        }
    }
    if (!a->file) {
        fprintf(stderr, "aoe tune --simulate: FILE.json.gz is required\n");
        return -1;
    }
    return 0;
}

/* Strategies to score: the one asked for (random added as the reference), or
 * every distinct strategy (in_all in strategy_list.h; aliases are skipped). */
#define DISTINCT(id, name, fn, in_all)                                                             \
    if (in_all) out[n++] = name;
static size_t pick(const char *which, const char **out)
{
    size_t n = 0;
    if (!strcmp(which, "all")) {
        AOE_STRATEGY_LIST(DISTINCT)
        return n;
    }
    if (strcmp(which, "random")) out[n++] = "random";
    out[n++] = which;
    return n;
}

static void print_json(const aoe_sim_dataset *ds, const char **names, size_t n_names,
                       const size_t *at, size_t n_at, const double *means, const double *ses,
                       const double *ms)
{
    cJSON *root = cJSON_CreateObject(), *list = cJSON_CreateArray();
    cJSON_AddStringToObject(root, "dataset", ds->name);
    cJSON_AddNumberToObject(root, "optimum", ds->optimum);
    cJSON_AddItemToObject(root, "strategies", list);
    for (size_t s = 0; s < n_names; s++) {
        cJSON *e = cJSON_CreateObject(), *f = cJSON_CreateObject(), *se = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "strategy", names[s]);
        for (size_t j = 0; j < n_at; j++) {
            char key[24];
            snprintf(key, sizeof key, "%zu", at[j]);
            cJSON_AddNumberToObject(f, key, means[s * n_at + j]);
            cJSON_AddNumberToObject(se, key, ses[s * n_at + j]);
        }
        cJSON_AddItemToObject(e, "fraction_at", f);
        cJSON_AddItemToObject(e, "stderr_at", se);
        cJSON_AddNumberToObject(e, "ms_per_eval", ms[s]);
        cJSON_AddItemToArray(list, e);
    }
    char *text = cJSON_PrintUnformatted(root);
    if (text) puts(text);
    free(text);
    cJSON_Delete(root);
}

static void print_table(const aoe_sim_dataset *ds, const sim_args *a, const char **names,
                        size_t n_names, const size_t *at, size_t n_at, const double *means)
{
    printf("%s: %s on %s, %zu configurations (%zu failed), optimum %.6g ms\n", ds->name,
           *ds->kernel ? ds->kernel : "?", *ds->device ? ds->device : "?", ds->space.n_configs,
           ds->n_failed, ds->optimum);
    printf("mean fraction of optimum over %" PRIu64 " runs (seeds %" PRIu64 "..%" PRIu64
           ") after N evaluations:\n\n",
           a->runs, a->seed, a->seed + a->runs - 1);
    printf("%-10s", "strategy");
    for (size_t j = 0; j < n_at; j++) printf(" %7zu", at[j]);
    printf("\n");
    for (size_t s = 0; s < n_names; s++) {
        printf("%-10s", names[s]);
        for (size_t j = 0; j < n_at; j++) printf(" %7.3f", means[s * n_at + j]);
        printf("\n");
    }
}

int aoe_simulate_main(int argc, char **argv)
{
    sim_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc > 0) {
        usage(stdout);
        return AOE_EXIT_OK;
    }
    if (rc < 0) { /* the message said what is wrong; the usage would bury it */
        fprintf(stderr, "(see aoe tune --simulate --help)\n");
        return AOE_EXIT_USAGE;
    }
    char err[512];
    aoe_sim_dataset *ds = aoe_sim_load(a.file, err, sizeof err);
    if (!ds) {
        fprintf(stderr, "aoe tune --simulate: %s\n", err);
        return AOE_EXIT_FAIL;
    }
    size_t at[N_CHECKPOINTS + 1], n_at = 0;
    for (size_t j = 0; j < N_CHECKPOINTS; j++)
        if (checkpoints[j] <= a.max_evals) at[n_at++] = checkpoints[j];
    if (!n_at || at[n_at - 1] != a.max_evals) at[n_at++] = a.max_evals;

    const char *names[AOE_STRAT_COUNT + 2]; /* "all", or random and one */
    size_t n_names = pick(a.strategy, names);
    double *means = calloc(n_names * n_at, sizeof(double));
    double *ses = calloc(n_names * n_at, sizeof(double)), *ms = calloc(n_names, sizeof(double));
    rc = means && ses && ms ? AOE_EXIT_OK : AOE_EXIT_FAIL;
    for (size_t s = 0; s < n_names && rc == AOE_EXIT_OK; s++)
        if (aoe_sim_score_stats(ds, names[s], a.max_evals, (int)a.runs, a.seed, at, n_at,
                                means + s * n_at, ses + s * n_at, ms + s)) {
            fprintf(stderr, "aoe tune --simulate: out of memory scoring %s\n", names[s]);
            rc = AOE_EXIT_FAIL;
        }
    if (rc == AOE_EXIT_OK) {
        if (a.json)
            print_json(ds, names, n_names, at, n_at, means, ses, ms);
        else
            print_table(ds, &a, names, n_names, at, n_at, means);
    }
    free(means);
    free(ses);
    free(ms);
    aoe_sim_free(ds);
    return rc;
}
