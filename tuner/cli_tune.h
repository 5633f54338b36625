/* Internals of `aoe tune` shared by its files (cli_tune*.c). */
#ifndef AOE_CLI_TUNE_H
#define AOE_CLI_TUNE_H

#include "core/config.h"
#include "store/bank.h"
#include "tuner/runner.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
    const char **jobs;
    int njobs;
    const char *strategy, *bank, *spool;
    size_t max_evals;  /* 0: the job's, else AOE_MAX_EVALS */
    double time_limit; /* 0: the job's, else AOE_TIME_LIMIT */
    double idle_exit;
    uint64_t seed;
    int seed_set, json, dry_run, auto_defines, help;
    int idle_priority, detach; /* --idle-priority, --detach (the shim's tuner) */
    const aoe_config *cfg;
    char tunables_dir[4096];
    aoe_bank *bank_handle;
} aoe_tune_cli;

int aoe_tune_files(aoe_tune_cli *c);
int aoe_tune_spool(aoe_tune_cli *c);

/* One finished job for the summary. */
typedef struct {
    const char *file;
    aoe_tune_result r;
    int will_retry; /* failed for now: the spool puts the job back for a later try */
} aoe_tune_row;

/* The table's header and one row (the table is printed row by row as jobs
 * finish, so a log shows progress). */
void aoe_tune_print_header(FILE *out);
void aoe_tune_print_row(FILE *out, const aoe_tune_row *row, int dry_run);
void aoe_tune_print_json(FILE *out, const aoe_tune_row *rows, size_t n, int dry_run);

#endif
