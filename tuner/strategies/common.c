/* Shared machinery of the search strategies: see common.h. */
#include "tuner/strategies/common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void aoe_rng_seed(aoe_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t aoe_rng_next(aoe_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double aoe_rng_uniform(aoe_rng *r)
{
    return (double)(aoe_rng_next(r) >> 11) * 0x1.0p-53;
}

size_t aoe_rng_below(aoe_rng *r, size_t n)
{
    /* Multiply-shift: unbiased enough for search decisions, and portable. */
    return (size_t)(((unsigned __int128)aoe_rng_next(r) * n) >> 64);
}

void aoe_rng_shuffle(aoe_rng *r, long *a, size_t n)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = aoe_rng_below(r, i);
        long t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double search_now(const aoe_search *s)
{
    return s->clock ? s->clock(s->ctx) : now_s();
}

static uint64_t hash_vec(const uint16_t *v, int n)
{
    uint64_t h = 0x243f6a8885a308d3ULL;
    for (int i = 0; i < n; i++) {
        h ^= v[i];
        h *= 0x100000001b3ULL;
        h ^= h >> 29;
    }
    return h * 0x9e3779b97f4a7c15ULL;
}

long aoe_search_find(const aoe_search *s, const uint16_t *vec)
{
    int np = s->space->n_params;
    for (size_t i = hash_vec(vec, np) & s->mask;; i = (i + 1) & s->mask) {
        uint32_t slot = s->slots[i];
        if (!slot) return -1;
        long row = (long)slot - 1;
        if (!memcmp(aoe_search_row(s, row), vec, (size_t)np * sizeof(uint16_t))) return row;
    }
}

static int build_index(aoe_search *s)
{
    size_t n = s->space->n_configs, cap = 16;
    while (cap < 2 * n) cap <<= 1;
    s->slots = calloc(cap, sizeof(uint32_t));
    if (!s->slots) return -1;
    s->mask = cap - 1;
    int np = s->space->n_params;
    for (size_t r = 0; r < n; r++) {
        const uint16_t *v = aoe_search_row(s, (long)r);
        size_t i = hash_vec(v, np) & s->mask;
        /* Duplicate rows: the first one stands for both (the second is unreachable
         * through neighbourhoods but still drawable at random). */
        while (s->slots[i] &&
               memcmp(aoe_search_row(s, (long)s->slots[i] - 1), v, (size_t)np * sizeof(uint16_t)))
            i = (i + 1) & s->mask;
        if (!s->slots[i]) s->slots[i] = (uint32_t)(r + 1);
    }
    return 0;
}

int aoe_search_init(aoe_search *s, const aoe_search_space *space, aoe_eval_fn eval, void *ctx,
                    const aoe_budget *budget)
{
    memset(s, 0, sizeof *s);
    s->space = space;
    s->eval = eval;
    s->ctx = ctx;
    s->best = -1;
    s->best_time = INFINITY;
    size_t n = space->n_configs;
    s->max_evals = budget->max_evals && budget->max_evals < n ? budget->max_evals : n;
    s->clock = budget->clock;
    s->started = search_now(s);
    s->deadline = budget->time_limit_s > 0 ? s->started + budget->time_limit_s : 0;
    aoe_rng_seed(&s->rng, budget->seed);
    if (n == 0) return 0;
    s->times = malloc(n * sizeof(double));
    s->history = malloc(n * sizeof(long));
    if (!s->times || !s->history || build_index(s)) {
        aoe_search_free(s);
        return -1;
    }
    for (size_t i = 0; i < n; i++) s->times[i] = AOE_UNSEEN;
    if (budget->start_config >= 0 && (size_t)budget->start_config < n)
        aoe_search_eval(s, budget->start_config);
    return 0;
}

void aoe_search_free(aoe_search *s)
{
    free(s->times);
    free(s->history);
    free(s->slots);
    s->times = NULL;
    s->history = NULL;
    s->slots = NULL;
}

void aoe_search_result_of(const aoe_search *s, aoe_search_result *out)
{
    out->best_config = s->best;
    out->best_time = s->best >= 0 ? s->best_time : 0;
    out->evaluations = s->evals;
    out->failures = s->failures;
}

bool aoe_search_done(aoe_search *s)
{
    if (s->evals >= s->max_evals || s->timed_out) return true;
    if (s->deadline > 0 && search_now(s) >= s->deadline) s->timed_out = true;
    return s->timed_out;
}

bool aoe_search_time_ending(const aoe_search *s, double share, size_t evals)
{
    if (s->deadline <= 0 || s->evals == 0) return false;
    double now = search_now(s), pace = (now - s->started) / (double)s->evals;
    double keep = share * (s->deadline - s->started);
    if ((double)evals * pace < keep) keep = (double)evals * pace;
    return s->deadline - now <= keep;
}

size_t aoe_search_horizon(const aoe_search *s)
{
    if (s->deadline <= 0 || s->evals == 0) return s->max_evals;
    double now = search_now(s), pace = (now - s->started) / (double)s->evals;
    double more = pace > 0 ? (s->deadline - now) / pace : (double)s->max_evals;
    if (!(more > 0)) more = 0;
    double all = (double)s->evals + more;
    return all < (double)s->max_evals ? (size_t)all : s->max_evals;
}

double aoe_search_eval(aoe_search *s, long row)
{
    if (row < 0 || (size_t)row >= s->space->n_configs) return AOE_UNSEEN;
    if (aoe_search_seen(s, row)) return s->times[row];
    if (aoe_search_done(s)) return AOE_UNSEEN;
    double t = s->eval(s->ctx, (size_t)row);
    s->history[s->evals++] = row;
    if (!(t > 0) || !isfinite(t)) {
        s->failures++;
        s->times[row] = AOE_FAILED;
        return AOE_FAILED;
    }
    s->times[row] = t;
    if (t < s->best_time) {
        s->best_time = t;
        s->best = row;
    }
    return t;
}

size_t aoe_search_max_neighbours(const aoe_search *s)
{
    size_t m = 0;
    for (int p = 0; p < s->space->n_params; p++) m += (size_t)s->space->n_values[p];
    return m;
}

size_t aoe_search_neighbours(const aoe_search *s, long row, bool adjacent_only, long *out,
                             size_t cap)
{
    int np = s->space->n_params;
    uint16_t vec[np > 0 ? np : 1];
    memcpy(vec, aoe_search_row(s, row), (size_t)np * sizeof(uint16_t));
    size_t k = 0;
    for (int p = 0; p < np && k < cap; p++) {
        uint16_t orig = vec[p];
        int nv = s->space->n_values[p];
        for (int v = 0; v < nv && k < cap; v++) {
            if (v == orig) continue;
            if (adjacent_only && v != orig - 1 && v != orig + 1) continue;
            vec[p] = (uint16_t)v;
            long r = aoe_search_find(s, vec);
            if (r >= 0) out[k++] = r;
        }
        vec[p] = orig;
    }
    return k;
}

long aoe_search_random_unseen(aoe_search *s)
{
    size_t n = s->space->n_configs;
    if (s->evals >= n) return -1;
    /* Rejection sampling is fast while most of the space is unseen; fall back
     * to a scan from a random point when it is nearly full. */
    for (int tries = 0; tries < 64; tries++) {
        long r = (long)aoe_rng_below(&s->rng, n);
        if (!aoe_search_seen(s, r)) return r;
    }
    size_t start = aoe_rng_below(&s->rng, n);
    for (size_t i = 0; i < n; i++) {
        long r = (long)((start + i) % n);
        if (!aoe_search_seen(s, r)) return r;
    }
    return -1;
}

long aoe_search_perturb(aoe_search *s, long row, int steps)
{
    size_t cap = aoe_search_max_neighbours(s);
    long *nb = malloc((cap ? cap : 1) * sizeof(long));
    if (!nb) return row;
    for (int i = 0; i < steps; i++) {
        size_t k = aoe_search_neighbours(s, row, false, nb, cap);
        if (!k) break;
        row = nb[aoe_rng_below(&s->rng, k)];
    }
    free(nb);
    return row;
}
