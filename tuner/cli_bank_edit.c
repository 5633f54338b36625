/* `aoe bank export|import|merge|delete`: moving records in and out. */
#include "tuner/cli.h"
#include "tuner/cli_bank.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define IMPORT_MAX_BYTES (1024L * 1024 * 1024) /* refuse larger files outright */

int bank_cmd_export(int argc, char **argv)
{
    bank_args a = {.cmd = "export",
                   .help = "usage: aoe bank export [-o FILE] [--fingerprint FP] [--json]\n\n"
                           "Writes every record (or one device's) as a JSON document to FILE\n"
                           "(written to FILE.tmp, then renamed) or stdout. The format is in\n"
                           "docs/formats.md, section \"The knowledge bank\". --json with -o: the\n"
                           "summary as JSON.\n",
                   .allowed = BOPT_FP | BOPT_OUTPUT};
    int rc = bank_parse(&a, argc, argv);
    if (rc >= 0) return rc;
    /* The file is replaced by a rename: never a device, a FIFO or a link
     * (`-o /dev/stdout` would replace the link itself; `-` is stdout). */
    struct stat ost;
    if (a.output && strcmp(a.output, "-") && !lstat(a.output, &ost) && !S_ISREG(ost.st_mode)) {
        fprintf(stderr,
                "aoe bank export: %s exists and is not a regular file (it would be replaced); "
                "give a regular file, or - for standard output\n",
                a.output);
        return AOE_EXIT_FAIL;
    }
    aoe_bank *b = bank_cli_open(&a, AOE_BANK_READONLY);
    if (!b) return AOE_EXIT_FAIL;
    char tmp[4200], err[4400];
    FILE *out = stdout;
    if (a.output && strcmp(a.output, "-")) {
        snprintf(tmp, sizeof tmp, "%s.tmp", a.output);
        /* A new file of our own (never one reached through a planted link):
         * a stale FILE.tmp is removed (the link itself, not its target). */
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && errno == EEXIST && !unlink(tmp))
            fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 || !(out = fdopen(fd, "w"))) {
            if (fd >= 0) close(fd);
            fprintf(stderr, "aoe bank export: cannot write %s: %s\n", tmp, strerror(errno));
            aoe_bank_close(b);
            return AOE_EXIT_FAIL;
        }
    }
    long n = aoe_bank_export_json(b, a.fp, out, err, sizeof err);
    aoe_bank_close(b);
    if (out == stdout && n < 0) clearerr(stdout); /* said below, once */
    if (out != stdout) {
        if ((ferror(out) | fclose(out)) && n >= 0) {
            snprintf(err, sizeof err, "cannot write %s: %s", tmp,
                     errno ? strerror(errno) : "a write failed");
            n = -1;
        }
        if (n >= 0 && rename(tmp, a.output)) {
            snprintf(err, sizeof err, "cannot rename %s: %s", tmp, strerror(errno));
            n = -1;
        }
        if (n < 0) unlink(tmp);
    }
    if (n < 0) {
        fprintf(stderr, "aoe bank export: %s\n", err);
        return AOE_EXIT_FAIL;
    }
    if (out != stdout && a.json)
        printf("{\"exported\": %ld, \"file\": ", n), bank_print_json_string(stdout, a.output),
            printf("}\n");
    else
        fprintf(stderr, "aoe bank export: %ld record%s\n", n, n == 1 ? "" : "s");
    return AOE_EXIT_OK;
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f) {
        fprintf(stderr, "aoe bank import: cannot read %s: %s\n", path, strerror(errno));
        return NULL;
    }
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap);
    if (!buf) fprintf(stderr, "aoe bank import: out of memory reading %s\n", path);
    while (buf) {
        if (n == cap) {
            if (cap >= (size_t)IMPORT_MAX_BYTES) {
                fprintf(stderr, "aoe bank import: %s is larger than %ld MiB\n", path,
                        IMPORT_MAX_BYTES >> 20);
                free(buf);
                buf = NULL;
                break;
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                fprintf(stderr, "aoe bank import: out of memory reading %s\n", path);
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb, cap *= 2;
        }
        errno = 0;
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0) break;
    }
    if (buf && ferror(f)) { /* a directory, a closed stdin, an I/O error */
        fprintf(stderr, "aoe bank import: cannot read %s: %s\n", path,
                errno ? strerror(errno) : "a read failed");
        free(buf);
        buf = NULL;
    }
    if (f != stdin) fclose(f);
    *len = n;
    return buf;
}

typedef struct {
    int json, n;
} reject_ctx;

static void print_reject(void *vctx, size_t index, const char *reason)
{
    reject_ctx *c = vctx;
    if (c->json) {
        printf("%s\n    {\"index\": %zu, \"reason\": ", c->n ? "," : "", index);
        bank_print_json_string(stdout, reason);
        printf("}");
    } else {
        fprintf(stderr, "aoe bank import: records[%zu] rejected: %s\n", index, reason);
    }
    c->n++;
}

static void print_counts(const char *what, const aoe_bank_counts *c, int json, const char *path)
{
    if (json)
        printf("  \"added\": %zu,\n  \"updated\": %zu,\n  \"reserved\": %zu,\n  \"rejected\": "
               "%zu\n}\n",
               c->added, c->updated, c->reserved, c->rejected);
    else
        printf("%s %s: %zu added, %zu updated, %zu kept (existing entry as good), %zu rejected\n",
               what, path, c->added, c->updated, c->reserved, c->rejected);
}

int bank_cmd_import(int argc, char **argv)
{
    bank_args a = {.cmd = "import",
                   .help = "usage: aoe bank import FILE [--margin F] [--json]\n\n"
                           "Adds the records of an export (FILE, or - for stdin). Each entry is\n"
                           "validated; a bad one is rejected with its index and reason and the\n"
                           "good ones are kept. An entry replaces an existing one only when its\n"
                           "speed-up over the default (default_us / tuned_us) is larger by more\n"
                           "than the margin (default 0: any improvement; tuned times where an\n"
                           "entry has no default time). All in one transaction. Exit 1 if any\n"
                           "entry was rejected or the file is unusable.\n",
                   .allowed = BOPT_MARGIN,
                   .min_pos = 1,
                   .max_pos = 1};
    int rc = bank_parse(&a, argc, argv);
    if (rc >= 0) return rc;
    size_t len;
    char *text = read_all(a.pos[0], &len);
    if (!text) return AOE_EXIT_FAIL;
    aoe_bank *b = bank_cli_open(&a, AOE_BANK_READWRITE);
    if (!b) {
        free(text);
        return AOE_EXIT_FAIL;
    }
    reject_ctx rc_ctx = {a.json, 0};
    aoe_bank_counts c;
    char err[512];
    if (a.json) printf("{\n  \"rejects\": [");
    rc = aoe_bank_import_json(b, text, len, a.margin, print_reject, &rc_ctx, &c, err, sizeof err);
    free(text);
    if (a.json) printf("\n  ],\n");
    if (rc) {
        if (a.json) printf("  \"error\": "), bank_print_json_string(stdout, err), printf("\n}\n");
        fprintf(stderr, "aoe bank import: %s: %s\n", a.pos[0], err);
        aoe_bank_close(b);
        return AOE_EXIT_FAIL;
    }
    print_counts("imported into", &c, a.json, aoe_bank_path(b));
    aoe_bank_close(b);
    return c.rejected ? AOE_EXIT_FAIL : AOE_EXIT_OK;
}

int bank_cmd_merge(int argc, char **argv)
{
    bank_args a = {.cmd = "merge",
                   .help = "usage: aoe bank merge SRC_BANK [--fingerprint FP] [--json]\n\n"
                           "Adds the records of the bank directory SRC_BANK (opened read-only)\n"
                           "to this bank, keeping the better entry per key (the larger speed-up\n"
                           "over the default, as import). Only devices this bank already holds\n"
                           "are merged (into an empty bank: all); a device it does not hold\n"
                           "refuses the merge, naming both. --fingerprint FP: merge only that\n"
                           "device. One transaction.\n",
                   .allowed = BOPT_FP,
                   .min_pos = 1,
                   .max_pos = 1};
    int rc = bank_parse(&a, argc, argv);
    if (rc >= 0) return rc;
    char err[1024];
    aoe_bank *src = aoe_bank_open(a.pos[0], AOE_BANK_READONLY, err, sizeof err);
    if (!src) {
        fprintf(stderr, "aoe bank merge: source: %s\n", err);
        return AOE_EXIT_FAIL;
    }
    aoe_bank *dst = bank_cli_open(&a, AOE_BANK_READWRITE);
    if (!dst) {
        aoe_bank_close(src);
        return AOE_EXIT_FAIL;
    }
    aoe_bank_counts c;
    rc = aoe_bank_merge(dst, src, a.fp, &c, err, sizeof err);
    if (rc) {
        fprintf(stderr, "aoe bank merge: %s\n", err);
    } else {
        if (a.json)
            printf("{\n  \"source\": "), bank_print_json_string(stdout, a.pos[0]), printf(",\n");
        print_counts("merged into", &c, a.json, aoe_bank_path(dst));
    }
    aoe_bank_close(dst);
    aoe_bank_close(src);
    return rc ? AOE_EXIT_FAIL : AOE_EXIT_OK;
}

int bank_cmd_delete(int argc, char **argv)
{
    bank_args a = {.cmd = "delete",
                   .help = "usage: aoe bank delete KEY [--fingerprint FP] [--json]\n\n"
                           "Removes one record. KEY is the hex operator key or a prefix that\n"
                           "matches exactly one record (of FP when given).\n",
                   .allowed = BOPT_FP,
                   .min_pos = 1,
                   .max_pos = 1};
    int rc = bank_parse(&a, argc, argv);
    if (rc >= 0) return rc;
    aoe_bank *b = bank_cli_open(&a, AOE_BANK_READWRITE);
    if (!b) return AOE_EXIT_FAIL;
    char fp[AOE_FINGERPRINT_LEN], hex[33];
    aoe_key key;
    aoe_record *r = malloc(sizeof *r);
    if (!r) fprintf(stderr, "aoe bank delete: out of memory\n");
    rc = !r || bank_find_key(b, a.pos[0], a.fp, fp, sizeof fp, &key, r);
    free(r);
    if (!rc) {
        if (aoe_bank_is_readonly(b)) {
            fprintf(stderr, "aoe bank delete: %s is read-only\n", aoe_bank_path(b));
            rc = 1;
        } else {
            rc = aoe_bank_delete(b, fp, &key) == 1 ? 0 : 1;
        }
    }
    aoe_bank_close(b);
    if (rc) return AOE_EXIT_FAIL;
    aoe_key_to_hex(&key, hex);
    if (a.json) {
        printf("{\"deleted\": \"%s\", \"fingerprint\": ", hex);
        bank_print_json_string(stdout, fp);
        printf("}\n");
    } else {
        printf("deleted %s (device %s)\n", hex, fp);
    }
    return AOE_EXIT_OK;
}
