/* The portfolio search ("auto"): every step, one of five ways of proposing
 * the next configuration is chosen at random, each with a probability that
 * follows how often its recent proposals landed among the best measured so
 * far (adaptive operator selection by probability matching, with a floor so
 * that none is ever starved):
 *   global  the unseen configuration a posterior draw of the additive model
 *           ranks best over the whole space (Thompson sampling);
 *   local   the unseen neighbour (one parameter changed) of the best
 *           configurations that the model's mean ranks best;
 *   pair    the unseen configuration within two changes of the best ones of
 *           lowest bound under a Gaussian process that sees value pairs;
 *   evolve  a child of two of the best configurations (uniform crossover,
 *           one mutation), as a genetic algorithm breeds;
 *   random  a uniformly drawn unseen configuration.
 * Model-free ways keep the search going where the models are wrong; the
 * model-guided ones take over where they are right. Spaces of at most 1024
 * configurations start with Bayesian optimisation (surrogate_bo.c). */
#include "tuner/strategies/portfolio.h"
#include "tuner/strategies/additive_model.h"
#include "tuner/strategies/common.h"
#include "tuner/strategies/match_gp.h"
#include "tuner/strategies/model_picks.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_INIT 10        /* random configurations before the models are used, at most ... */
#define N_INIT_MIN 3     /* ... at least, ... */
#define INIT_SHARE 6     /* ... and 1/6 of a small budget */
#define LAMBDA 1.0       /* ridge prior of the additive model */
#define GP_KAPPA 1.0     /* the pair GP's bound: mean - 1 standard deviation */
#define GP_MAX_OBS 400   /* the GP fits at most the 400 best configurations */
#define MAX_FEATURES 512 /* beyond this the models cost too much: random and evolve only */
#define SMALL_SPACE 1024 /* spaces up to this size start with Bayesian optimisation ... */
#define BO_EVALS 20      /* ... for their first 20 evaluations */
#define TOP_ROWS 3       /* local and pair look next to the 3 best configurations */
#define PARENTS 8        /* evolve breeds from the 8 best */
#define BREED_TRIES 64

#define SETTINGS(X)                                                                                \
    X(decay, 0.95, "weight of an arm's past rewards kept per step")                                \
    X(floor, 0.04, "least probability of every arm")                                               \
    X(top, 0.1, "reward: the new time is within the best `top` share so far")                      \
    X(explore, 1.0, "scale of the global arm's posterior draw, in sd of log(time)")                \
    X(cap, 0.5, "times above this quantile count as this quantile in the models")                 \
    X(sharp, 1.0, "an arm's probability follows its success rate to this power")                  \
    X(gglobal, 0, "global picks re-ranked by the pair GP")

#define FIELD(name, def, what) double name;
#define DEFAULT(name, def, what) .name = def,
static struct {
    SETTINGS(FIELD)
} set = {SETTINGS(DEFAULT)};

#define SET(n, def, what)                                                                          \
    if (!strcmp(name, #n)) {                                                                       \
        set.n = value;                                                                             \
        return 0;                                                                                  \
    }
int aoe_portfolio_set(const char *name, double value)
{
    if (!name || !isfinite(value) || value < 0) return -1;
    SETTINGS(SET)
    return -1;
}

enum { ARM_GLOBAL, ARM_LOCAL, ARM_PAIR, ARM_EVOLVE, ARM_RANDOM, N_ARMS };

typedef struct {
    double win[N_ARMS], loss[N_ARMS];
} bandit;

static int choose_arm(bandit *b, aoe_rng *rng, bool models)
{
    double rate[N_ARMS], sum = 0;
    int first = models ? 0 : ARM_EVOLVE, n = N_ARMS - first;
    for (int a = first; a < N_ARMS; a++) {
        rate[a] = pow((b->win[a] + 0.5) / (b->win[a] + b->loss[a] + 1.0), set.sharp);
        sum += rate[a];
    }
    double fl = set.floor * n < 1 ? set.floor : 1.0 / n;
    double u = aoe_rng_uniform(rng);
    for (int a = first; a < N_ARMS; a++) {
        double p = fl + (1 - fl * n) * rate[a] / sum;
        if (u < p) return a;
        u -= p;
    }
    return N_ARMS - 1;
}

static void reward(bandit *b, int arm, bool won)
{
    for (int a = 0; a < N_ARMS; a++) b->win[a] *= set.decay, b->loss[a] *= set.decay;
    if (won)
        b->win[arm] += 1;
    else
        b->loss[arm] += 1;
}

/* Uniform crossover of two of the best rows and one mutated value; the
 * constraints are met by drawing again. */
static long evolve_pick(aoe_search *s, const long *ranked, size_t n_ranked)
{
    const aoe_search_space *sp = s->space;
    int np = sp->n_params;
    size_t n = n_ranked < PARENTS ? n_ranked : PARENTS;
    if (!n) return -1;
    uint16_t vec[np];
    for (int tries = 0; tries < BREED_TRIES; tries++) {
        const uint16_t *a = aoe_search_row(s, ranked[aoe_rng_below(&s->rng, n)]);
        const uint16_t *b = aoe_search_row(s, ranked[aoe_rng_below(&s->rng, n)]);
        for (int p = 0; p < np; p++) vec[p] = aoe_rng_below(&s->rng, 2) ? a[p] : b[p];
        int p = (int)aoe_rng_below(&s->rng, (size_t)np);
        vec[p] = (uint16_t)aoe_rng_below(&s->rng, (size_t)sp->n_values[p]);
        long r = aoe_search_find(s, vec);
        if (r >= 0 && !aoe_search_seen(s, r)) return r;
    }
    return -1;
}

static size_t initial_count(const aoe_search *s, size_t features)
{
    size_t n = s->max_evals / INIT_SHARE;
    size_t free_weights = features - (size_t)s->space->n_params + 1;
    if (n > N_INIT) n = N_INIT;
    if (n > free_weights) n = free_weights;
    return n < N_INIT_MIN ? N_INIT_MIN : n;
}

/* Time below which a new measurement is rewarded: the best `top` share of
 * the successful times (ranked, best first), at least the best one. */
static double reward_bar(const aoe_search *s, const long *ranked, size_t n)
{
    if (!n) return INFINITY;
    size_t k = (size_t)(set.top * (double)n);
    return s->times[ranked[k < n ? k : n - 1]];
}

void aoe_strategy_portfolio(aoe_search *s)
{
    const aoe_search_space *sp = s->space;
    size_t features = aoe_search_max_neighbours(s); /* one per parameter value */
    bool models = features <= MAX_FEATURES;
    if (sp->n_configs <= SMALL_SPACE && models)
        aoe_surrogate_bo(s, s->max_evals < BO_EVALS ? s->max_evals : BO_EVALS);
    size_t cap = features;
    size_t cap2 = cap * cap / 2 + cap < sp->n_configs ? cap * cap / 2 + cap : sp->n_configs;
    size_t gp_cap = s->max_evals < GP_MAX_OBS ? s->max_evals : GP_MAX_OBS;
    aoe_additive_model m = {0};
    aoe_match_gp g = {0};
    bandit b = {0};
    long *nb = malloc((cap2 ? cap2 : 1) * sizeof(long));
    long *ranked = malloc(sp->n_configs * sizeof(long));
    double *ys = malloc(sp->n_configs * sizeof(double));
    unsigned char *mark = calloc(sp->n_configs, 1);
    if (!nb || !ranked || !ys || !mark ||
        (models && (aoe_additive_init(&m, sp, LAMBDA) || aoe_match_gp_init(&g, sp, gp_cap))))
        goto out;
    size_t n_init = initial_count(s, features), seen = 0, n_ranked = 0;
    int pulls[N_ARMS] = {0}, wins[N_ARMS] = {0}, imp[N_ARMS] = {0};
    while (!aoe_search_done(s)) {
        for (; seen < s->evals; seen++) {
            long r = s->history[seen];
            if (s->times[r] > 0) ranked[n_ranked++] = r; /* failures teach nothing */
        }
        qsort_r(ranked, n_ranked, sizeof(long), aoe_by_time, s);
        long next = -1;
        int arm = -1;
        if (n_ranked >= n_init) {
            arm = choose_arm(&b, &s->rng, models);
            double ycap = 0, mean = 0, sd = 1;
            bool fit_gp = arm == ARM_PAIR || (arm == ARM_GLOBAL && set.gglobal > 0);
            if (arm <= ARM_PAIR) {
                ycap = log(s->times[ranked[(size_t)(set.cap * (double)(n_ranked - 1))]]);
                aoe_additive_reset(&m);
                for (size_t i = 0; i < n_ranked; i++) {
                    double y = log(s->times[ranked[i]]);
                    aoe_additive_add(&m, sp, aoe_search_row(s, ranked[i]), y < ycap ? y : ycap);
                }
                aoe_additive_fit(&m);
                mean = m.sum_y / (double)m.n;
                double var = m.sum_yy / (double)m.n - mean * mean;
                sd = sqrt(var > 1e-12 ? var : 1e-12);
            }
            if (arm == ARM_GLOBAL) {
                aoe_additive_sample(&m, &s->rng, set.explore * sd);
                if (fit_gp) {
                    size_t n_gp = n_ranked < gp_cap ? n_ranked : gp_cap;
                    for (size_t i = 0; i < n_gp; i++) {
                        double y = log(s->times[ranked[i]]);
                        ys[i] = ((y < ycap ? y : ycap) - mean) / sd;
                    }
                    aoe_match_gp_fit(&g, s, ranked, ys, n_gp);
                    next = aoe_pick_global_gp(s, &m, &g, GP_KAPPA);
                } else
                    next = aoe_pick_global(s, &m);
            } else if (arm == ARM_LOCAL) {
                next = aoe_pick_local(s, &m, m.w, ranked, n_ranked, TOP_ROWS, nb, cap);
            } else if (arm == ARM_PAIR) {
                size_t n_gp = n_ranked < gp_cap ? n_ranked : gp_cap;
                for (size_t i = 0; i < n_gp; i++) {
                    double y = log(s->times[ranked[i]]);
                    ys[i] = ((y < ycap ? y : ycap) - mean) / sd;
                }
                aoe_match_gp_fit(&g, s, ranked, ys, n_gp);
                next = aoe_pick_gp(s, &g, GP_KAPPA, ranked, n_ranked, TOP_ROWS, nb, cap2, mark);
            } else if (arm == ARM_EVOLVE) {
                next = evolve_pick(s, ranked, n_ranked);
            }
        }
        if (next < 0) next = aoe_search_random_unseen(s);
        if (next < 0) break;
        double bar = reward_bar(s, ranked, n_ranked);
        double t = aoe_search_eval(s, next);
        if (arm >= 0) reward(&b, arm, t > 0 && t < bar);
        if (arm >= 0 && getenv("PFDBG")) { pulls[arm]++; wins[arm] += t > 0 && t < bar; imp[arm] += t > 0 && t <= s->best_time && s->best == next; }
    }
    if (getenv("PFDBG")) { for (int a = 0; a < N_ARMS; a++) fprintf(stderr, "%d/%d/%d ", pulls[a], wins[a], imp[a]); fprintf(stderr, "\n"); }
out:
    if (models) {
        aoe_additive_free(&m);
        aoe_match_gp_free(&g);
    }
    free(nb);
    free(ranked);
    free(ys);
    free(mark);
}
