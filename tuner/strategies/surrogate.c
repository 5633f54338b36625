/* Model-guided search: a Bayesian additive model of log(time) (one weight per
 * parameter value, ridge prior) learnt from every measurement. Steps alternate
 * between a global pick, the unseen configuration that a Thompson sample of
 * the model ranks best over the whole valid space (exploration that favours
 * promising value combinations), and a local pick, the unseen neighbour of
 * the best configurations that the model's mean ranks best (the interactions
 * the additive model cannot see are found by looking next to the incumbent).
 * Once the incumbent has stalled, local picks switch to a Gaussian process
 * with pairwise value interactions (match_gp.h) that ranks every unseen
 * configuration within two parameter changes of the best ones by a lower
 * confidence bound: an isolated optimum, whose neighbours give no hint of it,
 * is found by enumerating the incumbent's surroundings in order of promise.
 * Stalled global picks are re-ranked by that GP too, among the Thompson
 * sample's best unseen rows: it sees the value pairs that make a region good
 * where the additive model only sees each value's average.
 * A stalled incumbent is also tried with the values of two parameters that
 * share a value list exchanged (tile_size_x = 4, tile_size_y = 2 becomes 2
 * and 4): x/y parameters of a 2-D kernel are often learnt the wrong way
 * round, since each one's average effect points to the other's best value.
 * A shape step fixes the shape (the values of the parameters with more than
 * 4 values: block sizes) at the one the additive model ranks best, and
 * measures the unseen combination of the narrow parameters (tiles, flags),
 * at least three of them changed from the incumbent's, that the GP ranks
 * best: a tiled kernel's fast code path is often such a conjunction (tile
 * 1 x 3 with read-only loads, shared memory and no padding on the A100
 * convolution), which no one- or two-change step reaches from a basin that
 * is good for other reasons, and which pays off only at a good shape. Where
 * shape steps are possible, every 6th step is one (in place of the every-
 * 10th random step elsewhere), and every 2nd stalled local step too.
 * Small spaces start with Bayesian optimisation instead (surrogate_bo.c): a
 * space-filling design, then expected improvement under a GP over value
 * indices, which a dozen evaluations suffice to steer. */
#include "tuner/strategies/common.h"
#include "tuner/strategies/additive_model.h"
#include "tuner/strategies/match_gp.h"
#include "tuner/strategies/model_picks.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Tuned in simulation on the datasets of ../shared/datasets (README). */
#define N_INIT 10           /* random configurations before the model is trusted, at most */
#define N_INIT_MIN 3        /* ... and at least */
#define INIT_SHARE 6        /* ... and 1/6 of a small budget (12 evaluations: 3 initial) */
#define LAMBDA 1.0          /* ridge prior on every value's weight */
#define EXPLORE 1.0         /* Thompson sample scale, in standard deviations of log(time) */
#define CAP_QUANTILE 0.5    /* times above this quantile count as this quantile, ... */
#define CAP_RATIO 3.0       /* ... or, with wide parameters, above 3x the best time ... */
#define CAP_UPPER 0.85      /* ... kept between the median and this quantile */
#define GLOBAL_PERIOD 2     /* every 2nd step is global, the others local */
#define RANDOM_PERIOD 10    /* every 10th step is uniformly random: escapes traps */
#define LOCAL_TOP 3         /* local steps look next to the 3 best configurations */
#define MAX_FEATURES 512    /* beyond this the dense model costs too much: use ILS */
#define STALL_GP 30         /* evaluations without improvement before local picks use the GP */
#define GP_KAPPA 1.0        /* lower confidence bound: mean - 1 standard deviation */
#define GP_MAX_OBS 400      /* the GP fits at most the 400 best configurations (cost n^3) */
#define SWAP_STALL 20       /* evaluations without improvement before exchanges are tried */
#define GLOBAL_GP_STALL 20  /* ... before global picks are re-ranked by the GP ... */
#define SHAPE_PERIOD 6      /* where shape steps are possible, every 6th step is one */
#define SHAPE_STALL 20      /* ... and from 20 stalled evaluations every 4th step too ... */
#define NARROW 4            /* ... with a new combination of the parameters of <= 4 values ... */
#define SHAPE_MIN_CHANGES 3 /* ... at least 3 of them changed (fewer: the other steps' job) */
#define SMALL_SPACE 1024    /* spaces up to this size start with Bayesian optimisation ... */
#define BO_EVALS 20         /* ... for their first 20 evaluations (surrogate_bo.c) */

/* True when a parameter has more than NARROW values (block sizes: the shape). */
static bool has_wide(const aoe_search_space *sp)
{
    for (int p = 0; p < sp->n_params; p++)
        if (sp->n_values[p] > NARROW) return true;
    return false;
}

/* Narrow parameters (at most NARROW values) with more than one value: a shape
 * step needs SHAPE_MIN_CHANGES of them. */
static int narrow_varying(const aoe_search_space *sp)
{
    int n = 0;
    for (int p = 0; p < sp->n_params; p++) n += sp->n_values[p] > 1 && sp->n_values[p] <= NARROW;
    return n;
}

/* `row` with each wide parameter (more than NARROW values: block sizes, the
 * launch's shape) set to the value the model's mean ranks best. */
static void model_shape(const aoe_additive_model *m, const aoe_search_space *sp,
                        const uint16_t *row, uint16_t *out)
{
    for (int p = 0; p < sp->n_params; p++) {
        out[p] = row[p];
        if (sp->n_values[p] <= NARROW) continue;
        for (int v = 0; v < sp->n_values[p]; v++)
            if (m->w[m->offset[p] + v] < m->w[m->offset[p] + out[p]]) out[p] = (uint16_t)v;
    }
}

/* Unseen row that has the wide parameters' values of `y` (the shape) and
 * changes at least SHAPE_MIN_CHANGES of its narrow ones (tiles, flags), with
 * the lowest GP lower confidence bound; -1 when there is none. */
static long shape_pick(aoe_search *s, aoe_match_gp *g, const uint16_t *y)
{
    const aoe_search_space *sp = s->space;
    int np = sp->n_params;
    long best = -1;
    double by = INFINITY;
    for (size_t r = 0; r < sp->n_configs; r++) {
        if (aoe_search_seen(s, (long)r)) continue;
        const uint16_t *x = aoe_search_row(s, (long)r);
        int changes = 0;
        bool same_shape = true;
        for (int p = 0; p < np && same_shape; p++) {
            if (x[p] == y[p]) continue;
            same_shape = sp->n_values[p] <= NARROW;
            changes++;
        }
        if (!same_shape || changes < SHAPE_MIN_CHANGES) continue;
        double v = aoe_match_gp_lcb(g, s, (long)r, GP_KAPPA);
        if (v < by) by = v, best = (long)r;
    }
    return best;
}

/* Unseen row equal to `row` with two same-list parameters' values exchanged,
 * or -1. */
static long swap_pick(aoe_search *s, long row)
{
    const aoe_search_space *sp = s->space;
    int np = sp->n_params;
    if (!sp->value_list_id) return -1;
    uint16_t vec[np];
    memcpy(vec, aoe_search_row(s, row), (size_t)np * sizeof(uint16_t));
    for (int p = 0; p < np; p++)
        for (int q = p + 1; q < np; q++) {
            if (sp->value_list_id[p] != sp->value_list_id[q] || vec[p] == vec[q]) continue;
            uint16_t vp = vec[p];
            vec[p] = vec[q], vec[q] = vp;
            long r = aoe_search_find(s, vec);
            vec[q] = vec[p], vec[p] = vp;
            if (r >= 0 && !aoe_search_seen(s, r)) return r;
        }
    return -1;
}

/* Random configurations before the model is fitted: 1/INIT_SHARE of the
 * budget within [N_INIT_MIN, N_INIT] (a small budget must leave most of its
 * evaluations to the model), and no more than the model has free weights (one
 * per value, less one per parameter, plus the mean). The start configuration,
 * measured first by aoe_search_init, is one of them. Budgets of 60 and more
 * start with N_INIT as before. */
static size_t initial_count(const aoe_search *s, size_t features)
{
    size_t n = s->max_evals / INIT_SHARE;
    size_t free_weights = features - (size_t)s->space->n_params + 1;
    if (n > N_INIT) n = N_INIT;
    if (n > free_weights) n = free_weights;
    return n < N_INIT_MIN ? N_INIT_MIN : n;
}

/* Log of the time above which measurements count as that time (ranked is
 * sorted, best first): the model should rank the good region, not explain
 * how bad the bad ones are. The median, or with wide parameters 3x the best
 * time kept between the median and the 0.85 quantile: a block size's 16
 * values are each measured a few times, and capping half of those seems to
 * starve their weights (A100 convolution +0.026 at 100 over 600 runs), while
 * a space whose times span 30x still caps at the median (MI250X) and one
 * without wide parameters keeps it (GEMM lost 0.010 with the wider cap). */
static double cap_log_time(const aoe_search *s, const long *ranked, size_t n, bool wide)
{
    double lo = s->times[ranked[(size_t)(CAP_QUANTILE * (double)(n - 1))]];
    if (!wide) return log(lo);
    double hi = s->times[ranked[(size_t)(CAP_UPPER * (double)(n - 1))]];
    double c = CAP_RATIO * s->times[ranked[0]];
    return log(c < lo ? lo : c > hi ? hi : c);
}

struct aoe_surrogate {
    aoe_additive_model m;
    aoe_match_gp g;
    long *nb, *ranked;
    double *ys;
    unsigned char *mark;
    size_t cap, cap2, gp_cap, n_init, seen, n_ranked, improved_at;
    bool wide, shapes;
    bool shapes_left; /* its periodic shape steps are the caller's (the portfolio's shape member) */
    double last_best;
    int step;
};

size_t aoe_surrogate_initial_count(const aoe_search *s)
{
    return initial_count(s, aoe_search_max_neighbours(s));
}

void aoe_surrogate_free(aoe_surrogate *st)
{
    if (!st) return;
    aoe_additive_free(&st->m);
    aoe_match_gp_free(&st->g);
    free(st->nb);
    free(st->ranked);
    free(st->ys);
    free(st->mark);
    free(st);
}

aoe_surrogate *aoe_surrogate_new(aoe_search *s)
{
    const aoe_search_space *sp = s->space;
    size_t features = aoe_search_max_neighbours(s); /* one per parameter value */
    if (features > MAX_FEATURES) return NULL;
    aoe_surrogate *st = calloc(1, sizeof *st);
    if (!st) return NULL;
    st->cap = features;
    /* Rows within two changes: at most (sum of value counts)^2 / 2 + sum. */
    size_t cap = st->cap;
    st->cap2 = cap * cap / 2 + cap < sp->n_configs ? cap * cap / 2 + cap : sp->n_configs;
    st->gp_cap = s->max_evals < GP_MAX_OBS ? s->max_evals : GP_MAX_OBS;
    st->nb = malloc((st->cap2 ? st->cap2 : 1) * sizeof(long));
    st->ranked = malloc(sp->n_configs * sizeof(long));
    st->ys = malloc(sp->n_configs * sizeof(double));
    st->mark = calloc(sp->n_configs, 1);
    if (!st->nb || !st->ranked || !st->ys || !st->mark || aoe_additive_init(&st->m, sp, LAMBDA) ||
        aoe_match_gp_init(&st->g, sp, st->gp_cap)) {
        aoe_surrogate_free(st);
        return NULL;
    }
    st->n_init = initial_count(s, features);
    st->wide = has_wide(sp);
    st->shapes = st->wide && narrow_varying(sp) >= SHAPE_MIN_CHANGES;
    st->last_best = INFINITY;
    return st;
}

bool aoe_surrogate_has_shapes(const aoe_surrogate *st)
{
    return st->shapes;
}

void aoe_surrogate_leave_shapes(aoe_surrogate *st)
{
    st->shapes_left = true;
}

/* Takes in the measurements made since the last call: the time of the last
 * improvement, and the successful rows (failures teach nothing). */
static void take_in(aoe_surrogate *st, const aoe_search *s)
{
    if (s->best_time < st->last_best) st->last_best = s->best_time, st->improved_at = s->evals;
    for (; st->seen < s->evals; st->seen++) {
        long r = s->history[st->seen];
        if (s->times[r] > 0) st->ranked[st->n_ranked++] = r;
    }
}

/* Sorts the measured rows best first and fits the additive model to their
 * log times, capped (cap_log_time); returns the cap. */
static double fit(aoe_surrogate *st, aoe_search *s)
{
    const aoe_search_space *sp = s->space;
    aoe_additive_model *mp = &st->m;
    long *ranked = st->ranked;
    size_t n_ranked = st->n_ranked;
    qsort_r(ranked, n_ranked, sizeof(long), aoe_by_time, s);
    double ycap = cap_log_time(s, ranked, n_ranked, st->wide);
    aoe_additive_reset(mp);
    for (size_t i = 0; i < n_ranked; i++) {
        double y = log(s->times[ranked[i]]);
        aoe_additive_add(mp, sp, aoe_search_row(s, ranked[i]), y < ycap ? y : ycap);
    }
    aoe_additive_fit(mp);
    return ycap;
}

/* One step of the schedule, or a shape step now (shape_now: not counted as a
 * step of the schedule). */
static long propose(aoe_surrogate *st, aoe_search *s, bool shape_now)
{
    const aoe_search_space *sp = s->space;
    aoe_additive_model *mp = &st->m;
    aoe_match_gp *gp = &st->g;
    long *nb = st->nb, *ranked = st->ranked;
    double *ys = st->ys;
    size_t cap = st->cap, cap2 = st->cap2, gp_cap = st->gp_cap, n_init = st->n_init;
    bool shapes = st->shapes;
    int step = shape_now ? st->step : st->step++;
    take_in(st, s);
    size_t n_ranked = st->n_ranked, improved_at = st->improved_at;
    long next = -1;
    /* Where shape steps are possible, every SHAPE_PERIOD-th step is one;
     * elsewhere every RANDOM_PERIOD-th is random. */
    int period = shapes ? SHAPE_PERIOD : RANDOM_PERIOD;
    bool periodic = shape_now || (step % period == period - 1 && !(shapes && st->shapes_left));
    bool shape_turn = periodic && shapes;
    if (n_ranked >= n_init && (!periodic || shape_turn)) {
        double ycap = fit(st, s);
        double var = mp->sum_yy / mp->n - (mp->sum_y / mp->n) * (mp->sum_y / mp->n);
        double sd = sqrt(var > 1e-12 ? var : 1e-12);
        bool local = step % GLOBAL_PERIOD != 0 || shape_turn;
        aoe_additive_sample(mp, &s->rng, EXPLORE * sd);
        size_t stalled = s->evals - improved_at;
        if (local && !shape_turn && stalled >= SWAP_STALL) next = swap_pick(s, ranked[0]);
        bool shape = shape_turn || (shapes && local && next < 0 && stalled >= SHAPE_STALL &&
                                    step / GLOBAL_PERIOD % 2 == 0);
        bool use_gp =
            local ? next < 0 && (shape || stalled >= STALL_GP) : stalled >= GLOBAL_GP_STALL;
        if (use_gp) {
            /* Same capped targets, standardised, best first (GP_MAX_OBS). */
            double mean = mp->sum_y / (double)mp->n;
            size_t n_gp = n_ranked < gp_cap ? n_ranked : gp_cap;
            for (size_t i = 0; i < n_gp; i++) {
                double y = log(s->times[ranked[i]]);
                ys[i] = ((y < ycap ? y : ycap) - mean) / sd;
            }
            aoe_match_gp_fit(gp, s, ranked, ys, n_gp);
            if (shape) {
                /* At the model's best shape, else at the incumbent's. */
                uint16_t vec[sp->n_params];
                model_shape(mp, sp, aoe_search_row(s, ranked[0]), vec);
                next = shape_pick(s, gp, vec);
                if (next < 0) next = shape_pick(s, gp, aoe_search_row(s, ranked[0]));
            }
            if (!local)
                next = aoe_pick_global_gp(s, mp, gp, GP_KAPPA);
            else if (next < 0 && !shape_turn && stalled >= STALL_GP)
                next =
                    aoe_pick_gp(s, gp, GP_KAPPA, ranked, n_ranked, LOCAL_TOP, nb, cap2, st->mark);
        }
        if (local && next < 0 && !shape_turn && stalled < STALL_GP)
            next = aoe_pick_local(s, mp, mp->w, ranked, n_ranked, LOCAL_TOP, nb, cap);
        if (next < 0 && !shape_turn) {
            if (local) aoe_additive_sample(mp, &s->rng, EXPLORE * sd);
            next = aoe_pick_global(s, mp);
        }
    }
    return next;
}

long aoe_surrogate_propose(aoe_surrogate *st, aoe_search *s)
{
    return propose(st, s, false);
}

long aoe_surrogate_shape(aoe_surrogate *st, aoe_search *s)
{
    return st->shapes ? propose(st, s, true) : -1;
}

long aoe_surrogate_local(aoe_surrogate *st, aoe_search *s)
{
    take_in(st, s);
    if (st->n_ranked < st->n_init) return -1;
    fit(st, s);
    return aoe_pick_local(s, &st->m, st->m.w, st->ranked, st->n_ranked, LOCAL_TOP, st->nb, st->cap);
}

void aoe_strategy_surrogate(aoe_search *s)
{
    const aoe_search_space *sp = s->space;
    if (aoe_search_max_neighbours(s) > MAX_FEATURES) {
        aoe_strategy_ils(s);
        return;
    }
    if (sp->n_configs <= SMALL_SPACE)
        aoe_surrogate_bo(s, s->max_evals < BO_EVALS ? s->max_evals : BO_EVALS);
    aoe_surrogate *st = aoe_surrogate_new(s);
    if (!st) return;
    while (!aoe_search_done(s)) {
        long next = aoe_surrogate_propose(st, s);
        if (next < 0) next = aoe_search_random_unseen(s);
        if (next < 0) break;
        aoe_search_eval(s, next);
    }
    aoe_surrogate_free(st);
}
