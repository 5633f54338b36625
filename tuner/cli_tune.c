/* `aoe tune JOB... | --spool DIR [--idle-exit S] | --simulate FILE`: tunes
 * job files (or a spool of them) and writes the results to the bank. */
#include "core/layout.h"
#include "core/log.h"
#include "store/bank.h"
#include "tuner/cli.h"
#include "tuner/cli_tune.h"
#include "tuner/priority.h"
#include "tuner/runner.h"
#include "tuner/spool.h"
#include "jobs/spool_protocol.h"
#include "tuner/strategy.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *out)
{
    fprintf(out,
            "usage: aoe tune [OPTIONS] JOB...\n"
            "       aoe tune [OPTIONS] --spool DIR [--idle-exit SECONDS]\n"
            "       aoe tune --simulate FILE.json.gz [--strategy S|all] [--max-evals N]\n"
            "                [--runs R] [--seed K] [--json]   (see aoe tune --simulate --help)\n"
            "\n"
            "Tunes each job file (or every job in the spool DIR) and writes the best\n"
            "verified policy to the knowledge bank when it beats the default by more\n"
            "than the measured noise (an existing entry is replaced only by a better one).\n"
            "\n"
            "  --strategy S      search strategy (default AOE_STRATEGY: auto)\n"
            "  --max-evals N     variants to measure per job at most (default: the job's,\n"
            "                    else AOE_MAX_EVALS)\n"
            "  --time-limit S    seconds of search per job (default: the job's, else\n"
            "                    AOE_TIME_LIMIT; for a kernel taking a second or more,\n"
            "                    max(that, 60 x its time), the 60 x at most 1800 s)\n"
            "  --seed K          strategy seed (default 1)\n"
            "  --auto-defines    also tune #ifndef/#define defaults (AOE_AUTO_DEFINES)\n"
            "  --dry-run         measure the default policy only; write nothing\n"
            "  --bank PATH       knowledge bank directory (default TUNE_BANK_PATH; with\n"
            "                    --spool, each job's own program's bank)\n"
            "  --json            machine-readable results on stdout\n"
            "  --spool DIR       tune every <key>.job in DIR (one tuner per DIR), each\n"
            "                    with its program's settings: bank, AOE_TUNABLES,\n"
            "                    AOE_AUTO_DEFINES, its GPU (docs/formats.md)\n"
            "  --idle-exit S     with --spool: exit after S seconds without a new job\n"
            "                    (default 0: as soon as the spool is empty)\n"
            "  --idle-priority   run at the lowest CPU and I/O priority (SCHED_IDLE, idle\n"
            "                    I/O class), as the background tuner does\n"
            "  --detach          fork into the background at once (exit status 0), keeping\n"
            "                    no inherited descriptor but 0-2\n"
            "\n"
            "Exit status: 0 every job tuned or had nothing to tune, 1 a job failed, 2 usage\n"
            "error.\n");
}

static int parse_num(const char *flag, const char *v, double lo, double hi, double *out)
{
    char *end = NULL;
    errno = 0;
    double d = v ? strtod(v, &end) : 0;
    if (!v || !*v || *end || errno || !(d >= lo && d <= hi)) {
        fprintf(stderr, "aoe tune: %s expects a number in %g..%g, got '%s'\n", flag, lo, hi,
                v ? v : "");
        return -1;
    }
    *out = d;
    return 0;
}

static int parse_args(int argc, char **argv, aoe_tune_cli *c)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        double d;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            c->help = 1;
        } else if (!strcmp(a, "--json")) {
            c->json = 1;
        } else if (!strcmp(a, "--dry-run")) {
            c->dry_run = 1;
        } else if (!strcmp(a, "--idle-priority")) {
            c->idle_priority = 1;
        } else if (!strcmp(a, "--detach")) {
            c->detach = 1;
        } else if (!strcmp(a, "--auto-defines")) {
            c->auto_defines = 1;
        } else if (!strcmp(a, "--strategy") || !strcmp(a, "--bank") || !strcmp(a, "--spool")) {
            if (!v || !*v) {
                fprintf(stderr, "aoe tune: %s expects a value\n", a);
                return -1;
            }
            if (!strcmp(a, "--strategy")) c->strategy = v;
            if (!strcmp(a, "--bank")) c->bank = v;
            if (!strcmp(a, "--spool")) c->spool = v;
            i++;
        } else if (!strcmp(a, "--max-evals")) {
            if (parse_num(a, v, 1, 1e6, &d) || d != (double)(long)d) return -1;
            c->max_evals = (size_t)d, i++;
        } else if (!strcmp(a, "--time-limit")) {
            if (parse_num(a, v, 0.001, 86400 * 30, &d)) return -1;
            c->time_limit = d, i++;
        } else if (!strcmp(a, "--idle-exit")) {
            if (parse_num(a, v, 0, 86400 * 30, &d)) return -1;
            c->idle_exit = d, i++;
        } else if (!strcmp(a, "--seed")) {
            if (parse_num(a, v, 0, 1.8e19, &d)) return -1;
            c->seed = (uint64_t)d, c->seed_set = 1, i++;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "aoe tune: unknown option '%s' (see aoe tune --help)\n", a);
            return -1;
        } else {
            c->jobs[c->njobs++] = a;
        }
    }
    return 0;
}

int aoe_cmd_tune(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--simulate")) return aoe_simulate_main(argc, argv);
    aoe_tune_cli c;
    memset(&c, 0, sizeof c);
    c.jobs = calloc((size_t)argc, sizeof *c.jobs);
    if (!c.jobs) {
        fprintf(stderr, "aoe tune: out of memory\n");
        return AOE_EXIT_FAIL;
    }
    int rc = AOE_EXIT_USAGE;
    if (parse_args(argc, argv, &c)) goto out;
    if (c.help) {
        usage(stdout);
        rc = AOE_EXIT_OK;
        goto out;
    }
    if (!c.spool == !c.njobs) {
        fprintf(stderr, "aoe tune: give job files or --spool DIR (see aoe tune --help)\n");
        goto out;
    }
    rc = AOE_EXIT_FAIL;
    if (c.detach && aoe_detach()) {
        fprintf(stderr, "aoe tune: cannot fork into the background: %s\n", strerror(errno));
        goto out;
    }
    if (c.idle_priority) {
        char perr[256];
        if (aoe_lowest_priority(c.detach, perr, sizeof perr))
            fprintf(stderr, "aoe tune: lowest priority not fully set: %s\n", perr);
    }
    aoe_config cfg;
    if (aoe_cli_config(&cfg)) goto out;
    if (!c.strategy) c.strategy = cfg.text[AOE_CFG_STRATEGY];
    int known = 0;
    for (const char *const *n = aoe_strategy_names; *n; n++) known |= !strcmp(*n, c.strategy);
    if (!known) {
        fprintf(stderr, "aoe tune: unknown strategy '%s'\n", c.strategy);
        rc = AOE_EXIT_USAGE;
        goto out;
    }
    c.cfg = &cfg;
    if (c.spool) { /* one clear reason when the spool is not ours alone */
        char serr[600];
        if (aoe_spool_mkdir_err(c.spool, serr, sizeof serr)) {
            fprintf(stderr, "aoe tune: %s\n", serr);
            goto out;
        }
    }
    aoe_cli_find_tunables(c.tunables_dir, sizeof c.tunables_dir);
    if (!c.dry_run) {
        char path[4096], err[512];
        if (c.bank)
            snprintf(path, sizeof path, "%s", c.bank);
        else if (aoe_config_bank_path(&cfg, path, sizeof path)) {
            fprintf(stderr, "aoe tune: no bank path: set TUNE_BANK_PATH or HOME\n");
            goto out;
        }
        /* AOE_BANK_WRITE: a bank we cannot write fails now, not after the
         * whole tuning budget was spent on results that cannot be saved. */
        c.bank_handle = aoe_bank_open(path, AOE_BANK_WRITE, err, sizeof err);
        if (!c.bank_handle) {
            fprintf(stderr, "aoe tune: %s%s\n", err,
                    errno == EACCES ? "; nothing would be saved (--dry-run measures "
                                      "without saving)"
                                    : "");
            goto out;
        }
    }
    rc = c.spool ? aoe_tune_spool(&c) : aoe_tune_files(&c);
out:
    if (c.bank_handle) aoe_bank_close(c.bank_handle);
    free(c.jobs);
    return rc;
}
