/* `aoe bank list|show|stats|verify`: read-only views of the bank. */
#include "tuner/cli.h"
#include "tuner/cli_bank.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void policy_text(const aoe_policy *p, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = '\0';
    for (uint32_t i = 0; i < p->n_params && i < AOE_MAX_PARAMS && n < cap; i++)
        n += (size_t)snprintf(out + n, cap - n, "%s=%lld ", p->params[i].name,
                              (long long)p->params[i].value);
    if (n >= cap) return;
    /* A library call's policy has no work sizes: its attributes, or none
     * (the library's own choice was the best: store/gemm_algo.h). */
    if (!p->global[0]) {
        if (!p->n_params) snprintf(out, cap, "library default");
        return;
    }
    if (p->local[0])
        snprintf(out + n, cap - n, "local=%llu,%llu,%llu", (unsigned long long)p->local[0],
                 (unsigned long long)p->local[1], (unsigned long long)p->local[2]);
    else
        snprintf(out + n, cap - n, "local=NULL");
}

static double speedup(const aoe_record *r)
{
    return r->tuned_us > 0 && r->default_us > 0 ? r->default_us / r->tuned_us : 0;
}

typedef struct {
    bank_args *a;
    const char *last_fp;
    char last_buf[AOE_FINGERPRINT_LEN];
    long n;
    int oom; /* a record could not be printed */
} list_ctx;

static int list_visit(void *vctx, const char *fp, const aoe_key *key, const aoe_record *rec)
{
    list_ctx *c = vctx;
    if (c->a->kernel && strcmp(c->a->kernel, rec->kernel_name)) return 0;
    if (c->a->json) {
        char *s = aoe_bank_record_json_text(fp, key, rec);
        if (!s) return c->oom = 1;
        printf("%s\n    %s", c->n ? "," : "", s);
        free(s);
    } else {
        char hex[33], pol[256];
        if (strcmp(c->last_buf, fp)) {
            snprintf(c->last_buf, sizeof c->last_buf, "%s", fp);
            printf("%sdevice %s\n%-32s  %-24s %12s %12s %8s  %s\n", c->n ? "\n" : "", fp, "KEY",
                   "KERNEL", "TUNED_US", "DEFAULT_US", "SPEEDUP", "POLICY");
        }
        aoe_key_to_hex(key, hex);
        policy_text(&rec->policy, pol, sizeof pol);
        printf("%-32s  %-24.24s %12.3f %12.3f %7.2fx  %s\n", hex, rec->kernel_name, rec->tuned_us,
               rec->default_us, speedup(rec), pol);
    }
    c->n++;
    return 0;
}

int bank_cmd_list(int argc, char **argv)
{
    bank_args a = {.cmd = "list",
                   .help = "usage: aoe bank list [--fingerprint FP] [--kernel NAME] [--json]\n\n"
                           "Every record: key, kernel, tuned and default time (us), speedup and\n"
                           "policy, grouped by device fingerprint. --json: {\"records\": [...]}\n"
                           "with the objects of `aoe bank export`.\n",
                   .allowed = BOPT_FP | BOPT_KERNEL};
    int rc = bank_parse(&a, argc, argv);
    if (rc >= 0) return rc;
    aoe_bank *b = bank_cli_open(&a, AOE_BANK_READONLY);
    if (!b) return AOE_EXIT_FAIL;
    list_ctx c = {.a = &a};
    if (a.json)
        printf("{\n  \"bank\": "), bank_print_json_string(stdout, aoe_bank_path(b)),
            printf(",\n  \"records\": [");
    rc = aoe_bank_foreach(b, a.fp, list_visit, &c);
    if (a.json)
        printf("\n  ]\n}\n");
    else if (!c.n)
        printf("no records in %s\n", aoe_bank_path(b));
    aoe_bank_close(b);
    if (c.oom)
        fprintf(stderr, "aoe bank list: out of memory: the list is incomplete\n");
    else if (rc)
        fprintf(stderr, "aoe bank list: cannot read the bank\n");
    return rc || c.oom ? AOE_EXIT_FAIL : AOE_EXIT_OK;
}

int bank_cmd_show(int argc, char **argv)
{
    bank_args a = {.cmd = "show",
                   .help = "usage: aoe bank show KEY [--fingerprint FP] [--json]\n\n"
                           "Every field of one record. KEY is the 32-digit hex operator key or a\n"
                           "prefix of it that matches exactly one record.\n",
                   .allowed = BOPT_FP,
                   .min_pos = 1,
                   .max_pos = 1};
    int rc = bank_parse(&a, argc, argv);
    if (rc >= 0) return rc;
    aoe_bank *b = bank_cli_open(&a, AOE_BANK_READONLY);
    if (!b) return AOE_EXIT_FAIL;
    char fp[AOE_FINGERPRINT_LEN], hex[33];
    aoe_key key;
    aoe_record *r = malloc(sizeof *r);
    if (!r) fprintf(stderr, "aoe bank show: out of memory\n");
    rc = !r || bank_find_key(b, a.pos[0], a.fp, fp, sizeof fp, &key, r);
    aoe_bank_close(b);
    if (rc) {
        free(r);
        return AOE_EXIT_FAIL;
    }
    if (a.json) {
        char *s = aoe_bank_record_json_text(fp, &key, r);
        if (!s) {
            fprintf(stderr, "aoe bank show: out of memory\n");
            free(r);
            return AOE_EXIT_FAIL;
        }
        printf("%s\n", s);
        free(s);
    } else {
        const aoe_policy *p = &r->policy;
        aoe_key_to_hex(&key, hex);
        printf("key              %s\nfingerprint      %s\nruntime          %s\n"
               "kernel           %s\nsummary          %s\n",
               hex, fp, r->runtime, r->kernel_name, r->summary);
        printf("work sizes       dim %u, global %llu,%llu,%llu, local ", p->work_dim,
               (unsigned long long)p->global[0], (unsigned long long)p->global[1],
               (unsigned long long)p->global[2]);
        if (p->local[0])
            printf("%llu,%llu,%llu\n", (unsigned long long)p->local[0],
                   (unsigned long long)p->local[1], (unsigned long long)p->local[2]);
        else
            printf("NULL\n");
        for (uint32_t i = 0; i < p->n_params; i++)
            printf("parameter        %s = %lld%s\n", p->params[i].name,
                   (long long)p->params[i].value,
                   p->params[i].kind == AOE_PARAM_DEFINE         ? " (-D)"
                   : p->params[i].kind == AOE_PARAM_LIBRARY_ATTR ? " (library attribute)"
                                                                 : "");
        printf("default time     %.3f us (spread %.3f)\ntuned time       %.3f us (spread %.3f)\n"
               "speedup          %.2fx\nevaluations      %u\ntuning time      %.1f s\n"
               "strategy         %s\ntuner version    %s\n",
               r->default_us, r->default_spread_us, r->tuned_us, r->tuned_spread_us, speedup(r),
               r->evaluations, r->tuning_seconds, r->strategy, r->tuner_version);
        char when[64] = "?";
        time_t t = (time_t)r->timestamp;
        struct tm tm;
        if (gmtime_r(&t, &tm)) strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
        printf("tuned at         %s\n", when);
    }
    free(r);
    return AOE_EXIT_OK;
}

typedef struct {
    int json, n;
} fpcount_ctx;

static void print_fp_count(void *vctx, const char *fp, uint64_t records)
{
    fpcount_ctx *c = vctx;
    if (c->json) {
        printf("%s\n    {\"fingerprint\": ", c->n ? "," : "");
        bank_print_json_string(stdout, fp);
        printf(", \"records\": %llu}", (unsigned long long)records);
    } else {
        printf("  %10llu  %s\n", (unsigned long long)records, fp);
    }
    c->n++;
}

int bank_cmd_stats(int argc, char **argv)
{
    bank_args a = {.cmd = "stats",
                   .help = "usage: aoe bank stats [--json]\n\n"
                           "Format version, creation time, generation (write transactions so\n"
                           "far), records per device fingerprint, file and map sizes, readers.\n"};
    int rc = bank_parse(&a, argc, argv);
    if (rc >= 0) return rc;
    aoe_bank *b = bank_cli_open(&a, AOE_BANK_READONLY);
    if (!b) return AOE_EXIT_FAIL;
    aoe_bank_stats st;
    char err[512];
    if (aoe_bank_get_stats(b, &st, err, sizeof err)) {
        fprintf(stderr, "aoe bank stats: %s\n", err);
        aoe_bank_close(b);
        return AOE_EXIT_FAIL;
    }
    fpcount_ctx c = {a.json, 0};
    if (a.json) {
        printf("{\n  \"bank\": ");
        bank_print_json_string(stdout, aoe_bank_path(b));
        printf(",\n  \"format\": %d,\n  \"created\": %lld,\n  \"generation\": %llu,\n"
               "  \"records\": %llu,\n  \"file_bytes\": %llu,\n  \"map_bytes\": %llu,\n"
               "  \"used_bytes\": %llu,\n  \"page_size\": %u,\n  \"readers_used\": %u,\n"
               "  \"readers_max\": %u,\n  \"fingerprints\": [",
               st.format, (long long)st.created, (unsigned long long)st.generation,
               (unsigned long long)st.records, (unsigned long long)st.file_bytes,
               (unsigned long long)st.map_bytes, (unsigned long long)st.used_bytes, st.page_size,
               st.readers_used, st.readers_max);
    } else {
        char when[64] = "?";
        time_t t = (time_t)st.created;
        struct tm tm;
        if (gmtime_r(&t, &tm)) strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
        printf("bank          %s\nformat        %d\ncreated       %s\ngeneration    %llu\n"
               "records       %llu\ndevices       %d\nfile          %.1f KiB (%.1f KiB used, map "
               "%.1f KiB)\nreaders       %u of %u slots in use\n",
               aoe_bank_path(b), st.format, when, (unsigned long long)st.generation,
               (unsigned long long)st.records, st.fingerprints, st.file_bytes / 1024.0,
               st.used_bytes / 1024.0, st.map_bytes / 1024.0, st.readers_used, st.readers_max);
        if (st.fingerprints) printf("\n     RECORDS  DEVICE FINGERPRINT\n");
    }
    errno = 0;
    rc = aoe_bank_count_by_fingerprint(b, print_fp_count, &c);
    if (a.json) printf("\n  ]\n}\n");
    if (rc)
        fprintf(stderr, "aoe bank stats: cannot count the records per device: %s\n",
                errno ? strerror(errno) : "cannot read the bank");
    aoe_bank_close(b);
    return rc ? AOE_EXIT_FAIL : AOE_EXIT_OK;
}

typedef struct {
    int json, n;
} problem_ctx;

static void print_problem(void *vctx, const char *fp, const char *key, const char *msg)
{
    problem_ctx *c = vctx;
    if (c->json) {
        printf("%s\n    {\"fingerprint\": ", c->n ? "," : "");
        if (fp)
            bank_print_json_string(stdout, fp);
        else
            printf("null");
        printf(", \"key\": ");
        if (key)
            bank_print_json_string(stdout, key);
        else
            printf("null");
        printf(", \"problem\": ");
        bank_print_json_string(stdout, msg);
        printf("}");
    } else {
        printf("problem: %s%s%s%s%s\n", fp ? "device " : "", fp ? fp : "", key ? " key " : "",
               key ? key : "", fp || key ? ": " : "");
        printf("         %s\n", msg);
    }
    c->n++;
}

int bank_cmd_verify(int argc, char **argv)
{
    bank_args a = {.cmd = "verify",
                   .help = "usage: aoe bank verify [--json]\n\n"
                           "Decodes every record and checks the bank's structure (meta data,\n"
                           "fingerprint table). Exit 0 when clean, 1 when a problem is found.\n"};
    int rc = bank_parse(&a, argc, argv);
    if (rc >= 0) return rc;
    aoe_bank *b = bank_cli_open(&a, AOE_BANK_READONLY);
    if (!b) return AOE_EXIT_FAIL;
    problem_ctx c = {a.json, 0};
    uint64_t records = 0;
    if (a.json) printf("{\n  \"problems\": [");
    long n = aoe_bank_verify(b, print_problem, &c, &records);
    if (a.json)
        printf("\n  ],\n  \"records\": %llu,\n  \"clean\": %s\n}\n", (unsigned long long)records,
               n == 0 ? "true" : "false");
    else if (n >= 0)
        printf("%s: %llu records checked, %ld problem%s\n", aoe_bank_path(b),
               (unsigned long long)records, n, n == 1 ? "" : "s");
    if (n < 0) fprintf(stderr, "aoe bank verify: %s could not be read\n", aoe_bank_path(b));
    aoe_bank_close(b);
    return n == 0 ? AOE_EXIT_OK : AOE_EXIT_FAIL;
}
