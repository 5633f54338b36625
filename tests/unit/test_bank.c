/* The LMDB bank on real files: put-if-better, fingerprints, generation,
 * bad paths, import validation, export/import, merge, verify, map growth. */
#include "store/bank.h"
#include "store/bank_admin.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <lmdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define FP_A "opencl|Portable Computing Language|cpu-x86|6.0|cu=2"
#define FP_B "opencl|NVIDIA|H100|550|cu=132"

static char dir[64], bankdir[96];

static void setup(void)
{
    strcpy(dir, "/tmp/aoe-test-bank-XXXXXX");
    cr_assert(mkdtemp(dir));
    snprintf(bankdir, sizeof bankdir, "%s/bank", dir);
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(bank, .init = setup, .fini = teardown);

static aoe_record rec_with(double tuned, const char *kernel)
{
    aoe_record r;
    memset(&r, 0, sizeof r);
    strcpy(r.runtime, "opencl");
    snprintf(r.kernel_name, sizeof r.kernel_name, "%s", kernel);
    r.policy.work_dim = 1;
    r.policy.global[0] = 4096;
    r.policy.local[0] = 64;
    r.policy.n_params = 1;
    strcpy(r.policy.params[0].name, "WG");
    r.policy.params[0].value = 64;
    r.default_us = 100;
    r.tuned_us = tuned;
    strcpy(r.strategy, "brute");
    r.timestamp = 1700000000;
    return r;
}

static aoe_bank *open_rw(void)
{
    char err[512] = "";
    aoe_bank *b = aoe_bank_open(bankdir, AOE_BANK_READWRITE, err, sizeof err);
    cr_assert(b, "%s", err);
    return b;
}

static void write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    cr_assert(f);
    cr_assert_eq(fwrite(data, 1, len, f), len);
    fclose(f);
}

Test(bank, creates_private_directory_and_files)
{
    aoe_bank *b = open_rw();
    struct stat st;
    char p[160];
    cr_assert_eq(stat(bankdir, &st), 0);
    cr_assert_eq(st.st_mode & 0777, 0700);
    snprintf(p, sizeof p, "%s/data.mdb", bankdir);
    cr_assert_eq(stat(p, &st), 0);
    cr_assert_eq(st.st_mode & 0077, 0, "data.mdb mode %o", st.st_mode & 0777);
    cr_assert_str_eq(aoe_bank_path(b), bankdir);
    cr_assert_not(aoe_bank_is_readonly(b));
    aoe_bank_close(b);
}

Test(bank, put_if_better_semantics)
{
    aoe_bank *b = open_rw();
    aoe_key k = {1, 2};
    aoe_record r = rec_with(50, "k"), out;
    cr_assert_eq(aoe_bank_get(b, FP_A, &k, &out), 0);
    cr_assert_eq(aoe_bank_put_if_better(b, FP_A, &k, &r, 0.02), AOE_PUT_ADDED);
    cr_assert_eq(aoe_bank_get(b, FP_A, &k, &out), 1);
    cr_assert_eq(out.tuned_us, 50);
    r = rec_with(49.5, "k"); /* 1 % better: within the 2 % margin */
    cr_assert_eq(aoe_bank_put_if_better(b, FP_A, &k, &r, 0.02), AOE_PUT_RESERVED);
    r = rec_with(60, "k"); /* worse */
    cr_assert_eq(aoe_bank_put_if_better(b, FP_A, &k, &r, 0.0), AOE_PUT_RESERVED);
    r = rec_with(50, "k"); /* equal */
    cr_assert_eq(aoe_bank_put_if_better(b, FP_A, &k, &r, 0.0), AOE_PUT_RESERVED);
    cr_assert_eq(aoe_bank_get(b, FP_A, &k, &out), 1);
    cr_assert_eq(out.tuned_us, 50);
    r = rec_with(40, "k2");
    cr_assert_eq(aoe_bank_put_if_better(b, FP_A, &k, &r, 0.02), AOE_PUT_UPDATED);
    cr_assert_eq(aoe_bank_get(b, FP_A, &k, &out), 1);
    cr_assert_eq(out.tuned_us, 40);
    cr_assert_str_eq(out.kernel_name, "k2");
    r = rec_with(-1, "bad"); /* never stored */
    cr_assert_eq(aoe_bank_put_if_better(b, FP_A, &k, &r, 0), AOE_PUT_ERROR);
    aoe_bank_close(b);
}

Test(bank, fingerprints_partition_records)
{
    aoe_bank *b = open_rw();
    aoe_key k = {7, 7};
    aoe_record ra = rec_with(10, "a"), rb = rec_with(20, "b"), out;
    cr_assert_eq(aoe_bank_put_if_better(b, FP_A, &k, &ra, 0), AOE_PUT_ADDED);
    cr_assert_eq(aoe_bank_put_if_better(b, FP_B, &k, &rb, 0), AOE_PUT_ADDED);
    cr_assert_eq(aoe_bank_get(b, FP_A, &k, &out), 1);
    cr_assert_str_eq(out.kernel_name, "a");
    cr_assert_eq(aoe_bank_get(b, FP_B, &k, &out), 1);
    cr_assert_str_eq(out.kernel_name, "b");
    cr_assert_eq(aoe_bank_get(b, "opencl|other|x|1|cu=1", &k, &out), 0);
    char *fps[8];
    int n = aoe_bank_fingerprints(b, fps, 8);
    cr_assert_eq(n, 2);
    int seen = 0;
    for (int i = 0; i < n; i++) seen |= (!strcmp(fps[i], FP_A)) | (!strcmp(fps[i], FP_B)) << 1;
    cr_assert_eq(seen, 3, "full fingerprint strings are stored");
    aoe_bank_free_fingerprints(fps, n);
    cr_assert_eq(aoe_bank_delete(b, FP_A, &k), 1);
    cr_assert_eq(aoe_bank_delete(b, FP_A, &k), 0);
    cr_assert_eq(aoe_bank_get(b, FP_A, &k, &out), 0);
    cr_assert_eq(aoe_bank_get(b, FP_B, &k, &out), 1);
    aoe_bank_close(b);
}

Test(bank, generation_counts_write_transactions)
{
    aoe_bank *b = open_rw();
    aoe_key k = {3, 4};
    aoe_record r = rec_with(10, "g");
    uint64_t g0 = aoe_bank_generation(b);
    cr_assert_eq(aoe_bank_put_if_better(b, FP_A, &k, &r, 0), AOE_PUT_ADDED);
    uint64_t g1 = aoe_bank_generation(b);
    cr_assert_gt(g1, g0);
    cr_assert_eq(aoe_bank_put_if_better(b, FP_A, &k, &r, 0), AOE_PUT_RESERVED);
    cr_assert_eq(aoe_bank_generation(b), g1, "nothing written, no bump");
    r.tuned_us = 5;
    cr_assert_eq(aoe_bank_put_if_better(b, FP_A, &k, &r, 0), AOE_PUT_UPDATED);
    cr_assert_eq(aoe_bank_generation(b), g1 + 1);
    /* a second handle (as another process would) sees the same counter */
    char err[256];
    aoe_bank *ro = aoe_bank_open(bankdir, AOE_BANK_READONLY, err, sizeof err);
    cr_assert(ro, "%s", err);
    cr_assert_eq(aoe_bank_generation(ro), g1 + 1);
    cr_assert_eq(aoe_bank_delete(b, FP_A, &k), 1);
    cr_assert_eq(aoe_bank_generation(ro), g1 + 2);
    aoe_bank_close(ro);
    aoe_bank_close(b);
}

static void expect_open_error(aoe_bank_mode mode, const char *needle)
{
    char err[512] = "";
    aoe_bank *b = aoe_bank_open(bankdir, mode, err, sizeof err);
    cr_assert_null(b, "opened %s", bankdir);
    cr_assert(strstr(err, needle), "message '%s' lacks '%s'", err, needle);
}

Test(bank, path_that_is_a_file)
{
    write_file(bankdir, "hello", 5);
    expect_open_error(AOE_BANK_READWRITE, "is a file, not a bank directory");
    expect_open_error(AOE_BANK_READONLY, "is a file");
}

Test(bank, readonly_without_bank)
{
    expect_open_error(AOE_BANK_READONLY, "no knowledge bank");
    cr_assert_neq(access(bankdir, F_OK), 0, "read-only open must not create");
}

Test(bank, directory_with_foreign_files)
{
    char p[160];
    mkdir(bankdir, 0700);
    snprintf(p, sizeof p, "%s/thesis.tex", bankdir);
    write_file(p, "x", 1);
    expect_open_error(AOE_BANK_READWRITE, "not an AOE knowledge bank");
}

/* Processes that create the same new bank at once all open it: one that
 * looked for data.mdb before another created it must not then take that
 * data.mdb for a foreign file (it did, in about 1 of 5 runs of bank_stress). */
Test(bank, processes_creating_one_bank_at_once_all_open_it)
{
    enum { ROUNDS = 40, PROCS = 6 };
    int failed = 0;
    for (int round = 0; round < ROUNDS; round++) {
        char path[160];
        snprintf(path, sizeof path, "%s/race%d", dir, round);
        int go[2];
        cr_assert_eq(pipe(go), 0);
        pid_t kids[PROCS];
        for (int i = 0; i < PROCS; i++) {
            kids[i] = fork();
            cr_assert_geq(kids[i], 0);
            if (kids[i] == 0) {
                char c, err[512] = "";
                close(go[1]);
                if (read(go[0], &c, 1) < 0) _exit(3); /* all start when the pipe closes */
                aoe_bank *b = aoe_bank_open(path, AOE_BANK_READWRITE, err, sizeof err);
                if (!b) fprintf(stderr, "%s\n", err);
                aoe_bank_close(b);
                _exit(b ? 0 : 1);
            }
        }
        close(go[0]);
        close(go[1]);
        for (int i = 0; i < PROCS; i++) {
            int st;
            cr_assert_eq(waitpid(kids[i], &st, 0), kids[i]);
            failed += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
        }
    }
    cr_assert_eq(failed, 0, "%d of %d opens failed", failed, ROUNDS * PROCS);
}

Test(bank, garbage_and_truncated_data_are_refused_and_kept)
{
    char p[160], buf[16384];
    mkdir(bankdir, 0700);
    snprintf(p, sizeof p, "%s/data.mdb", bankdir);
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (char)(i * 2654435761u >> 13);
    write_file(p, buf, sizeof buf);
    expect_open_error(AOE_BANK_READWRITE, "not an LMDB file");
    struct stat st;
    cr_assert_eq(stat(p, &st), 0);
    cr_assert_eq(st.st_size, (off_t)sizeof buf, "garbage left untouched");

    /* a real bank cut short */
    unlink(p);
    aoe_bank *b = open_rw();
    aoe_record r = rec_with(1, "t");
    for (uint64_t i = 0; i < 300; i++) {
        aoe_key k = {i, i};
        snprintf(r.summary, sizeof r.summary, "%0200llu", (unsigned long long)i);
        cr_assert_eq(aoe_bank_put_if_better(b, FP_A, &k, &r, 0), AOE_PUT_ADDED);
    }
    aoe_bank_close(b);
    cr_assert_eq(stat(p, &st), 0);
    cr_assert_eq(truncate(p, st.st_size / 2), 0);
    expect_open_error(AOE_BANK_READONLY, "truncated");
    expect_open_error(AOE_BANK_READWRITE, "truncated");
}

Test(bank, newer_format_version_is_refused)
{
    aoe_bank *b = open_rw();
    aoe_bank_close(b);
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi dbi;
    uint64_t v = 99;
    cr_assert_eq(mdb_env_create(&env), 0);
    mdb_env_set_maxdbs(env, 4);
    cr_assert_eq(mdb_env_open(env, bankdir, 0, 0600), 0);
    cr_assert_eq(mdb_txn_begin(env, NULL, 0, &txn), 0);
    cr_assert_eq(mdb_dbi_open(txn, "meta", 0, &dbi), 0);
    MDB_val k = {6, "format"}, d = {8, &v};
    cr_assert_eq(mdb_put(txn, dbi, &k, &d, 0), 0);
    cr_assert_eq(mdb_txn_commit(txn), 0);
    mdb_env_close(env);
    expect_open_error(AOE_BANK_READWRITE, "format version 99");
}

Test(bank, foreign_lmdb_environment_is_not_a_bank)
{
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi dbi;
    mkdir(bankdir, 0700);
    cr_assert_eq(mdb_env_create(&env), 0);
    cr_assert_eq(mdb_env_open(env, bankdir, 0, 0600), 0);
    cr_assert_eq(mdb_txn_begin(env, NULL, 0, &txn), 0);
    cr_assert_eq(mdb_dbi_open(txn, NULL, 0, &dbi), 0);
    MDB_val k = {3, "abc"}, d = {3, "def"};
    cr_assert_eq(mdb_put(txn, dbi, &k, &d, 0), 0);
    cr_assert_eq(mdb_txn_commit(txn), 0);
    mdb_env_close(env);
    expect_open_error(AOE_BANK_READWRITE, "not an AOE knowledge bank");
    expect_open_error(AOE_BANK_READONLY, "not an AOE knowledge bank");
}

/* An empty LMDB environment is a bank whose creation did not finish (its
 * creator ran out of memory, or is writing the meta data now): read-only it
 * says so and fails with EAGAIN (the shim stays quiet and tries again); a
 * read-write open completes it. */
Test(bank, unfinished_bank_is_named_so_and_completed)
{
    MDB_env *env;
    mkdir(bankdir, 0700);
    cr_assert_eq(mdb_env_create(&env), 0);
    cr_assert_eq(mdb_env_open(env, bankdir, 0, 0600), 0);
    mdb_env_close(env);
    char err[512] = "";
    errno = 0;
    cr_assert_null(aoe_bank_open(bankdir, AOE_BANK_READONLY, err, sizeof err));
    cr_assert_eq(errno, EAGAIN);
    cr_assert(strstr(err, "unfinished knowledge bank"), "message: %s", err);
    aoe_bank *b = aoe_bank_open(bankdir, AOE_BANK_READWRITE, err, sizeof err);
    cr_assert_not_null(b, "%s", err);
    aoe_bank_close(b);
    b = aoe_bank_open(bankdir, AOE_BANK_READONLY, err, sizeof err);
    cr_assert_not_null(b, "%s", err);
    aoe_bank_close(b);
}

Test(bank, readonly_bank_refuses_writes)
{
    aoe_bank *b = open_rw();
    aoe_bank_close(b);
    char err[256];
    b = aoe_bank_open(bankdir, AOE_BANK_READONLY, err, sizeof err);
    cr_assert(b, "%s", err);
    cr_assert(aoe_bank_is_readonly(b));
    aoe_key k = {1, 1};
    aoe_record r = rec_with(1, "x");
    cr_assert_eq(aoe_bank_put_if_better(b, FP_A, &k, &r, 0), AOE_PUT_ERROR);
    cr_assert_eq(aoe_bank_delete(b, FP_A, &k), -1);
    aoe_bank_close(b);
}

Test(bank, map_grows_when_full)
{
    aoe_bank *b = open_rw();
    aoe_record r = rec_with(1, "grow");
    /* ~1 KB per record: 4000 records need several MiB, the map starts at 1 */
    for (uint64_t i = 0; i < 4000; i++) {
        aoe_key k = {i * 0x9e3779b97f4a7c15ull, i};
        snprintf(r.summary, sizeof r.summary, "%0250llu", (unsigned long long)i);
        cr_assert_eq(aoe_bank_put_if_better(b, FP_A, &k, &r, 0), AOE_PUT_ADDED, "i=%llu",
                     (unsigned long long)i);
    }
    aoe_bank_stats st;
    char err[256];
    cr_assert_eq(aoe_bank_get_stats(b, &st, err, sizeof err), 0, "%s", err);
    cr_assert_eq(st.records, 4000);
    cr_assert_gt(st.map_bytes, 1u << 20);
    uint64_t n = 0;
    cr_assert_eq(aoe_bank_verify(b, NULL, NULL, &n), 0);
    cr_assert_eq(n, 4000);
    aoe_bank_close(b);
}

typedef struct {
    size_t index[16];
    char reason[16][256];
    int n;
} rejects;

static void on_reject(void *ctx, size_t index, const char *reason)
{
    rejects *r = ctx;
    if (r->n < 16) {
        r->index[r->n] = index;
        snprintf(r->reason[r->n], sizeof r->reason[0], "%s", reason);
        r->n++;
    }
}

#define GOOD(key, t)                                                                               \
    "{\"fingerprint\":\"" FP_A "\",\"key\":\"" key "\",\"kernel_name\":\"k\",\"tuned_us\":" t      \
    ",\"policy\":{\"work_dim\":1,\"global\":[64],\"local\":[8],"                                   \
    "\"params\":[{\"name\":\"WG\",\"value\":8,\"define\":false}]}}"

Test(bank, import_validates_every_field_and_keeps_good_entries)
{
    aoe_bank *b = open_rw();
    size_t big = 1 << 20;
    char *huge = malloc(big + 1);
    memset(huge, 'A', big);
    huge[big] = '\0';
    const char *head = "{\"format\":\"aoe-bank\",\"version\":1,\"records\":[";
    const char *entries[] = {
        GOOD("00000000000000000000000000000001", "5"),
        "{\"fingerprint\":\"" FP_A "\",\"key\":\"zz\",\"kernel_name\":\"k\",\"tuned_us\":1,"
        "\"policy\":{\"work_dim\":1}}",
        "{\"fingerprint\":\"" FP_A "\",\"key\":\"00000000000000000000000000000002\","
        "\"kernel_name\":42,\"tuned_us\":1,\"policy\":{\"work_dim\":1}}",
        "{\"fingerprint\":\"" FP_A "\",\"key\":\"00000000000000000000000000000003\","
        "\"kernel_name\":\"k\",\"tuned_us\":\"fast\",\"policy\":{\"work_dim\":1}}",
        "{\"fingerprint\":\"" FP_A "\",\"key\":\"00000000000000000000000000000004\","
        "\"kernel_name\":\"k\",\"tuned_us\":1,\"policy\":{\"work_dim\":7}}",
        "[1,2,3]",
        GOOD("00000000000000000000000000000005", "7"),
        "{\"fingerprint\":\"" FP_A "\",\"key\":\"00000000000000000000000000000006\","
        "\"kernel_name\":\"k\",\"tuned_us\":1,\"policy\":{\"work_dim\":1,\"params\":"
        "[{\"name\":\"X\",\"value\":1.5}]}}",
    };
    size_t n = sizeof entries / sizeof entries[0];
    size_t cap = strlen(head) + big * 2 + 4096;
    for (size_t i = 0; i < n; i++) cap += strlen(entries[i]) + 1;
    char *doc = malloc(cap);
    strcpy(doc, head);
    for (size_t i = 0; i < n; i++) {
        strcat(doc, entries[i]);
        strcat(doc, ",");
    }
    /* index 8: a 1 MB kernel name; index 9: a 1 MB fingerprint */
    sprintf(doc + strlen(doc),
            "{\"fingerprint\":\"" FP_A "\",\"key\":\"00000000000000000000000000000008\","
            "\"kernel_name\":\"%s\",\"tuned_us\":1,\"policy\":{\"work_dim\":1}},",
            huge);
    sprintf(doc + strlen(doc),
            "{\"fingerprint\":\"%s\",\"key\":\"00000000000000000000000000000009\","
            "\"kernel_name\":\"k\",\"tuned_us\":1,\"policy\":{\"work_dim\":1}}]}",
            huge);
    rejects rj = {0};
    aoe_bank_counts c;
    char err[256] = "";
    cr_assert_eq(aoe_bank_import_json(b, doc, strlen(doc), 0, on_reject, &rj, &c, err, sizeof err),
                 0, "%s", err);
    cr_assert_eq(c.added, 2);
    cr_assert_eq(c.rejected, 8);
    cr_assert_eq(rj.n, 8);
    const size_t want_index[] = {1, 2, 3, 4, 5, 7, 8, 9};
    const char *want_reason[] = {"key",    "kernel_name", "tuned_us",    "work_dim",
                                 "object", "value",       "kernel_name", "fingerprint"};
    for (int i = 0; i < 8; i++) {
        cr_expect_eq(rj.index[i], want_index[i], "reject %d", i);
        cr_expect(strstr(rj.reason[i], want_reason[i]), "reject %d: %s", i, rj.reason[i]);
    }
    aoe_record out;
    aoe_key k;
    aoe_key_from_hex("00000000000000000000000000000005", &k);
    cr_assert_eq(aoe_bank_get(b, FP_A, &k, &out), 1);
    cr_assert_eq(out.tuned_us, 7);
    cr_assert_eq(out.policy.params[0].value, 8);
    free(doc);
    free(huge);
    aoe_bank_close(b);
}

Test(bank, import_refuses_unusable_documents)
{
    aoe_bank *b = open_rw();
    char err[256];
    aoe_bank_counts c;
    const char *docs[] = {"not json", "{\"records\":[]}", "[]",
                          "{\"format\":\"aoe-bank\",\"version\":9,\"records\":[]}",
                          "{\"format\":\"aoe-bank\",\"version\":1,\"records\":{}}"};
    uint64_t g = aoe_bank_generation(b);
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        err[0] = '\0';
        cr_assert_eq(
            aoe_bank_import_json(b, docs[i], strlen(docs[i]), 0, NULL, NULL, &c, err, sizeof err),
            -1, "%s", docs[i]);
        cr_assert(err[0]);
    }
    cr_assert_eq(aoe_bank_generation(b), g);
    aoe_bank_close(b);
}

Test(bank, export_import_round_trip)
{
    aoe_bank *b = open_rw();
    aoe_record r = rec_with(12.345678901234567, "exp");
    r.policy.params[0].value = -9007199254740991LL;
    r.policy.params[0].is_define = 1;
    strcpy(r.summary, "quote \" backslash \\ tab \t done");
    aoe_key k1 = {0xffffffffffffffffull, 1}, k2 = {2, 3};
    cr_assert_eq(aoe_bank_put_if_better(b, FP_A, &k1, &r, 0), AOE_PUT_ADDED);
    cr_assert_eq(aoe_bank_put_if_better(b, FP_B, &k2, &r, 0), AOE_PUT_ADDED);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    char err[256] = "";
    cr_assert_eq(aoe_bank_export_json(b, NULL, f, err, sizeof err), 2, "%s", err);
    fclose(f);
    aoe_bank_close(b);

    snprintf(bankdir + strlen(bankdir), sizeof bankdir - strlen(bankdir), "2");
    b = open_rw();
    aoe_bank_counts c;
    cr_assert_eq(aoe_bank_import_json(b, text, len, 0, NULL, NULL, &c, err, sizeof err), 0, "%s",
                 err);
    cr_assert_eq(c.added, 2);
    cr_assert_eq(c.rejected, 0);
    aoe_record out;
    cr_assert_eq(aoe_bank_get(b, FP_A, &k1, &out), 1);
    cr_assert_eq(out.tuned_us, r.tuned_us);
    cr_assert_eq(out.policy.params[0].value, r.policy.params[0].value);
    cr_assert_eq(out.policy.params[0].is_define, 1);
    cr_assert_str_eq(out.summary, r.summary);
    cr_assert_eq(aoe_bank_get(b, FP_B, &k2, &out), 1);
    /* importing again changes nothing */
    cr_assert_eq(aoe_bank_import_json(b, text, len, 0, NULL, NULL, &c, err, sizeof err), 0);
    cr_assert_eq(c.reserved, 2);
    free(text);
    aoe_bank_close(b);
}

static aoe_bank *open_at(const char *sub)
{
    char p[160], err[256];
    snprintf(p, sizeof p, "%s/%s", dir, sub);
    aoe_bank *b = aoe_bank_open(p, AOE_BANK_READWRITE, err, sizeof err);
    cr_assert(b, "%s", err);
    return b;
}

/* Two runs on a GPU: the same GEMM's default took 25.0 us in one and 18.6 us
 * in the other (on an H200, docs/cuda.md). The entry kept is the one with
 * the larger speed-up over its own run's default, not the smaller time of
 * the faster run. */
static aoe_record rec_run(double deflt, double tuned, const char *what)
{
    aoe_record r = rec_with(tuned, "gemm");
    r.default_us = deflt;
    snprintf(r.summary, sizeof r.summary, "%s", what);
    return r;
}

Test(bank, put_compares_speed_ups_measured_in_each_run)
{
    aoe_bank *b = open_rw();
    aoe_key k = {5, 6};
    aoe_record r = rec_run(25.0, 22.6, "slow run, 1.106x"), out;
    cr_assert_eq(aoe_bank_put_if_better(b, FP_A, &k, &r, 0.02), AOE_PUT_ADDED);
    r = rec_run(18.6, 18.6, "fast run, library default"); /* faster, but no gain */
    cr_assert_eq(aoe_bank_put_if_better(b, FP_A, &k, &r, 0.02), AOE_PUT_RESERVED);
    r = rec_run(18.6, 16.9, "fast run, 1.101x"); /* within the margin */
    cr_assert_eq(aoe_bank_put_if_better(b, FP_A, &k, &r, 0.02), AOE_PUT_RESERVED);
    r = rec_run(30.0, 25.0, "slower run, 1.2x"); /* slower, but the larger gain */
    cr_assert_eq(aoe_bank_put_if_better(b, FP_A, &k, &r, 0.02), AOE_PUT_UPDATED);
    cr_assert_eq(aoe_bank_get(b, FP_A, &k, &out), 1);
    cr_assert_str_eq(out.summary, "slower run, 1.2x");
    /* a record without a default time: compared by the tuned time */
    r = rec_run(0, 24.0, "no default");
    cr_assert_eq(aoe_bank_put_if_better(b, FP_A, &k, &r, 0.02), AOE_PUT_UPDATED);
    aoe_bank_close(b);
}

Test(bank, import_and_merge_compare_speed_ups)
{
    aoe_bank *a = open_at("a"), *s = open_at("s");
    aoe_key k1 = {1, 1}, k2 = {2, 2};
    aoe_record fast_default = rec_run(18.6, 18.6, "a: fast run, default"),
               slow_gain = rec_run(25.0, 22.6, "s: slow run, 1.106x");
    aoe_bank_put_if_better(a, FP_A, &k1, &fast_default, 0);
    aoe_bank_put_if_better(a, FP_A, &k2, &slow_gain, 0);
    aoe_bank_put_if_better(s, FP_A, &k1, &slow_gain, 0);
    aoe_bank_put_if_better(s, FP_A, &k2, &fast_default, 0);
    char err[512] = "";
    aoe_bank_counts c;
    cr_assert_eq(aoe_bank_merge(a, s, NULL, &c, err, sizeof err), 0, "%s", err);
    cr_assert_eq(c.updated, 1);
    cr_assert_eq(c.reserved, 1);
    aoe_record out;
    cr_assert_eq(aoe_bank_get(a, FP_A, &k1, &out), 1);
    cr_assert_str_eq(out.summary, "s: slow run, 1.106x");
    cr_assert_eq(aoe_bank_get(a, FP_A, &k2, &out), 1);
    cr_assert_str_eq(out.summary, "s: slow run, 1.106x");

    /* the same through an export of s imported into a fresh bank holding a's first records */
    aoe_bank *i = open_at("i");
    aoe_bank_put_if_better(i, FP_A, &k1, &fast_default, 0);
    aoe_bank_put_if_better(i, FP_A, &k2, &slow_gain, 0);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_eq(aoe_bank_export_json(s, NULL, f, err, sizeof err), 2, "%s", err);
    fclose(f);
    cr_assert_eq(aoe_bank_import_json(i, text, len, 0, NULL, NULL, &c, err, sizeof err), 0, "%s",
                 err);
    cr_assert_eq(c.updated, 1);
    cr_assert_eq(c.reserved, 1);
    cr_assert_eq(aoe_bank_get(i, FP_A, &k1, &out), 1);
    cr_assert_str_eq(out.summary, "s: slow run, 1.106x");
    free(text);
    aoe_bank_close(i);
    aoe_bank_close(s);
    aoe_bank_close(a);
}

Test(bank, merge_keeps_better_and_refuses_other_devices)
{
    aoe_bank *a = open_at("a"), *s = open_at("s"), *o = open_at("o");
    aoe_key k1 = {1, 1}, k2 = {2, 2}, k3 = {3, 3};
    aoe_record r10 = rec_with(10, "m"), r5 = rec_with(5, "m"), r20 = rec_with(20, "m");
    aoe_bank_put_if_better(a, FP_A, &k1, &r10, 0);
    aoe_bank_put_if_better(a, FP_A, &k2, &r10, 0);
    aoe_bank_put_if_better(s, FP_A, &k1, &r5, 0);  /* better: replaces */
    aoe_bank_put_if_better(s, FP_A, &k2, &r20, 0); /* worse: kept out */
    aoe_bank_put_if_better(s, FP_A, &k3, &r20, 0); /* new */
    aoe_bank_put_if_better(o, FP_B, &k1, &r5, 0);

    char err[512] = "";
    aoe_bank_counts c;
    uint64_t g = aoe_bank_generation(a);
    cr_assert_eq(aoe_bank_merge(a, o, NULL, &c, err, sizeof err), -1);
    cr_assert(strstr(err, FP_A) && strstr(err, FP_B), "names both: %s", err);
    cr_assert_eq(aoe_bank_generation(a), g, "refused merge writes nothing");

    cr_assert_eq(aoe_bank_merge(a, s, NULL, &c, err, sizeof err), 0, "%s", err);
    cr_assert_eq(c.added, 1);
    cr_assert_eq(c.updated, 1);
    cr_assert_eq(c.reserved, 1);
    aoe_record out;
    cr_assert_eq(aoe_bank_get(a, FP_A, &k1, &out), 1);
    cr_assert_eq(out.tuned_us, 5);
    cr_assert_eq(aoe_bank_get(a, FP_A, &k2, &out), 1);
    cr_assert_eq(out.tuned_us, 10);
    cr_assert_eq(aoe_bank_get(a, FP_A, &k3, &out), 1);
    cr_assert_eq(aoe_bank_merge(a, a, NULL, &c, err, sizeof err), -1);
    cr_assert(strstr(err, "same bank"), "%s", err);

    /* into an empty bank everything goes */
    aoe_bank *e = open_at("e");
    cr_assert_eq(aoe_bank_merge(e, o, NULL, &c, err, sizeof err), 0, "%s", err);
    cr_assert_eq(c.added, 1);
    aoe_bank_close(e);
    aoe_bank_close(a);
    aoe_bank_close(s);
    aoe_bank_close(o);
}

typedef struct {
    int n;
    char msg[256];
} problems;

static void on_problem(void *ctx, const char *fp, const char *key, const char *message)
{
    problems *p = ctx;
    (void)fp, (void)key;
    if (!p->n++) snprintf(p->msg, sizeof p->msg, "%s", message);
}

/* The bank's (first) fingerprint database, opened with LMDB directly in a
 * write transaction: for changes behind the bank's back. */
static MDB_dbi raw_fingerprint_db(MDB_env **env, MDB_txn **txn)
{
    MDB_dbi meta, dbi;
    MDB_cursor *cur;
    cr_assert_eq(mdb_env_create(env), 0);
    mdb_env_set_maxdbs(*env, 8);
    cr_assert_eq(mdb_env_open(*env, bankdir, 0, 0600), 0);
    cr_assert_eq(mdb_txn_begin(*env, NULL, 0, txn), 0);
    cr_assert_eq(mdb_dbi_open(*txn, "meta", 0, &meta), 0);
    MDB_val mk = {3, "fp:"}, md;
    cr_assert_eq(mdb_cursor_open(*txn, meta, &cur), 0);
    cr_assert_eq(mdb_cursor_get(cur, &mk, &md, MDB_SET_RANGE), 0);
    char name[64];
    memcpy(name, mk.mv_data, mk.mv_size);
    name[mk.mv_size] = '\0';
    mdb_cursor_close(cur);
    cr_assert_eq(mdb_dbi_open(*txn, name, 0, &dbi), 0);
    return dbi;
}

Test(bank, verify_finds_an_undecodable_record)
{
    aoe_bank *b = open_rw();
    aoe_key k = {5, 5};
    aoe_record r = rec_with(3, "v");
    cr_assert_eq(aoe_bank_put_if_better(b, FP_A, &k, &r, 0), AOE_PUT_ADDED);
    problems p = {0};
    uint64_t n;
    cr_assert_eq(aoe_bank_verify(b, on_problem, &p, &n), 0);
    cr_assert_eq(n, 1);
    char *fps[2];
    cr_assert_eq(aoe_bank_fingerprints(b, fps, 2), 1);
    aoe_bank_free_fingerprints(fps, 1);
    aoe_bank_close(b);

    /* write a bad value under the fingerprint's database behind the bank's back */
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi dbi = raw_fingerprint_db(&env, &txn);
    uint8_t key[16] = {9};
    MDB_val k2 = {16, key}, d2 = {5, "AOER\x01"};
    cr_assert_eq(mdb_put(txn, dbi, &k2, &d2, 0), 0);
    cr_assert_eq(mdb_txn_commit(txn), 0);
    mdb_env_close(env);

    b = open_rw();
    cr_assert_eq(aoe_bank_verify(b, on_problem, &p, &n), 1);
    cr_assert_eq(n, 2);
    cr_assert(strstr(p.msg, "truncated"), "%s", p.msg);
    /* the unreadable record is skipped by readers, the good one still served */
    aoe_record out;
    cr_assert_eq(aoe_bank_get(b, FP_A, &k, &out), 1);
    aoe_bank_close(b);
}

/* The one record under FP_A, behind the bank's back: its first 6 bytes in
 * head (version < 0), or rewritten with its format version set to `version`
 * (> 0) or cut to 5 bytes (0). */
static void only_record(int version, uint8_t head[6])
{
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi dbi = raw_fingerprint_db(&env, &txn);
    MDB_cursor *cur;
    MDB_val k, d;
    cr_assert_eq(mdb_cursor_open(txn, dbi, &cur), 0);
    cr_assert_eq(mdb_cursor_get(cur, &k, &d, MDB_FIRST), 0);
    uint8_t buf[4096];
    cr_assert(d.mv_size <= sizeof buf && d.mv_size > 6);
    memcpy(buf, d.mv_data, d.mv_size);
    if (version >= 0) {
        MDB_val nd = {version ? d.mv_size : 5, buf};
        buf[4] = (uint8_t)version, buf[5] = (uint8_t)(version >> 8);
        cr_assert_eq(mdb_cursor_put(cur, &k, &nd, MDB_CURRENT), 0);
    }
    memcpy(head, buf, 6);
    mdb_cursor_close(cur);
    cr_assert_eq(mdb_txn_commit(txn), 0);
    mdb_env_close(env);
}

/* A bank shared between aoe versions: a record in a newer record format is
 * not this aoe's to compare, so a put keeps it (it used to be replaced as
 * unreadable, losing the newer tuner's result); a damaged record is still
 * replaced. */
Test(bank, newer_record_is_kept_a_damaged_one_replaced)
{
    aoe_bank *b = open_rw();
    aoe_key k = {42, 7};
    aoe_record r = rec_with(50, "k"), better = rec_with(5, "k"), out;
    cr_assert_eq(aoe_bank_put_if_better(b, FP_A, &k, &r, 0), AOE_PUT_ADDED);
    aoe_bank_close(b);
    uint8_t head[6];
    only_record(AOE_RECORD_VERSION + 1, head);
    b = open_rw();
    cr_assert_eq(aoe_bank_put_if_better(b, FP_A, &k, &better, 0), AOE_PUT_RESERVED);
    aoe_bank_close(b);
    uint8_t now[6];
    only_record(-1, now);
    cr_assert_eq(memcmp(head, now, 6), 0, "the newer record was replaced");
    only_record(0, head); /* damaged: 5 bytes */
    b = open_rw();
    cr_assert_eq(aoe_bank_put_if_better(b, FP_A, &k, &better, 0), AOE_PUT_UPDATED);
    cr_assert_eq(aoe_bank_get(b, FP_A, &k, &out), 1);
    cr_assert_float_eq(out.tuned_us, 5, 1e-9);
    aoe_bank_close(b);
}

typedef struct {
    aoe_bank *b;
    int hits;
} reader_arg;

static void *reader(void *v)
{
    reader_arg *a = v;
    aoe_record out;
    for (int i = 0; i < 2000; i++) {
        aoe_key k = {(uint64_t)(i % 50), 1};
        int rc = aoe_bank_get(a->b, FP_A, &k, &out);
        if (rc < 0) return NULL;
        a->hits += rc;
    }
    return v;
}

Test(bank, threads_read_while_another_writes_and_grows)
{
    aoe_bank *b = open_rw();
    pthread_t t[4];
    reader_arg args[4];
    for (int i = 0; i < 4; i++) {
        args[i] = (reader_arg){b, 0};
        pthread_create(&t[i], NULL, reader, &args[i]);
    }
    aoe_record r = rec_with(1, "mt");
    for (uint64_t i = 0; i < 2000; i++) {
        aoe_key k = {i, 1};
        snprintf(r.summary, sizeof r.summary, "%0250llu", (unsigned long long)i);
        cr_assert_neq(aoe_bank_put_if_better(b, FP_A, &k, &r, 0), AOE_PUT_ERROR);
    }
    for (int i = 0; i < 4; i++) {
        void *ret;
        pthread_join(t[i], &ret);
        cr_assert_not_null(ret, "reader %d saw an error", i);
    }
    uint64_t n;
    cr_assert_eq(aoe_bank_verify(b, NULL, NULL, &n), 0);
    cr_assert_eq(n, 2000);
    aoe_bank_close(b);
}
