/* `aoe bank`: dispatch, shared option parsing and bank opening. */
#include "tuner/cli.h"
#include "tuner/cli_bank.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out,
            "usage: aoe bank [--bank PATH] COMMAND [ARGS] [--json]\n"
            "\n"
            "commands:\n"
            "  list [--fingerprint FP] [--kernel NAME]   every record, one line each\n"
            "  show KEY [--fingerprint FP]               one record (KEY: hex, a unique prefix)\n"
            "  stats                                     sizes, counts, generation\n"
            "  verify                                    decode every record, check structure\n"
            "  export [-o FILE] [--fingerprint FP]       records as JSON (stdout by default)\n"
            "  import FILE [--margin F]                  add records from an export\n"
            "  merge SRC_BANK [--fingerprint FP]         add the better records of another bank\n"
            "  delete KEY [--fingerprint FP]             remove one record\n"
            "\n"
            "The bank is --bank PATH, else TUNE_BANK_PATH, else $XDG_DATA_HOME/aoe/bank,\n"
            "else ~/.local/share/aoe/bank. `aoe bank COMMAND --help` describes each command.\n"
            "Exit status: 0 ok, 1 failure, 2 usage error.\n");
}

int aoe_cmd_bank(int argc, char **argv)
{
    /* `aoe bank --bank PATH list` is the same as `aoe bank list --bank PATH` */
    const char *bank = NULL;
    int i = 1;
    while (i < argc && argv[i][0] == '-') {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return AOE_EXIT_OK;
        }
        if (!strcmp(argv[i], "--bank") && i + 1 < argc) {
            bank = argv[i + 1];
            i += 2;
            continue;
        }
        fprintf(stderr, "aoe bank: unknown option '%s' before the command\n", argv[i]);
        usage(stderr);
        return AOE_EXIT_USAGE;
    }
    if (i >= argc) {
        usage(stderr);
        return AOE_EXIT_USAGE;
    }
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } cmds[] = {{"list", bank_cmd_list},     {"show", bank_cmd_show},
                {"stats", bank_cmd_stats},   {"verify", bank_cmd_verify},
                {"export", bank_cmd_export}, {"import", bank_cmd_import},
                {"merge", bank_cmd_merge},   {"delete", bank_cmd_delete}};
    for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++) {
        if (strcmp(argv[i], cmds[c].name)) continue;
        if (!bank) return cmds[c].fn(argc - i, argv + i);
        /* append --bank PATH to the subcommand's arguments */
        int n = argc - i;
        char **v = calloc((size_t)n + 3, sizeof *v);
        if (!v) {
            fprintf(stderr, "aoe bank %s: out of memory\n", cmds[c].name);
            return AOE_EXIT_FAIL;
        }
        memcpy(v, argv + i, (size_t)n * sizeof *v);
        v[n] = "--bank";
        v[n + 1] = (char *)bank;
        int rc = cmds[c].fn(n + 2, v);
        free(v);
        return rc;
    }
    fprintf(stderr, "aoe bank: unknown command '%s'\n", argv[i]);
    usage(stderr);
    return AOE_EXIT_USAGE;
}

static int need_value(const char *cmd, int i, int argc, char **argv)
{
    if (i + 1 < argc) return 0;
    fprintf(stderr, "aoe bank %s: %s needs a value (see aoe bank %s --help)\n", cmd, argv[i], cmd);
    return -1;
}

int bank_parse(bank_args *a, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
            fputs(a->help, stdout);
            fputs("\nCommon options: --bank PATH (default: TUNE_BANK_PATH, see aoe config), "
                  "--json.\nExit status: 0 ok, 1 failure, 2 usage error.\n",
                  stdout);
            return AOE_EXIT_OK;
        }
        if (!strcmp(o, "--json")) {
            a->json = 1;
        } else if (!strcmp(o, "--bank")) {
            if (need_value(a->cmd, i, argc, argv)) return AOE_EXIT_USAGE;
            a->bank = argv[++i];
        } else if (!strcmp(o, "--fingerprint") && (a->allowed & BOPT_FP)) {
            if (need_value(a->cmd, i, argc, argv)) return AOE_EXIT_USAGE;
            a->fp = argv[++i];
        } else if (!strcmp(o, "--kernel") && (a->allowed & BOPT_KERNEL)) {
            if (need_value(a->cmd, i, argc, argv)) return AOE_EXIT_USAGE;
            a->kernel = argv[++i];
        } else if ((!strcmp(o, "-o") || !strcmp(o, "--output")) && (a->allowed & BOPT_OUTPUT)) {
            if (need_value(a->cmd, i, argc, argv)) return AOE_EXIT_USAGE;
            a->output = argv[++i];
        } else if (!strcmp(o, "--margin") && (a->allowed & BOPT_MARGIN)) {
            if (need_value(a->cmd, i, argc, argv)) return AOE_EXIT_USAGE;
            char *end;
            a->margin = strtod(argv[++i], &end);
            if (*end || end == argv[i] || !(a->margin >= 0 && a->margin < 10)) {
                fprintf(stderr,
                        "aoe bank %s: --margin '%s' is not a fraction in 0..10 "
                        "(0.02 = 2 %%)\n",
                        a->cmd, argv[i]);
                return AOE_EXIT_USAGE;
            }
        } else if (o[0] == '-' && o[1]) {
            fprintf(stderr, "aoe bank %s: unknown option '%s' (see aoe bank %s --help)\n", a->cmd,
                    o, a->cmd);
            return AOE_EXIT_USAGE;
        } else {
            if (a->npos >= a->max_pos) {
                fprintf(stderr, "aoe bank %s: unexpected argument '%s' (see aoe bank %s --help)\n",
                        a->cmd, o, a->cmd);
                return AOE_EXIT_USAGE;
            }
            a->pos[a->npos++] = o;
        }
    }
    if (a->npos < a->min_pos) {
        fprintf(stderr, "aoe bank %s: missing argument (see aoe bank %s --help)\n", a->cmd, a->cmd);
        return AOE_EXIT_USAGE;
    }
    return -1;
}

aoe_bank *bank_cli_open(bank_args *a, aoe_bank_mode mode)
{
    char err[1024];
    if (!a->bank) {
        aoe_config cfg;
        if (aoe_cli_config(&cfg)) return NULL;
        if (aoe_config_bank_path(&cfg, a->bank_buf, sizeof a->bank_buf)) {
            fprintf(stderr, "aoe bank: no bank path: set TUNE_BANK_PATH or HOME\n");
            return NULL;
        }
        a->bank = a->bank_buf;
    }
    aoe_bank *b = aoe_bank_open(a->bank, mode, err, sizeof err);
    if (!b) fprintf(stderr, "aoe bank %s: %s\n", a->cmd, err);
    return b;
}

typedef struct {
    char prefix[33];
    size_t plen;
    int matches;
    char fp[AOE_FINGERPRINT_LEN];
    aoe_key key;
    aoe_record rec;
} find_ctx;

static int find_visit(void *vctx, const char *fp, const aoe_key *key, const aoe_record *rec)
{
    find_ctx *f = vctx;
    char hex[33];
    aoe_key_to_hex(key, hex);
    if (strncmp(hex, f->prefix, f->plen)) return 0;
    if (!f->matches++) {
        snprintf(f->fp, sizeof f->fp, "%s", fp);
        f->key = *key;
        f->rec = *rec;
    }
    return 0;
}

int bank_find_key(aoe_bank *b, const char *prefix, const char *fp, char *fp_out, size_t fplen,
                  aoe_key *key, aoe_record *rec)
{
    find_ctx *f = calloc(1, sizeof *f);
    if (!f) {
        fprintf(stderr, "aoe bank: out of memory\n");
        return 1;
    }
    f->plen = strlen(prefix);
    int bad = f->plen == 0 || f->plen > 32;
    for (size_t i = 0; i < f->plen && !bad; i++) {
        if (!isxdigit((unsigned char)prefix[i]))
            bad = 1;
        else
            f->prefix[i] = (char)tolower((unsigned char)prefix[i]);
    }
    int ret = 1;
    if (bad) {
        fprintf(stderr, "aoe bank: '%s' is not a key (1 to 32 hex digits)\n", prefix);
    } else if (aoe_bank_foreach(b, fp, find_visit, f)) {
        fprintf(stderr, "aoe bank: cannot read %s\n", aoe_bank_path(b));
    } else if (!f->matches) {
        fprintf(stderr, "aoe bank: no record with key %s in %s\n", prefix, aoe_bank_path(b));
    } else if (f->matches > 1) {
        fprintf(stderr, "aoe bank: key prefix %s matches %d records; give more digits%s\n", prefix,
                f->matches, fp ? "" : " or --fingerprint");
    } else {
        snprintf(fp_out, fplen, "%s", f->fp);
        *key = f->key;
        *rec = f->rec;
        ret = 0;
    }
    free(f);
    return ret;
}

void bank_print_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}
