/* `aoe bank` internals shared by tuner/cli_bank*.c: option parsing, opening
 * the bank, and one function per subcommand. */
#ifndef AOE_CLI_BANK_H
#define AOE_CLI_BANK_H

#include "store/bank.h"
#include "store/bank_admin.h"

#include <stdio.h>

enum {
    BOPT_FP = 1,     /* --fingerprint FP */
    BOPT_OUTPUT = 2, /* -o/--output FILE */
    BOPT_MARGIN = 4, /* --margin FRACTION */
    BOPT_KERNEL = 8, /* --kernel NAME */
};

typedef struct {
    const char *cmd;  /* "list", ... */
    const char *help; /* usage text */
    unsigned allowed; /* BOPT_* */
    int min_pos, max_pos;
    const char *bank; /* --bank, or from the configuration */
    const char *fp, *output, *kernel;
    double margin;
    int json;
    const char *pos[4];
    int npos;
    char bank_buf[4096];
} bank_args;

/* Parses argv (argv[0] is the subcommand). Returns -1 to continue, or the
 * exit status (help printed: 0; usage error: 2). */
int bank_parse(bank_args *a, int argc, char **argv);
/* Opens the bank named by --bank or the configuration; prints the error. */
aoe_bank *bank_cli_open(bank_args *a, aoe_bank_mode mode);
/* Finds the unique record whose key starts with a hex prefix (optionally of
 * one fingerprint). 0 found, 1 none / ambiguous (message printed). */
int bank_find_key(aoe_bank *b, const char *prefix, const char *fp, char *fp_out, size_t fplen,
                  aoe_key *key, aoe_record *rec);
void bank_print_json_string(FILE *out, const char *s);

int bank_cmd_list(int argc, char **argv);
int bank_cmd_show(int argc, char **argv);
int bank_cmd_stats(int argc, char **argv);
int bank_cmd_verify(int argc, char **argv);
int bank_cmd_export(int argc, char **argv);
int bank_cmd_import(int argc, char **argv);
int bank_cmd_merge(int argc, char **argv);
int bank_cmd_delete(int argc, char **argv);

#endif
