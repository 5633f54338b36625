/* Bank benchmark (scripts/bench/bank): warm lookup latency, hit and miss,
 * against an in-memory hash table floor measured in the same run, and
 * put-if-better throughput for 1 and 8 processes.
 *   bench_bank DIR [RECORDS] [PUTS] */
#include "store/bank.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FP "opencl|bench vendor|bench device|1.0|cu=8"
#define BATCH 256
#define BATCHES 2000

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static aoe_key key_of(uint64_t i)
{
    return (aoe_key){i * 0x9e3779b97f4a7c15ull, i ^ 0x5555};
}

static aoe_record make(uint64_t i, double t)
{
    aoe_record r;
    memset(&r, 0, sizeof r);
    strcpy(r.runtime, "opencl");
    snprintf(r.kernel_name, sizeof r.kernel_name, "kernel_%llu", (unsigned long long)i);
    r.policy.n_params = 2;
    strcpy(r.policy.params[0].name, "TILE");
    r.policy.params[0].value = 16;
    strcpy(r.policy.params[1].name, "VEC");
    r.policy.params[1].value = 4;
    r.policy.work_dim = 2;
    r.policy.global[0] = r.policy.global[1] = 1024;
    r.policy.local[0] = r.policy.local[1] = 16;
    r.default_us = 100;
    r.tuned_us = t;
    snprintf(r.summary, sizeof r.summary, "bench.cl kernel_%llu 1024x1024", (unsigned long long)i);
    return r;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median over BATCHES of the mean per call in a batch of BATCH calls. */
typedef int (*lookup_fn)(void *ctx, uint64_t i, aoe_record *out);
static double median_ns(lookup_fn fn, void *ctx, uint64_t nkeys, uint64_t offset)
{
    static double samples[BATCHES];
    aoe_record out;
    uint64_t s = 1;
    for (int b = 0; b < BATCHES; b++) {
        double t0 = now_ns();
        for (int i = 0; i < BATCH; i++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            if (fn(ctx, offset + (s >> 33) % nkeys, &out) < 0) exit(1);
        }
        samples[b] = (now_ns() - t0) / BATCH;
    }
    qsort(samples, BATCHES, sizeof samples[0], cmp);
    return samples[BATCHES / 2];
}

static int bank_lookup(void *ctx, uint64_t i, aoe_record *out)
{
    aoe_key k = key_of(i);
    return aoe_bank_get(ctx, FP, &k, out);
}

/* The floor: an open-addressing table of decoded records in this process. */
typedef struct {
    aoe_key *keys;
    aoe_record *recs;
    uint64_t mask;
} table;

static int table_lookup(void *ctx, uint64_t i, aoe_record *out)
{
    table *t = ctx;
    aoe_key k = key_of(i);
    for (uint64_t h = (k.hi ^ k.lo) & t->mask;; h = (h + 1) & t->mask) {
        if (!t->keys[h].hi && !t->keys[h].lo) return 0;
        if (t->keys[h].hi == k.hi && t->keys[h].lo == k.lo) {
            *out = t->recs[h];
            return 1;
        }
    }
}

static double put_rate(const char *path, int procs, long puts)
{
    double t0 = now_ns();
    for (int p = 0; p < procs; p++) {
        if (fork() == 0) {
            char err[512];
            aoe_bank *b = aoe_bank_open(path, AOE_BANK_READWRITE, err, sizeof err);
            if (!b) _exit(1);
            for (long i = 0; i < puts / procs; i++) {
                /* every put is better than the last: each one commits */
                uint64_t k = (uint64_t)(p * 1000003 + i % 500) + (1ull << 40);
                aoe_key key = key_of(k);
                aoe_record r = make(k, 1e6 - (double)i);
                if (aoe_bank_put_if_better(b, FP, &key, &r, 0) == AOE_PUT_ERROR) _exit(1);
            }
            aoe_bank_close(b);
            _exit(0);
        }
    }
    int st, ok = 1;
    while (wait(&st) > 0) ok &= WIFEXITED(st) && WEXITSTATUS(st) == 0;
    if (!ok) exit(1);
    return puts / ((now_ns() - t0) / 1e9);
}

int main(int argc, char **argv)
{
    if (argc < 2) return fprintf(stderr, "usage: bench_bank DIR [RECORDS] [PUTS]\n"), 2;
    const char *path = argv[1];
    uint64_t n = argc > 2 ? strtoull(argv[2], NULL, 10) : 10000;
    long puts = argc > 3 ? atol(argv[3]) : 4000;
    char err[512];
    aoe_bank *b = aoe_bank_open(path, AOE_BANK_READWRITE, err, sizeof err);
    if (!b) return fprintf(stderr, "bench_bank: %s\n", err), 1;
    table t = {0};
    t.mask = 1;
    while (t.mask < n * 2) t.mask <<= 1;
    t.keys = calloc(t.mask, sizeof *t.keys);
    t.recs = calloc(t.mask, sizeof *t.recs);
    t.mask--;
    for (uint64_t i = 0; i < n; i++) {
        aoe_key k = key_of(i);
        aoe_record r = make(i, 10.0 + (double)i);
        if (aoe_bank_put_if_better(b, FP, &k, &r, 0) == AOE_PUT_ERROR) return 1;
        uint64_t h = (k.hi ^ k.lo) & t.mask;
        while (t.keys[h].hi || t.keys[h].lo) h = (h + 1) & t.mask;
        t.keys[h] = k;
        t.recs[h] = r;
    }
    median_ns(bank_lookup, b, n, 0); /* warm-up: pages mapped, txn pool filled */
    double hit = median_ns(bank_lookup, b, n, 0), miss = median_ns(bank_lookup, b, n, n);
    double fhit = median_ns(table_lookup, &t, n, 0), fmiss = median_ns(table_lookup, &t, n, n);
    aoe_bank_close(b);
    printf("records in bank            %llu\n", (unsigned long long)n);
    printf("warm lookup, hit  (median) %8.0f ns   floor (in-memory hash) %6.0f ns   ratio %6.1fx\n",
           hit, fhit, hit / fhit);
    printf("warm lookup, miss (median) %8.0f ns   floor (in-memory hash) %6.0f ns   ratio %6.1fx\n",
           miss, fmiss, miss / fmiss);
    double r1 = put_rate(path, 1, puts), r8 = put_rate(path, 8, puts);
    printf("put-if-better, 1 process   %8.0f commits/s\n", r1);
    printf("put-if-better, 8 processes %8.0f commits/s (all together)   ratio to 1 process %.2fx\n",
           r8, r8 / r1);
    printf("target: warm hit < 1000 ns: %s\n", hit < 1000 ? "met" : "NOT met");
    free(t.keys);
    free(t.recs);
    return 0;
}
