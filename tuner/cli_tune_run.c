/* `aoe tune`: runs the jobs (files or spool) with the options of the command
 * line and the configuration, shows progress, collects the summary rows. */
#include "core/log.h"
#include "tuner/cli.h"
#include "tuner/cli_tune.h"
#include "tuner/spool.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
    aoe_tune_cli *c;
    aoe_tune_row *rows;
    size_t nrows, cap;
    int tty;
    const char *kernel;
    size_t last_line;   /* plain progress: evaluations at the last printed line */
    int header_done;    /* the table's header is out */
    aoe_bank *job_bank; /* the last spool job's own bank when not the tuner's (bank_for) */
    char job_bank_path[AOE_JOB_MAX_BANK + 1];
} run_ctx;

/* Same directory (device and inode): one LMDB environment must not be
 * opened twice in a process, whatever the spelling of its path. */
static int same_dir(const char *a, const char *b)
{
    struct stat sa, sb;
    if (!strcmp(a, b)) return 1;
    return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Where a job's result goes. A spool job names the bank of the program that
 * queued it: one tuner serves every program of a spool, and programs that
 * share AOE_WORK_PATH may each have their own TUNE_BANK_PATH. --bank, job
 * files (their settings are dropped when read) and jobs that name no bank
 * use the tuner's own. NULL with err when the job's bank cannot be opened
 * (the same checks as any bank's). */
static aoe_bank *bank_for(run_ctx *x, const aoe_job *job, char *err, size_t errlen)
{
    aoe_tune_cli *c = x->c;
    aoe_bank *own = c->bank_handle;
    if (!own || c->bank || !job->settings.present || !job->settings.bank) return own;
    if (same_dir(job->settings.bank, aoe_bank_path(own))) return own;
    if (x->job_bank && same_dir(job->settings.bank, x->job_bank_path)) return x->job_bank;
    if (x->job_bank) aoe_bank_close(x->job_bank);
    snprintf(x->job_bank_path, sizeof x->job_bank_path, "%s", job->settings.bank);
    char why[512];
    x->job_bank = aoe_bank_open(job->settings.bank, AOE_BANK_WRITE, why, sizeof why);
    if (!x->job_bank) snprintf(err, errlen, "the job's bank: %s", why);
    return x->job_bank;
}

static void progress(void *ctx, size_t done, size_t total, double best_us, double default_us)
{
    run_ctx *x = ctx;
    if (x->tty) {
        int width = 30, fill = total ? (int)((double)width * (double)done / (double)total) : 0;
        if (fill > width) fill = width;
        fprintf(stderr, "\r%-20.20s [%.*s%*s] %zu/%zu  best %.1f us (default %.1f us) ", x->kernel,
                fill, "##############################", width - fill, "", done, total, best_us,
                default_us);
        fflush(stderr);
    } else if (!x->c->json && (done == total || done >= x->last_line + (total + 9) / 10)) {
        fprintf(stderr, "aoe tune: %s: %zu/%zu variants, best %.1f us (default %.1f us)\n",
                x->kernel, done, total, best_us, default_us);
        x->last_line = done;
    }
}

/* attempt: the spool's try of this job; a job file named on the command line
 * is tried once (AOE_SPOOL_MAX_ATTEMPTS: its last). */
static void options_for(run_ctx *x, const aoe_job *job, unsigned attempt, aoe_bank *bank,
                        aoe_tune_options *o)
{
    const aoe_tune_cli *c = x->c;
    const aoe_config *cfg = c->cfg;
    memset(o, 0, sizeof *o);
    /* A spool job's own program's settings (the tuner may have been started
     * by another program); a job file's are dropped when read (the caller's). */
    const aoe_job_settings *js = job->settings.present ? &job->settings : NULL;
    o->strategy = c->strategy;
    o->max_evals = c->max_evals          ? c->max_evals
                   : js && js->max_evals ? js->max_evals
                   : job->max_evals      ? job->max_evals
                                         : (size_t)cfg->num[AOE_CFG_MAX_EVALS];
    o->time_limit_s = c->time_limit                ? c->time_limit
                      : js && js->time_limit_s > 0 ? js->time_limit_s
                      : job->time_limit_s > 0      ? job->time_limit_s
                                                   : (double)cfg->num[AOE_CFG_TIME_LIMIT];
    o->time_limit_fixed = c->time_limit > 0; /* else scaled for a slow kernel (run_plan.h) */
    o->seed = c->seed_set ? c->seed : 1;
    o->space.tunables_dir = c->tunables_dir[0] ? c->tunables_dir : NULL;
    const char *tunables = js ? js->tunables : cfg->text[AOE_CFG_TUNABLES];
    o->space.tunables_extra = tunables && tunables[0] ? tunables : NULL;
    o->space.auto_defines =
        c->auto_defines || (js ? js->auto_defines : cfg->num[AOE_CFG_AUTO_DEFINES]);
    o->parallel_compile = (int)cfg->num[AOE_CFG_PARALLEL_COMPILE];
    o->variant_timeout_s = (double)cfg->num[AOE_CFG_VARIANT_TIMEOUT];
    o->dry_run = c->dry_run;
    o->max_mb = cfg->num[AOE_CFG_TUNER_MAX_MB];
    o->wait_for_cpu = !cfg->num[AOE_CFG_WAIT_FOR_CPU]    ? AOE_WAIT_NEVER
                      : attempt < AOE_SPOOL_MAX_ATTEMPTS ? AOE_WAIT_OR_PUT_BACK
                                                         : AOE_WAIT_THEN_TIME;
    o->bank = bank;
    o->progress = progress;
    o->progress_ctx = x;
}

static aoe_tune_row *add_row(run_ctx *x, const char *file)
{
    if (x->nrows == x->cap) {
        size_t cap = x->cap ? 2 * x->cap : 8;
        aoe_tune_row *n = realloc(x->rows, cap * sizeof *n);
        if (!n) return NULL;
        x->rows = n, x->cap = cap;
    }
    aoe_tune_row *row = &x->rows[x->nrows++];
    memset(row, 0, sizeof *row);
    row->file = strdup(file);
    return row;
}

/* Each job's summary line as soon as it is done (flushed: the background
 * tuner's stdout is a log file someone may be following). */
static void print_row(run_ctx *x, const aoe_tune_row *row)
{
    if (x->c->json) return;
    if (!x->header_done) aoe_tune_print_header(stdout);
    x->header_done = 1;
    aoe_tune_print_row(stdout, row, x->c->dry_run);
    fflush(stdout);
}

static aoe_exec_status tune_one(void *ctx, const char *path, const aoe_job *job, unsigned attempt,
                                char *err, size_t errlen)
{
    run_ctx *x = ctx;
    aoe_tune_options o;
    aoe_tune_row *row = add_row(x, path);
    if (!row) {
        snprintf(err, errlen, "out of memory");
        return AOE_EXEC_OUT_OF_MEMORY;
    }
    aoe_bank *bank = bank_for(x, job, err, errlen);
    if (!bank && x->c->bank_handle) { /* the job's bank is refused or unwritable */
        row->r.status = AOE_EXEC_IO_ERROR;
        snprintf(row->r.error, sizeof row->r.error, "%s", err);
        snprintf(row->r.kernel, sizeof row->r.kernel, "%s", job->kernel_name);
        row->r.put = -2;
        row->will_retry = attempt < AOE_SPOOL_MAX_ATTEMPTS;
        if (!x->c->json) fprintf(stderr, "aoe tune: %s: %s\n", path, err);
        print_row(x, row);
        return AOE_EXEC_IO_ERROR;
    }
    options_for(x, job, attempt, bank, &o);
    x->kernel = job->kernel_name;
    x->last_line = 0;
    aoe_exec_status st = AOE_EXEC_OK;
    if (aoe_tune_job(job, &o, &row->r)) st = row->r.status ? row->r.status : AOE_EXEC_RUNTIME_ERROR;
    if (x->tty) fprintf(stderr, "\n");
    if (st) {
        /* the spool's own rule (spool.c failed()): a transient failure before the last try */
        row->will_retry = aoe_spool_transient(st) && attempt < AOE_SPOOL_MAX_ATTEMPTS;
        snprintf(err, errlen, "%s", row->r.error);
        if (!x->c->json) fprintf(stderr, "aoe tune: %s: %s\n", path, row->r.error);
    } else if (!x->c->json && row->r.replay_synthetic) {
        fprintf(stderr, "aoe tune: %s: replayed with %s\n", path, row->r.replay);
    }
    if (!x->c->json && row->r.protocol[0])
        fprintf(stderr, "aoe tune: %s: %s\n", path, row->r.protocol);
    if (!x->c->json && row->r.waited_s > 0 && !st)
        fprintf(stderr, "aoe tune: %s: waited %.1f s for a CPU (the machine was busy); %s\n", path,
                row->r.waited_s,
                row->r.timed_starved ? "then timed on what it left (the job's last try)"
                                     : "the timings taken starved were measured again");
    print_row(x, row);
    return st;
}

static int known(void *ctx, const aoe_job *job)
{
    run_ctx *x = ctx;
    aoe_record rec;
    char err[600];
    aoe_bank *bank = bank_for(x, job, err, sizeof err);
    return bank && aoe_bank_get(bank, job->fingerprint, &job->key, &rec) == 1;
}

static int finish(run_ctx *x, int rc)
{
    if (x->c->json) aoe_tune_print_json(stdout, x->rows, x->nrows, x->c->dry_run);
    for (size_t i = 0; i < x->nrows; i++) {
        const aoe_tune_result *r = &x->rows[i].r;
        if (!r->ok && r->status != AOE_EXEC_NOTHING_TO_TUNE) rc = AOE_EXIT_FAIL;
        free((char *)x->rows[i].file);
    }
    free(x->rows);
    if (x->job_bank) aoe_bank_close(x->job_bank);
    x->job_bank = NULL;
    return rc;
}

int aoe_tune_files(aoe_tune_cli *c)
{
    run_ctx x = {.c = c, .tty = isatty(STDERR_FILENO)};
    int rc = AOE_EXIT_OK;
    for (int i = 0; i < c->njobs; i++) {
        aoe_job job;
        char err[1024];
        memset(&job, 0, sizeof job);
        if (aoe_job_read(c->jobs[i], &job, err, sizeof err)) {
            fprintf(stderr, "aoe tune: %s: %s\n", c->jobs[i], err);
            aoe_tune_row *row = add_row(&x, c->jobs[i]);
            if (row) {
                snprintf(row->r.error, sizeof row->r.error, "unreadable job: %.900s", err);
                snprintf(row->r.kernel, sizeof row->r.kernel, "?");
                row->r.put = -2;
                print_row(&x, row);
            }
            rc = AOE_EXIT_FAIL;
            continue;
        }
        job.settings.present = 0; /* a job file is tuned with the caller's own settings */
        tune_one(&x, c->jobs[i], &job, AOE_SPOOL_MAX_ATTEMPTS, err, sizeof err);
        aoe_job_free(&job);
    }
    return finish(&x, rc);
}

/* A job queued after the tuner's last look and before it released the lock
 * finds no tuner to start (the shim only starts one when the lock is free):
 * the tuner looks once more after releasing it. */
static int job_waiting(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    struct dirent *e;
    int found = 0;
    struct stat st;
    while (!found && (e = readdir(d))) {
        /* only what a tuner would claim: our own regular files */
        found = strlen(e->d_name) == 36 && !strcmp(e->d_name + 32, ".job") &&
                !fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) && S_ISREG(st.st_mode) &&
                st.st_uid == geteuid() && !(st.st_mode & 022);
    }
    closedir(d);
    return found;
}

int aoe_tune_spool(aoe_tune_cli *c)
{
    run_ctx x = {.c = c, .tty = isatty(STDERR_FILENO)};
    aoe_spool_stats st, sum = {0};
    char err[512];
    int idle_rounds = 0; /* bounded: a job no tuner claims must not keep us */
    do {
        if (aoe_spool_run(c->spool, c->idle_exit, tune_one, known, &x, &st, err, sizeof err)) {
            fprintf(stderr, "aoe tune: %s\n", err);
            finish(&x, AOE_EXIT_FAIL);
            return AOE_EXIT_FAIL;
        }
        sum.tuned += st.tuned, sum.failed += st.failed, sum.skipped += st.skipped;
        sum.nothing += st.nothing;
        sum.retried += st.retried;
        idle_rounds = st.tuned + st.failed + st.skipped + st.nothing ? 0 : idle_rounds + 1;
    } while (!st.busy && idle_rounds < 3 && job_waiting(c->spool));
    if (st.busy && !sum.tuned && !sum.failed && !sum.skipped && !sum.nothing) {
        /* another tuner owns this spool: silently done */
        free(x.rows);
        if (x.job_bank) aoe_bank_close(x.job_bank);
        return AOE_EXIT_OK;
    }
    if (!c->json)
        fprintf(stderr,
                "aoe tune: spool %s: %u tuned, %u failed, %u nothing to tune, %u to retry, %u "
                "skipped (already in the bank)\n",
                c->spool, sum.tuned, sum.failed, sum.nothing, sum.retried, sum.skipped);
    return finish(&x, sum.failed ? AOE_EXIT_FAIL : AOE_EXIT_OK);
}
