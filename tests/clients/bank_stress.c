/* Helper for tests/integration/bank_*.sh: many processes hammering one bank.
 *   bank_stress write BANK SEED PUTS KEYS LOG   put-if-better random times on KEYS keys,
 *                                               log "key time" of every put to LOG
 *   bank_stress read BANK LOOKUPS KEYS          random lookups; fails on any error or a
 *                                               generation that goes backwards
 *   bank_stress best BANK LOG...                each key holds the best time logged for it
 *   bank_stress append BANK LOG                 adds new records forever; after each put
 *                                               returns, logs its key and fsyncs (fault test)
 *   bank_stress present BANK LOG                every logged record is in the bank */
#include "store/bank.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FP "opencl|stress vendor|stress device|1.0|cu=4"

static aoe_bank *open_bank(const char *path, aoe_bank_mode mode)
{
    char err[1024];
    aoe_bank *b = aoe_bank_open(path, mode, err, sizeof err);
    if (!b) fprintf(stderr, "bank_stress: %s\n", err);
    return b;
}

static uint64_t next(uint64_t *s) /* splitmix64: reproducible per seed */
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static aoe_key key_of(uint64_t i)
{
    return (aoe_key){0xabcdull << 48 | i, i * 2654435761u};
}

static aoe_record make(double tuned, uint64_t tag)
{
    aoe_record r;
    memset(&r, 0, sizeof r);
    strcpy(r.runtime, "opencl");
    snprintf(r.kernel_name, sizeof r.kernel_name, "stress_%llu", (unsigned long long)tag);
    r.policy.work_dim = 1;
    r.policy.global[0] = 1 << 20;
    r.policy.local[0] = 64;
    r.default_us = 1000;
    r.tuned_us = tuned;
    snprintf(r.summary, sizeof r.summary, "writer record %llu", (unsigned long long)tag);
    return r;
}

static int cmd_write(const char *bank, uint64_t seed, long puts, long keys, const char *log)
{
    aoe_bank *b = open_bank(bank, AOE_BANK_READWRITE);
    FILE *f = fopen(log, "w");
    if (!b || !f) return 1;
    for (long i = 0; i < puts; i++) {
        uint64_t k = next(&seed) % (uint64_t)keys;
        double t = 1.0 + (double)(next(&seed) % 1000000) / 1000.0;
        aoe_key key = key_of(k);
        aoe_record r = make(t, k);
        if (aoe_bank_put_if_better(b, FP, &key, &r, 0.0) == AOE_PUT_ERROR) {
            fprintf(stderr, "bank_stress write: put %ld failed\n", i);
            return 1;
        }
        fprintf(f, "%llu %a\n", (unsigned long long)k, t);
    }
    aoe_bank_close(b);
    return fclose(f) ? 1 : 0;
}

static int cmd_read(const char *bank, long lookups, long keys)
{
    /* the writers may not have created the bank yet */
    aoe_bank *b = NULL;
    for (int i = 0; i < 200 && !b; i++) {
        char err[512];
        if (!(b = aoe_bank_open(bank, AOE_BANK_READONLY, err, sizeof err))) usleep(10000);
    }
    if (!b) return fprintf(stderr, "bank_stress read: bank never appeared\n"), 1;
    uint64_t seed = (uint64_t)getpid(), last_gen = 0;
    long hits = 0;
    for (long i = 0; i < lookups; i++) {
        aoe_key key = key_of(next(&seed) % (uint64_t)keys);
        aoe_record r;
        int rc = aoe_bank_get(b, FP, &key, &r);
        if (rc < 0) return fprintf(stderr, "bank_stress read: lookup error\n"), 1;
        if (rc == 1 && !(r.tuned_us >= 1.0 && r.tuned_us <= 1001.0))
            return fprintf(stderr, "bank_stress read: bad record %g\n", r.tuned_us), 1;
        hits += rc;
        uint64_t g = aoe_bank_generation(b);
        if (g < last_gen) return fprintf(stderr, "bank_stress read: generation went back\n"), 1;
        last_gen = g;
    }
    aoe_bank_close(b);
    printf("reader %d: %ld lookups, %ld hits\n", getpid(), lookups, hits);
    return 0;
}

static int cmd_best(const char *bank, int nlogs, char **logs)
{
    enum { MAXK = 1 << 16 };
    static double best[MAXK];
    for (int i = 0; i < MAXK; i++) best[i] = -1;
    for (int l = 0; l < nlogs; l++) {
        FILE *f = fopen(logs[l], "r");
        if (!f) return fprintf(stderr, "bank_stress best: cannot read %s\n", logs[l]), 1;
        unsigned long long k;
        double t;
        while (fscanf(f, "%llu %la", &k, &t) == 2)
            if (k < MAXK && (best[k] < 0 || t < best[k])) best[k] = t;
        fclose(f);
    }
    aoe_bank *b = open_bank(bank, AOE_BANK_READONLY);
    if (!b) return 1;
    long checked = 0, bad = 0;
    for (uint64_t k = 0; k < MAXK; k++) {
        if (best[k] < 0) continue;
        aoe_key key = key_of(k);
        aoe_record r;
        int rc = aoe_bank_get(b, FP, &key, &r);
        checked++;
        if (rc != 1 || r.tuned_us != best[k]) {
            if (bad++ < 5)
                fprintf(stderr, "key %llu: bank has %s%g, best written %g\n", (unsigned long long)k,
                        rc == 1 ? "" : "nothing ", rc == 1 ? r.tuned_us : 0, best[k]);
        }
    }
    aoe_bank_close(b);
    printf("%ld keys checked, %ld wrong\n", checked, bad);
    return bad ? 1 : 0;
}

static int cmd_append(const char *bank, const char *log)
{
    aoe_bank *b = open_bank(bank, AOE_BANK_READWRITE);
    int fd = open(log, O_WRONLY | O_APPEND | O_CREAT, 0600);
    if (!b || fd < 0) return 1;
    uint64_t seed = (uint64_t)getpid() << 20 ^ (uint64_t)time(NULL);
    for (;;) {
        uint64_t k = next(&seed);
        aoe_key key = {k, ~k};
        aoe_record r = make(1.0 + (double)(k % 1000), k);
        if (aoe_bank_put_if_better(b, FP, &key, &r, 0.0) != AOE_PUT_ADDED) return 1;
        char line[64];
        int n = snprintf(line, sizeof line, "%016llx %016llx\n", (unsigned long long)key.hi,
                         (unsigned long long)key.lo);
        if (write(fd, line, (size_t)n) != n || fsync(fd)) return 1;
    }
}

static int cmd_present(const char *bank, const char *log)
{
    FILE *f = fopen(log, "r");
    aoe_bank *b = open_bank(bank, AOE_BANK_READONLY);
    if (!f || !b) return 1;
    unsigned long long hi, lo;
    long n = 0, missing = 0;
    while (fscanf(f, "%llx %llx", &hi, &lo) == 2) {
        aoe_key key = {hi, lo};
        aoe_record r;
        n++;
        if (aoe_bank_get(b, FP, &key, &r) != 1 && missing++ < 5)
            fprintf(stderr, "committed record %016llx%016llx is missing\n", hi, lo);
    }
    fclose(f);
    aoe_bank_close(b);
    printf("%ld committed records, %ld missing\n", n, missing);
    return missing ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc >= 7 && !strcmp(argv[1], "write"))
        return cmd_write(argv[2], strtoull(argv[3], NULL, 10), atol(argv[4]), atol(argv[5]),
                         argv[6]);
    if (argc >= 5 && !strcmp(argv[1], "read"))
        return cmd_read(argv[2], atol(argv[3]), atol(argv[4]));
    if (argc >= 4 && !strcmp(argv[1], "best")) return cmd_best(argv[2], argc - 3, argv + 3);
    if (argc >= 4 && !strcmp(argv[1], "append")) return cmd_append(argv[2], argv[3]);
    if (argc >= 4 && !strcmp(argv[1], "present")) return cmd_present(argv[2], argv[3]);
    fprintf(stderr, "usage: see the comment at the top of tests/clients/bank_stress.c\n");
    return 2;
}
