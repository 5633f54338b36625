/* The portfolio search ("auto"): five searches share one record of
 * measurements, and each evaluation goes to one of them, drawn at random with
 * a probability that follows how often its recent proposals beat the best
 * time so far by at least 2 % (adaptive operator selection: probability
 * matching on discounted success rates, sharpened, with a floor so that none
 * is starved). A margin, not any improvement and not "among the best tenth":
 * on a plateau (pnpoly's block size barely matters) a member that only walks
 * between near-equal configurations would otherwise be paid for ties and take
 * the budget from the members that find the next real step. The five:
 *   model   the surrogate's next step (surrogate.c: additive model with
 *           Thompson sampling, neighbours by model mean, a pairwise GP when
 *           the incumbent stalls);
 *   bo      expected improvement under a GP over normalised value indices
 *           (trends along a parameter's range, which the additive model's
 *           one weight per value cannot extrapolate), fitted to the best
 *           times and the 10 latest failures, averaged over three length
 *           scales weighted by their marginal likelihood (`bo_average`):
 *           the most likely scale alone, often the shortest, fits the
 *           basin the search is in and predicts little beyond it;
 *   evolve  a child of two of the 8 best configurations (uniform crossover
 *           and one mutated value), as a genetic algorithm breeds;
 *   step    the unseen neighbour (one parameter changed) of the 3 best
 *           configurations that the model's mean ranks best, as a hill
 *           climber moves (`step_by` 0, or no model: a random unseen
 *           neighbour of the best);
 *   shape   the model's shape step (surrogate.c): a new combination of the
 *           narrow parameters at the model's best block shape, only where
 *           shape steps are possible, and the model then leaves its own
 *           periodic ones to it. Left inside the model it ran on every 6th
 *           of the model's quarter of the evaluations; paid as a member of
 *           its own it finds the tiled fast paths of the convolutions.
 * A sixth, uniform random sampling, is off. Which members run, like every
 * setting below, was chosen by cross-validation over the recorded spaces
 * (scripts/bench/cross-validate; `--set off=N` in simulation changes it).
 * Where a member is right about a space it gets most evaluations; where it
 * is wrong the others take them, so the search keeps improving instead of
 * stalling. A global look, bo scoring every unseen row, finds an optimum
 * two changes from every good configuration, which no member's local step
 * reaches and bo's random rows rarely include. It gets the last 5 % of the
 * budget (`tail`, at most 20 evaluations; under a time limit that ends the
 * search first, the last 5 % of the time) and a burst of `burst` (3)
 * evaluations whenever `stall` (30) have passed without a time that beats
 * the best by `gain`: where the members have stopped finding better
 * configurations the look costs little, and where they still find them (the
 * convolutions' tiled paths) it does not run. A search of at least
 * `early_budget` (150) evaluations (under a time limit, as many as fit in it
 * at the pace of its first design) starts with `early` (40) global
 * looks right after its first design: a long search can afford to learn the
 * whole space first, and a Gaussian process fitted to a spread design points
 * to optima that one fitted inside the members' basins ranks low (the
 * dedispersion W6600's, round 27 of docs/experiments/search-strategies.md);
 * a short one has no evaluations to spare for it. Spaces of at most 1024
 * configurations start with Bayesian optimisation (surrogate_bo.c); spaces
 * whose parameters have more than 512 values in all run on evolve and step. */
#include "tuner/strategies/portfolio.h"
#include "tuner/strategies/additive_model.h"
#include "tuner/strategies/common.h"
#include "tuner/strategies/index_gp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FEATURES 512 /* beyond this the model costs too much (surrogate.c) */
#define SMALL_SPACE 1024 /* spaces up to this size start with Bayesian optimisation ... */
#define BO_EVALS 20      /* ... for their first 20 evaluations */
#define PARENTS 8        /* evolve breeds from the 8 best */
#define BREED_TRIES 64
#define BO_OBS 200      /* the BO member's GP fits at most the 200 best configurations */
#define BO_NEAR 3       /* ... and scores the unseen neighbours of the 3 best */
#define BO_NOISE 0.1    /* observation noise variance, targets standardised */
#define TAIL_ROWS 32768 /* a global look scores every unseen row of spaces up to this size */
#define TAIL_MAX 20     /* ... for at most 20 evaluations: up to about 0.2 s a choice */

static const double bo_scales[] = {0.25, 0.5, 1.0}; /* weighted by marginal likelihood */

/* Each setting with its default, the largest value it takes, whether it is a
 * whole number, and what it means; every one is at least 0. */
#define SETTINGS(X)                                                                                \
    X(decay, 0.95, 1e6, 0, "weight an arm's past rewards keep per step")                           \
    X(floor, 0.01, 1e6, 0, "least probability of every arm")                                       \
    X(top, 0.1, 1e6, 0, "rule 0: a proposal is rewarded when its time is within this best share")  \
    X(sharp, 3.0, 1e6, 0, "an arm's probability follows its success rate to this power")           \
    X(off, 16, 1e6, 0,                                                                             \
      "bit mask of members switched off: 1 model, 2 bo, 4 evolve, 8 step, 16 random, 32 shape")    \
    X(rule, 1, 1, 1,                                                                               \
      "what is rewarded: 0 a time within the best `top` share, 1 beating the best by gain")        \
    X(gain, 0.02, 0.99, 0, "rule 1: the share by which a time must beat the best to be rewarded")  \
    X(bo_draws, 1024, 65536, 1, "unseen rows drawn at random that the bo member scores")           \
    X(bo_failed, 10, 100, 1, "failed configurations the bo member fits, at the worst time seen")   \
    X(bo_average, 1, 1, 1,                                                                         \
      "bo's expected improvement: 1 averaged over its length scales by marginal likelihood, "      \
      "0 under the most likely scale only")                                                        \
    X(tail, 0.05, 0.5, 0,                                                                          \
      "share of the budget (at most 20 evaluations), at its end, where bo "                        \
      "scores every unseen row")                                                                   \
    X(stall, 30, 1e6, 1,                                                                           \
      "evaluations without beating the best by `gain` after which bo scores every unseen row "     \
      "(0: never)")                                                                                \
    X(burst, 3, 1000, 1, "... for this many evaluations, then the count starts again")             \
    X(early, 40, 1000, 1,                                                                          \
      "evaluations right after the first design where bo scores every unseen row, when the "       \
      "budget is at least early_budget")                                                           \
    X(early_budget, 150, 1e6, 1, "the least budget (evaluations) that starts with early looks")    \
    X(step_by, 1, 1, 1,                                                                            \
      "the step member's neighbour: 0 a random one of the best's, 1 the one of the 3 best's "      \
      "that the model's mean ranks best")

#define FIELD(name, def, max, whole, what) double name;
#define DEFAULT(name, def, max, whole, what) .name = def,
typedef struct {
    SETTINGS(FIELD)
} settings;
static settings set = {SETTINGS(DEFAULT)};

void aoe_portfolio_defaults(void)
{
    set = (settings){SETTINGS(DEFAULT)};
}

#define SET(n, def, max, whole, what)                                                              \
    if (!strcmp(name, #n)) {                                                                       \
        if (value > max || (whole && value != floor(value))) return -1;                            \
        set.n = value;                                                                             \
        return 0;                                                                                  \
    }
int aoe_portfolio_set(const char *name, double value)
{
    if (!name || !isfinite(value) || value < 0) return -1;
    SETTINGS(SET)
    return -1;
}

#define RANGE(n, def, max, whole, what)                                                            \
    if (!strcmp(name, #n)) return whole ? "a whole number in 0.." #max : "a number in 0.." #max;
const char *aoe_portfolio_range(const char *name)
{
    if (!name) return NULL;
    SETTINGS(RANGE)
    return NULL;
}

#define NAME(n, def, max, whole, what) ", " #n
const char *aoe_portfolio_names(void)
{
    return &(SETTINGS(NAME))[2]; /* past the first ", " */
}

/* From the same table as the settings, so --help cannot fall behind it. */
#define HELP(n, def, max, whole, what) "    " #n "=" #def ": " what "\n"
const char *aoe_portfolio_help(void)
{
    return SETTINGS(HELP);
}

enum { ARM_MODEL, ARM_BO, ARM_EVOLVE, ARM_STEP, ARM_RANDOM, ARM_SHAPE, N_ARMS };

typedef struct {
    double win[N_ARMS], loss[N_ARMS];
} bandit;

/* An arm drawn among those whose bit is clear in `off` with probability
 * floor + (1 - n floor) rate^sharp / sum, rate the discounted success rate
 * with a Beta(0.5, 0.5) prior; -1 when every arm is off. */
static int choose_arm(bandit *b, aoe_rng *rng, int off)
{
    double rate[N_ARMS], sum = 0;
    int n = N_ARMS;
    for (int a = 0; a < N_ARMS; a++) {
        if (off >> a & 1) {
            rate[a] = 0;
            n--;
            continue;
        }
        rate[a] = pow((b->win[a] + 0.5) / (b->win[a] + b->loss[a] + 1.0), set.sharp);
        sum += rate[a];
    }
    if (n <= 0 || !(sum > 0)) return -1; /* every arm off: random steps */
    double fl = set.floor * n < 1 ? set.floor : 1.0 / n;
    double u = aoe_rng_uniform(rng);
    for (int a = 0; a < N_ARMS; a++) {
        if (off >> a & 1) continue;
        double p = fl + (1 - fl * n) * rate[a] / sum;
        if (u < p) return a;
        u -= p;
    }
    for (int a = N_ARMS - 1; a >= 0; a--) /* rounding: the last arm on */
        if (!(off >> a & 1)) return a;
    return -1;
}

/* Every arm's record fades by `decay` per step, so the allocation follows
 * the phase the search is in; the arm that proposed gets its outcome. */
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

/* A random unseen neighbour (one parameter changed) of the incumbent. */
static long step_pick(aoe_search *s, long best, long *nb, size_t cap)
{
    size_t k = aoe_search_neighbours(s, best, false, nb, cap), n = 0;
    for (size_t i = 0; i < k; i++)
        if (!aoe_search_seen(s, nb[i])) nb[n++] = nb[i];
    return n ? nb[aoe_rng_below(&s->rng, n)] : -1;
}

/* The BO member's buffers. */
typedef struct {
    aoe_index_gp gp;
    long *obs;           /* the rows fitted ... */
    double *ys;          /* ... and their standardised log times */
    long *cand;          /* rows scored */
    unsigned char *mark; /* per row: already a candidate */
} bo_work;

/* Bayesian optimisation: a GP over normalised value indices (index_gp.h)
 * fitted to the best log times and the `bo_failed` latest failures, and the
 * unseen row of highest expected improvement among `bo_draws` random ones
 * and the neighbours of the best: it sees smooth trends along a parameter's
 * values (a best block size at the end of its range) that the additive
 * model's one weight per value does not extrapolate. A failure is fitted at
 * the worst time seen: left out, the model's uncertainty is highest where
 * configurations fail, and expected improvement sends it there. In a global
 * look (`every`: the tail or a burst) it scores every unseen row instead of
 * the random ones (spaces larger than TAIL_ROWS: that many random ones). */
static long bo_pick(aoe_search *s, bo_work *w, const long *ranked, size_t n_ranked, long *nb,
                    size_t cap, bool every)
{
    size_t nf = (size_t)set.bo_failed < s->failures ? (size_t)set.bo_failed : s->failures;
    size_t n = n_ranked < BO_OBS - nf ? n_ranked : BO_OBS - nf;
    if (n < 2) return -1;
    double *ys = w->ys, worst = log(s->times[ranked[n_ranked - 1]]);
    for (size_t i = 0; i < n; i++) w->obs[i] = ranked[i], ys[i] = log(s->times[ranked[i]]);
    for (size_t i = s->evals; i-- > 0 && nf;) /* the latest failures first */
        if (!(s->times[s->history[i]] > 0)) w->obs[n] = s->history[i], ys[n++] = worst, nf--;
    double sum = 0, sumsq = 0;
    for (size_t i = 0; i < n; i++) sum += ys[i], sumsq += ys[i] * ys[i];
    double mean = sum / (double)n, var = sumsq / (double)n - mean * mean;
    double sd = sqrt(var > 1e-12 ? var : 1e-12);
    for (size_t i = 0; i < n; i++) ys[i] = (ys[i] - mean) / sd;
    w->gp.average = set.bo_average >= 1;
    aoe_index_gp_fit(&w->gp, s, w->obs, ys, n, bo_scales,
                     (int)(sizeof bo_scales / sizeof bo_scales[0]));
    size_t k = 0;
    long *cand = w->cand;
    unsigned char *mark = w->mark;
    for (size_t i = 0; i < n_ranked && i < BO_NEAR; i++) {
        size_t m = aoe_search_neighbours(s, ranked[i], false, nb, cap);
        for (size_t j = 0; j < m; j++)
            if (!aoe_search_seen(s, nb[j]) && !mark[nb[j]]) mark[nb[j]] = 1, cand[k++] = nb[j];
    }
    size_t rows = s->space->n_configs;
    if (every && rows <= TAIL_ROWS) {
        for (long r = 0; r < (long)rows; r++)
            if (!aoe_search_seen(s, r) && !mark[r]) mark[r] = 1, cand[k++] = r;
    } else {
        size_t draws = every ? TAIL_ROWS : (size_t)set.bo_draws;
        for (size_t t = 0; t < draws; t++) {
            long r = (long)aoe_rng_below(&s->rng, rows);
            if (!aoe_search_seen(s, r) && !mark[r]) mark[r] = 1, cand[k++] = r;
        }
    }
    long best = -1;
    double be = -INFINITY, f = ys[0];
    for (size_t i = 0; i < k; i++) {
        double ei = aoe_index_gp_ei(&w->gp, s, cand[i], f, be);
        if (ei > be) be = ei, best = cand[i];
        mark[cand[i]] = 0;
    }
    return best;
}

/* Time below which a new measurement is rewarded: the best time less `gain`
 * (rule 1), or the best `top` share of the successful times (rule 0, the
 * first design; ranked, best first), at least the best one. */
static double reward_bar(const aoe_search *s, const long *ranked, size_t n)
{
    if (!n) return INFINITY;
    if (set.rule >= 1) return s->times[ranked[0]] * (1 - set.gain);
    size_t k = (size_t)(set.top * (double)n);
    return s->times[ranked[k < n ? k : n - 1]];
}

void aoe_strategy_portfolio(aoe_search *s)
{
    const aoe_search_space *sp = s->space;
    size_t cap = aoe_search_max_neighbours(s);
    aoe_surrogate *sur = NULL;
    if (cap <= MAX_FEATURES && sp->n_configs <= SMALL_SPACE)
        aoe_surrogate_bo(s, s->max_evals < BO_EVALS ? s->max_evals : BO_EVALS);
    bandit b = {0};
    size_t draws = (size_t)set.bo_draws,
           tail_rows = sp->n_configs < TAIL_ROWS ? sp->n_configs : TAIL_ROWS;
    if ((set.tail > 0 || set.stall > 0) && tail_rows > draws)
        draws = tail_rows; /* rows bo may score in the tail or a burst */
    long *nb = malloc((cap ? cap : 1) * sizeof(long));
    long *ranked = malloc(sp->n_configs * sizeof(long));
    bo_work w = {.obs = malloc(BO_OBS * sizeof(long)),
                 .ys = malloc(BO_OBS * sizeof(double)),
                 .cand = malloc((draws + BO_NEAR * cap + 1) * sizeof(long)),
                 .mark = calloc(sp->n_configs, 1)};
    if (!nb || !ranked || !w.obs || !w.ys || !w.cand || !w.mark ||
        aoe_index_gp_init(&w.gp, sp, BO_OBS, BO_NOISE))
        goto out;
    sur = aoe_surrogate_new(s);
    /* Members that cannot run here are off: the model's three without the
     * model, the shape step where the space has no shapes. */
    int off = (int)set.off;
    if (!sur)
        off |= 1 << ARM_MODEL | 1 << ARM_BO | 1 << ARM_SHAPE;
    else if (!aoe_surrogate_has_shapes(sur))
        off |= 1 << ARM_SHAPE;
    else if (!(off >> ARM_SHAPE & 1))
        aoe_surrogate_leave_shapes(sur);
    size_t n_init = aoe_surrogate_initial_count(s), seen = 0, n_ranked = 0;
    /* The tail (top of the file): bo's global look, at most TAIL_MAX long,
     * before the last evaluation or, under a time limit, before the clock
     * ends the search (its last `tail` share of the time). */
    size_t tail_len = (size_t)(set.tail * (double)s->max_evals);
    size_t tail_from = s->max_evals - (tail_len < TAIL_MAX ? tail_len : TAIL_MAX);
    /* A stall (top of the file): `since` counts evaluations since the best
     * was last beaten by `gain`, or since the last burst ended. */
    size_t since = 0, burst_left = 0;
    /* The early looks (top of the file): a long search starts global, its
     * length known once its first design is measured (under a time limit,
     * from the pace of that design). */
    size_t early_left = 0;
    bool early_decided = false;
    while (!aoe_search_done(s)) {
        for (; seen < s->evals; seen++) {
            long r = s->history[seen];
            if (s->times[r] > 0) ranked[n_ranked++] = r; /* only bo learns from failures */
        }
        qsort_r(ranked, n_ranked, sizeof(long), aoe_by_time, s);
        long next = -1;
        int arm = -1;
        if (n_ranked >= n_init) {
            if (!early_decided) {
                early_decided = true;
                if (aoe_search_horizon(s) >= (size_t)set.early_budget)
                    early_left = (size_t)set.early;
            }
            if (set.stall > 0 && !burst_left && since >= (size_t)set.stall)
                burst_left = (size_t)set.burst;
            bool tail = s->evals >= tail_from ||
                        (set.tail > 0 && aoe_search_time_ending(s, set.tail, TAIL_MAX));
            bool global = (tail || burst_left || early_left) && !(off >> ARM_BO & 1);
            if (early_left) early_left--;
            arm = global ? ARM_BO : choose_arm(&b, &s->rng, off);
            if (arm == ARM_MODEL)
                next = aoe_surrogate_propose(sur, s);
            else if (arm == ARM_BO)
                next = bo_pick(s, &w, ranked, n_ranked, nb, cap, global);
            else if (arm == ARM_STEP && set.step_by >= 1 && sur)
                next = aoe_surrogate_local(sur, s);
            else if (arm == ARM_STEP)
                next = step_pick(s, ranked[0], nb, cap);
            else if (arm == ARM_EVOLVE)
                next = evolve_pick(s, ranked, n_ranked);
            else if (arm == ARM_SHAPE)
                next = aoe_surrogate_shape(sur, s);
        }
        if (next < 0) next = aoe_search_random_unseen(s);
        if (next < 0) break;
        double bar = reward_bar(s, ranked, n_ranked);
        double best = n_ranked ? s->times[ranked[0]] : INFINITY;
        double t = aoe_search_eval(s, next);
        if (arm >= 0) reward(&b, arm, t > 0 && t < bar);
        since = t > 0 && t < best * (1 - set.gain) ? 0 : since + 1;
        if (burst_left && !--burst_left) since = 0;
    }
out:
    aoe_surrogate_free(sur);
    aoe_index_gp_free(&w.gp);
    free(nb);
    free(ranked);
    free(w.obs);
    free(w.ys);
    free(w.cand);
    free(w.mark);
}
