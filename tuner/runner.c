/* The parent side of tuning one job. The parent never touches the device:
 * it builds the space, drives the strategy and asks the worker; when the
 * worker dies (crash, hang) the variant is marked failed and a fresh worker
 * is started for the next one. */
#include "tuner/runner.h"
#include "core/log.h"
#include "tuner/cpu_wait.h"
#include "space/tunables.h"
#include "tuner/isolate.h"
#include "tuner/measure.h"
#include "tuner/run_plan.h"
#include "tuner/runner_worker.h"
#include "tuner/worker_memory.h"
#include "tuner/strategy.h"
#include "tuner/verify.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_RESTART_FAILURES 3
#define STARVED_PAUSE_S 0.25    /* the first pause of a starved tuner; doubles ... */
#define STARVED_PAUSE_MAX_S 4.0 /* ... up to this */

typedef struct {
    const aoe_job *job;
    const aoe_tune_options *o;
    aoe_tune_result *r;
    aoe_space *sp;
    aoe_tolerance tol;
    aoe_worker *w;
    double t0, deadline;
    aoe_run_plan plan; /* the protocol for the default's duration (run_plan.h) */
    int have_default;  /* the default was timed: the plan is fixed */
    double best_us;
    int restart_failures;
    uint8_t *prepared; /* per config: compile requested ahead */
    size_t nconfigs;
    int prepare_ahead; /* the whole space will be evaluated: compile ahead in parallel */
    int replay;        /* AOE_REPLAY_* bits every worker opens the job with */
    /* The executor's own candidates (library calls) instead of sp: measured
     * in this order, row 0 the default's configuration. */
    aoe_wcands *cands;
    int starved; /* waited for a CPU longer than the time limit: the job is put back */
} tctx;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The job's clock: wall time less what was lost to a starved CPU (the
 * discarded measurements and the pauses), so waiting for the machine costs
 * the search none of its time limit. Past the end once the job gave up. */
static double job_now(const tctx *c)
{
    return c->starved ? c->deadline + 1 : now_s() - c->r->waited_s;
}

static double job_clock(void *ctx)
{
    return job_now(ctx);
}

void aoe_tune_note_failure(aoe_tune_result *r, aoe_exec_status st, const char *reason)
{
    const char *cat = aoe_exec_status_name(st);
    r->failures++;
    for (unsigned i = 0; i < r->nreasons; i++)
        if (!strcmp(r->reasons[i].category, cat)) {
            r->reasons[i].count++;
            return;
        }
    if (r->nreasons == AOE_TUNE_MAX_REASONS) return;
    aoe_fail_reason *f = &r->reasons[r->nreasons++];
    f->status = st;
    snprintf(f->category, sizeof f->category, "%s", cat);
    snprintf(f->example, sizeof f->example, "%s", reason);
    f->count = 1;
}

/* Sends one request; a dead worker becomes a status (crash, timeout, ...)
 * and a reason. Returns rep->status. */
static aoe_exec_status ask(tctx *c, const aoe_wreq *q, const void *extra, size_t extralen,
                           aoe_wrep *rep, double timeout_s)
{
    memset(rep, 0, sizeof *rep);
    if (extralen) {
        if (aoe_worker_send(c->w, q, sizeof *q) || aoe_worker_send(c->w, extra, extralen)) {
            aoe_worker_call(c->w, NULL, 0, rep, sizeof *rep, 1, rep->reason, sizeof rep->reason);
            return rep->status = aoe_worker_failure(c->w);
        }
        q = NULL;
    }
    if (aoe_worker_call(c->w, q, q ? sizeof *q : 0, rep, sizeof *rep, timeout_s, rep->reason,
                        sizeof rep->reason)) {
        memset(&rep->timing, 0, sizeof rep->timing);
        rep->default_ran = 0;
        return rep->status = aoe_worker_failure(c->w);
    }
    if (rep->retire) { /* its device state is lost: the next call starts a fresh worker */
        AOE_DEBUG("the worker lost its device state (%s); replacing it", rep->reason);
        aoe_worker_stop(c->w);
        c->w = NULL;
    }
    return rep->status;
}

static void make_plan(tctx *c, double default_s)
{
    aoe_run_plan_make(default_s, c->o->variant_timeout_s, c->o->time_limit_s,
                      !c->o->time_limit_fixed, &c->plan);
    c->deadline = c->t0 + c->plan.time_limit_s;
}

/* A live worker with the device open and the reference established. The
 * worker answers OPEN first when the default's first run is done: until the
 * default was timed, the plan follows that run, and the rest of opening gets
 * the plan's watchdog (a fast kernel: what is left of 3 x AOE_VARIANT_TIMEOUT
 * + 10 s, as for the whole opening). */
static aoe_exec_status ensure_worker(tctx *c, aoe_wrep *rep)
{
    if (aoe_worker_alive(c->w)) return AOE_EXEC_OK;
    if (c->w) aoe_worker_stop(c->w);
    char err[256];
    memset(rep, 0, sizeof *rep);
    c->w = aoe_worker_start(aoe_runner_worker_main, (void *)c->job, err, sizeof err);
    if (!c->w) {
        snprintf(rep->reason, sizeof rep->reason, "runtime error: starting a worker: %s", err);
        return rep->status = AOE_EXEC_NO_WORKER;
    }
    aoe_wreq q = {.op = AOE_WOP_OPEN, .tol = c->tol, .replay = c->replay};
    if (c->have_default) q.default_s = c->plan.default_s;
    double first = 3 * c->o->variant_timeout_s + 10, t = now_s();
    aoe_wfirst f = {0};
    if (aoe_worker_call(c->w, &q, sizeof q, &f, sizeof f, first, rep->reason, sizeof rep->reason))
        return rep->status = aoe_worker_failure(c->w);
    if (!c->have_default && f.first_run_s > 0) make_plan(c, f.first_run_s);
    double rest = c->plan.slow ? c->plan.open_watchdog_s : first - (now_s() - t);
    return ask(c, NULL, NULL, 0, rep, rest > 0.001 ? rest : 0.001);
}

/* Asks for a timing (a variant, the default) until one is taken with the
 * worker's threads not starved (cpu_wait.h): a busy machine leaves an
 * idle-priority tuner a few percent of a CPU, and such times are inflated
 * and uneven. Between tries the tuner sleeps, STARVED_PAUSE_S doubling up to
 * STARVED_PAUSE_MAX_S; the time lost is off the job's clock. Once that time
 * exceeds the job's time limit the job gives up (AOE_WAIT_OR_PUT_BACK):
 * AOE_EXEC_STARVED, which the spool puts back for a later try, and nothing
 * is written to the bank; or, on its last try (AOE_WAIT_THEN_TIME), it stops
 * waiting and uses what it gets, so a machine that is never idle still has
 * its operators tuned. */
static aoe_exec_status ask_timed(tctx *c, const aoe_wreq *q, aoe_wrep *rep, double timeout_s)
{
    double pause = STARVED_PAUSE_S;
    for (;;) {
        double t = now_s();
        if (ask(c, q, NULL, 0, rep, timeout_s) || c->o->wait_for_cpu == AOE_WAIT_NEVER ||
            c->r->timed_starved || !aoe_cpu_starved(rep->timing.wait_share))
            return rep->status;
        if (c->r->waited_s == 0)
            AOE_INFO("%s: the tuner's threads waited for a CPU %.0f%% of a measurement (the "
                     "machine is busy): waiting to measure again",
                     c->job->kernel_name, 100 * rep->timing.wait_share);
        if (c->r->waited_s + (now_s() - t) + pause > c->plan.time_limit_s) {
            c->r->waited_s += now_s() - t;
            if (c->o->wait_for_cpu == AOE_WAIT_THEN_TIME) {
                c->r->timed_starved = 1;
                AOE_INFO("%s: no fair CPU for %.1f s: timing on what the machine leaves (the "
                         "job's last try)",
                         c->job->kernel_name, c->r->waited_s);
                return rep->status;
            }
            c->starved = 1;
            rep->status = AOE_EXEC_STARVED;
            snprintf(rep->reason, sizeof rep->reason,
                     "starved: the machine left the tuner too little CPU to time fairly (its "
                     "threads waited for a CPU %.0f%% of the last measurement; %.1f s lost); "
                     "not tuned, nothing written (AOE_WAIT_FOR_CPU=False times anyway)",
                     100 * rep->timing.wait_share, c->r->waited_s);
            snprintf(c->r->error, sizeof c->r->error, "%s", rep->reason); /* the job's verdict */
            return rep->status;
        }
        struct timespec ts = {(time_t)pause, (long)((pause - (double)(time_t)pause) * 1e9)};
        nanosleep(&ts, NULL);
        c->r->waited_s += now_s() - t;
        pause = pause * 2 < STARVED_PAUSE_MAX_S ? pause * 2 : STARVED_PAUSE_MAX_S;
        if (!aoe_worker_alive(c->w) && ensure_worker(c, rep)) return rep->status;
    }
}

/* Opens a fresh worker with the replay mode `replay`; AOE_EXEC_OK or why
 * not (rep->reason). */
static aoe_exec_status open_as(tctx *c, int replay, aoe_wrep *rep)
{
    if (c->w) aoe_worker_stop(c->w); /* a worker whose OPEN failed keeps no usable state */
    c->w = NULL;
    c->replay = replay;
    return ensure_worker(c, rep);
}

/* "args[3], args[4]" for the buffers and images whose contents were not
 * captured. */
static unsigned synthetic_args(const aoe_job *job, char *out, size_t len)
{
    unsigned n = 0;
    size_t at = 0;
    out[0] = '\0';
    for (uint32_t i = 0; i < job->nargs; i++) {
        const aoe_job_arg *a = &job->args[i];
        if (!aoe_job_arg_has_memory(a->kind) || a->data || !a->size) continue;
        if (at < len) at += (size_t)snprintf(out + at, len - at, "%sargs[%u]", n ? ", " : "", i);
        n++;
    }
    return n;
}

/* The worker died of a signal (its own fault, or killed from outside). */
static int crashed(aoe_exec_status st)
{
    return st == AOE_EXEC_CRASH || st == AOE_EXEC_KILLED;
}

/* Establishes the reference (the default policy's outputs). A captured job
 * replays exactly what the program ran; when the default fails anyway, two
 * fallbacks: buffers that were not captured get zeros instead of float32
 * values (synthetic indices or sizes crash kernels), and after a crash no
 * buffer is poisoned while finding the outputs (a kernel that reads a buffer
 * it also writes may index with it). Returns AOE_EXEC_OK, or the status (the
 * first attempt's, or a later one that was not the job's fault) with a
 * reason that says which replays were tried. */
static aoe_exec_status open_reference(tctx *c, aoe_wrep *rep)
{
    char synth[256], first[400], zeros[400] = "";
    unsigned nsynth = synthetic_args(c->job, synth, sizeof synth);
    aoe_exec_status st = open_as(c, 0, rep), why = st;
    if (!st) return AOE_EXEC_OK;
    snprintf(first, sizeof first, "%.399s", rep->reason);
    /* Only a failure of the default's runs depends on the data (not a missing
     * device or a build error). */
    int ran = crashed(st) || st == AOE_EXEC_TIMEOUT || rep->default_ran;
    int crash = crashed(st);
    if (!ran) return st;
    if (nsynth) {
        if (!(st = open_as(c, AOE_REPLAY_ZERO_SYNTH, rep))) return AOE_EXEC_OK;
        snprintf(zeros, sizeof zeros, "%.399s", rep->reason);
        crash = crashed(st);
        /* the job's status: the first attempt's, unless a later one was not its fault */
        if (aoe_exec_status_transient(st)) why = st;
    }
    if (crash && !(st = open_as(c, c->replay | AOE_REPLAY_NO_POISON, rep))) return AOE_EXEC_OK;
    if (aoe_exec_status_transient(st)) why = st;
    char last[400];
    snprintf(last, sizeof last, "%.399s", rep->reason);
    if (nsynth)
        snprintf(rep->reason, sizeof rep->reason,
                 "cannot be replayed on synthetic data: %s not captured (larger than "
                 "AOE_CAPTURE_LIMIT_MB); with float32 data: %.300s; with zeros: %.300s",
                 synth, first, crash ? last : zeros);
    else if (crash)
        snprintf(rep->reason, sizeof rep->reason, "%.500s (also without poisoning outputs: %.300s)",
                 first, last);
    else
        snprintf(rep->reason, sizeof rep->reason, "%s", first);
    return rep->status = why;
}

static void describe_replay(int replay, const aoe_job *job, aoe_tune_result *r)
{
    char synth[256];
    const aoe_exec_ops *ops = aoe_exec_for(job, NULL, 0);
    r->replay_synthetic = synthetic_args(job, synth, sizeof synth) != 0;
    const char *data = !r->replay_synthetic             ? "captured"
                       : replay & AOE_REPLAY_ZERO_SYNTH ? "synthetic zeros"
                       : ops && AOE_EXEC_V3(ops, fill)  ? "synthetic typed"
                                                        : "synthetic float32";
    snprintf(r->replay, sizeof r->replay, "%s%s", data,
             replay & AOE_REPLAY_NO_POISON ? ", outputs not poisoned" : "");
}

/* The policy of configuration row `config`: a candidate's, or the space's. */
static int config_policy(tctx *c, size_t config, aoe_policy *pol)
{
    if (c->cands) {
        if (config >= c->cands->n) return -1;
        *pol = c->cands->pols[config];
        return 0;
    }
    return aoe_space_policy(c->sp, c->job, config, pol);
}

static long default_config(const tctx *c)
{
    return c->cands ? 0 : aoe_space_default_config(c->sp);
}

static void prepare_from(tctx *c, size_t config)
{
    size_t chunk = (size_t)(c->o->parallel_compile > 1 ? 2 * c->o->parallel_compile : 0);
    if (!c->prepare_ahead || !chunk || c->prepared[config]) return;
    aoe_policy *p = calloc(chunk, sizeof *p);
    uint32_t n = 0;
    for (size_t k = config; k < c->nconfigs && n < chunk; k++) {
        if (c->prepared[k]) continue;
        c->prepared[k] = 1;
        if (!aoe_space_policy(c->sp, c->job, k, &p[n])) n++;
    }
    aoe_wrep rep;
    aoe_wreq q = {.op = AOE_WOP_PREPARE, .count = n, .parallel = c->o->parallel_compile};
    if (p && n) ask(c, &q, p, n * sizeof *p, &rep, c->o->variant_timeout_s * (double)n + 10);
    free(p);
}

static double eval(void *ctx, size_t config)
{
    tctx *c = ctx;
    aoe_wrep rep;
    aoe_policy pol;
    if (c->restart_failures >= MAX_RESTART_FAILURES || job_now(c) > c->deadline) return -1;
    /* A slow kernel's default is not run again for the search: its time from
     * opening stands (and sets the cutoff for the variants). */
    if (c->plan.slow && (long)config == default_config(c) && c->r->default_us > 0) {
        if (c->best_us <= 0 || c->r->default_us < c->best_us) c->best_us = c->r->default_us;
        return c->r->default_us;
    }
    if (config_policy(c, config, &pol)) {
        aoe_tune_note_failure(c->r, AOE_EXEC_REFUSED, "refused: no policy for this configuration");
        return -1;
    }
    if (ensure_worker(c, &rep)) {
        c->restart_failures++;
        char why[1100];
        snprintf(why, sizeof why, "runtime error: restarting the worker: %s", rep.reason);
        aoe_tune_note_failure(c->r, AOE_EXEC_RUNTIME_ERROR, why);
        return -1;
    }
    c->restart_failures = 0;
    prepare_from(c, config);
    if (!aoe_worker_alive(c->w) && ensure_worker(c, &rep)) return -1;
    aoe_wreq q = {.op = AOE_WOP_VARIANT, .tol = c->tol, .pol = pol};
    q.cutoff_us = c->best_us > 0 ? 1.5 * c->best_us : 0;
    q.default_s = c->plan.default_s;
    if (ask_timed(c, &q, &rep, c->plan.watchdog_s) == AOE_EXEC_STARVED)
        return -1; /* not the variant's fault; the job ends here */
    c->r->evaluations++;
    if (rep.status) {
        AOE_DEBUG("variant %zu failed: %s", config, rep.reason);
        aoe_tune_note_failure(c->r, rep.status, rep.reason);
        return -1;
    }
    double t = rep.timing.median_us > 0 ? rep.timing.median_us : 1e-3;
    AOE_DEBUG("variant %zu: %.1f us (%d runs%s)", config, t, rep.timing.runs,
              rep.timing.abandoned ? ", abandoned" : "");
    if (rep.timing.abandoned) c->r->abandoned++;
    if (!rep.timing.abandoned && (c->best_us <= 0 || t < c->best_us)) c->best_us = t;
    if (c->o->progress)
        c->o->progress(c->o->progress_ctx, c->r->evaluations, c->o->max_evals, c->best_us,
                       c->r->default_us);
    return t;
}

static void default_policy(const aoe_job *job, aoe_policy *p)
{
    uint64_t global[3], local[3];
    int has_local;
    memset(p, 0, sizeof *p);
    p->work_dim = job->work_dim;
    aoe_job_launch_sizes(job, global, local, &has_local); /* threads */
    for (uint32_t d = 0; d < job->work_dim && d < 3; d++) {
        p->global[d] = global[d];
        p->local[d] = has_local ? local[d] : 0;
    }
}

static void describe(const aoe_job *job, const aoe_policy *p, char *out, size_t len)
{
    uint64_t global[3], local[3];
    int has_local;
    aoe_job_launch_sizes(job, global, local, &has_local); /* threads */
    size_t n = (size_t)snprintf(out, len, "%s%s", job->kernel_name,
                                job->op == AOE_OP_LIBRARY_CALL ? "" : " global=");
    for (uint32_t d = 0; d < job->work_dim && d < 3 && n < len; d++)
        n += (size_t)snprintf(out + n, len - n, "%s%" PRIu64, d ? "x" : "", global[d]);
    if (n < len) n += (size_t)snprintf(out + n, len - n, " policy:");
    if (!p->n_params && n < len) n += (size_t)snprintf(out + n, len - n, " default");
    for (uint32_t i = 0; i < p->n_params && i < AOE_MAX_PARAMS && n < len; i++)
        n += (size_t)snprintf(out + n, len - n, " %s=%" PRId64, p->params[i].name,
                              p->params[i].value);
    if (n < len && p->local[0] && job->op != AOE_OP_LIBRARY_CALL) {
        n += (size_t)snprintf(out + n, len - n, " local=");
        for (uint32_t d = 0; d < p->work_dim && d < 3 && n < len; d++)
            n += (size_t)snprintf(out + n, len - n, "%s%" PRIu64, d ? "x" : "", p->local[d]);
    }
}

/* Measures the default (qd) or the best (qb) once for a confirmation round;
 * 0, or -1 when it failed (a failing best is a reason; a failing default is
 * not the best's fault). */
static int confirm_once(tctx *c, const aoe_wreq *q, aoe_timing *out)
{
    aoe_wrep rep;
    if (ensure_worker(c, &rep) || ask_timed(c, q, &rep, c->plan.watchdog_s)) {
        if (q->op == AOE_WOP_VARIANT && rep.status != AOE_EXEC_STARVED)
            aoe_tune_note_failure(c->r, rep.status, rep.reason);
        return -1;
    }
    *out = rep.timing;
    return 0;
}

/* Confirms the best against the default in paired rounds: default then best,
 * then best then default, ... (drift and load hit both alike), one ratio of
 * medians per round; aoe_paired_decide judges those ratios against their own
 * round-to-round noise. Rounds are added while undecided, up to
 * AOE_PAIRED_MAX_ROUNDS, while time is left: the search deadline, or a
 * quarter of the job's time limit after the confirmation began, whichever is
 * later. Still undecided: the default is kept. */
static void confirm(tctx *c, long best)
{
    aoe_tune_result *r = c->r;
    aoe_policy pol;
    if (c->starved || best < 0 || best == default_config(c) || config_policy(c, (size_t)best, &pol))
        return; /* nothing to confirm: the default stays, as measured on opening */
    aoe_wreq qd = {.op = AOE_WOP_DEFAULT, .final = 1, .tol = c->tol};
    aoe_wreq qb = {.op = AOE_WOP_VARIANT, .final = 1, .tol = c->tol, .pol = pol};
    qd.default_s = qb.default_s = c->plan.default_s;
    double b_us[AOE_PAIRED_MAX_ROUNDS], d_us[AOE_PAIRED_MAX_ROUNDS];
    aoe_timing fd = {0}, fb = {0}; /* each one's fastest round: load only ever adds time */
    aoe_paired_verdict v = AOE_PAIRED_UNDECIDED;
    aoe_paired_stats st = {0};
    double t0 = job_now(c), until = t0 + 0.25 * c->plan.time_limit_s;
    if (until < c->deadline) until = c->deadline;
    size_t n = 0;
    while (n < AOE_PAIRED_MAX_ROUNDS && v == AOE_PAIRED_UNDECIDED) {
        if (n >= AOE_PAIRED_MIN_ROUNDS && job_now(c) + (job_now(c) - t0) / (double)n > until) break;
        aoe_timing td, tb;
        int best_first = n % 2;
        if (best_first ? (confirm_once(c, &qb, &tb) || confirm_once(c, &qd, &td))
                       : (confirm_once(c, &qd, &td) || confirm_once(c, &qb, &tb)))
            break;
        d_us[n] = td.median_us, b_us[n] = tb.median_us;
        if (!fd.runs || td.median_us < fd.median_us) fd = td;
        if (!fb.runs || tb.median_us < fb.median_us) fb = tb;
        v = aoe_paired_decide(b_us, d_us, ++n, &st);
        AOE_DEBUG("confirm round %zu: default %.1f us, best (row %ld) %.1f us, ratio %.3f; median "
                  "%.3f in [%.3f, %.3f], faster in %zu: %s",
                  n, td.median_us, best, tb.median_us, tb.median_us / td.median_us, st.median_ratio,
                  st.lower, st.upper, st.faster,
                  v > 0   ? "accept"
                  : v < 0 ? "reject"
                          : "undecided");
    }
    if (!n || c->starved) return;
    r->default_us = r->best_us = fd.median_us;
    r->default_spread_us = r->best_spread_us = fd.spread_us;
    if (v == AOE_PAIRED_ACCEPT) {
        r->improved = 1;
        r->best = pol;
        r->best_us = fb.median_us;
        r->best_spread_us = fb.spread_us;
        /* With one slow round allowed the fastest rounds can disagree with the
         * decision: then the paired estimate, so best_us < default_us holds. */
        if (!(fb.median_us < AOE_PAIRED_MIN_GAIN * fd.median_us)) {
            r->best_us = fd.median_us * st.median_ratio;
            r->best_spread_us *= r->best_us / fb.median_us;
        }
    }
}

/* The default's timing from opening was taken with the worker starved:
 * measured again when it is not (ask_timed), and the plan remade when the
 * fair time is shorter (a starved launch looks slow). AOE_EXEC_OK, or why
 * not (rep->status, rep->reason). */
static aoe_exec_status fair_default(tctx *c, aoe_wrep *rep)
{
    aoe_wreq q = {.op = AOE_WOP_DEFAULT, .final = 1, .tol = c->tol};
    aoe_wrep again;
    q.default_s = c->plan.default_s;
    if (ask_timed(c, &q, &again, c->plan.watchdog_s)) {
        rep->status = again.status;
        snprintf(rep->reason, sizeof rep->reason, "%s%.1000s",
                 again.status == AOE_EXEC_STARVED ? "" : "the default policy: ", again.reason);
        return rep->status;
    }
    rep->timing = again.timing;
    if (again.timing.median_us * 1e-6 < rep->default_s) {
        rep->default_s = again.timing.median_us * 1e-6;
        make_plan(c, rep->default_s);
    }
    return AOE_EXEC_OK;
}

/* Keys across runs: the result of a launch with a NULL local size also
 * serves its family (other scalar values, docs/design.md) when its policy is
 * correct for them; an existing family record is kept, except that a
 * re-tuning (REPEAT_TUNE) may replace it by a better one. */
static void write_family(const aoe_job *job, const aoe_tune_options *o,
                         const aoe_tunable_kernel *decl, const aoe_record *rec, double margin)
{
    int declared = decl && decl->has_scalars;
    if (!aoe_job_has_family(job) || !aoe_family_policy_ok(&rec->policy, declared)) return;
    aoe_key fam = aoe_job_family_key(job, declared ? decl->scalars : 0);
    if (!fam.hi && !fam.lo) return;
    aoe_record old;
    int have = aoe_bank_get(o->bank, job->fingerprint, &fam, &old);
    if (have < 0 || (have == 1 && !job->repeat_tune)) return;
    aoe_record fr = *rec; /* says what it is in `aoe bank list` */
    snprintf(fr.summary, sizeof fr.summary, "family (%s): %.200s",
             declared ? "equal declared scalars" : "any scalar values", rec->summary);
    if (aoe_bank_put_if_better(o->bank, job->fingerprint, &fam, &fr, margin) == AOE_PUT_ERROR)
        AOE_WARN("the result of %s was not stored for its family", rec->kernel_name);
}

static void write_record(const aoe_job *job, const aoe_tune_options *o,
                         const aoe_tunable_kernel *decl, aoe_tune_result *r)
{
    aoe_record rec;
    memset(&rec, 0, sizeof rec);
    snprintf(rec.runtime, sizeof rec.runtime, "%s", job->runtime);
    snprintf(rec.kernel_name, sizeof rec.kernel_name, "%s", job->kernel_name);
    rec.policy = r->best;
    rec.default_us = r->default_us;
    rec.default_spread_us = r->default_spread_us;
    rec.tuned_us = r->best_us;
    rec.tuned_spread_us = r->best_spread_us;
    rec.evaluations = (uint32_t)r->evaluations;
    rec.tuning_seconds = r->seconds;
    snprintf(rec.strategy, sizeof rec.strategy, "%s", o->strategy);
    snprintf(rec.tuner_version, sizeof rec.tuner_version, "%s", AOE_VERSION);
    rec.timestamp = (int64_t)time(NULL);
    describe(job, &r->best, rec.summary, sizeof rec.summary);
    /* Replace an existing entry only when better by more than this run's noise. */
    double margin = r->best_us > 0 ? r->best_spread_us / r->best_us : 0;
    if (margin > 0.05) margin = 0.05;
    r->put = aoe_bank_put_if_better(o->bank, job->fingerprint, &job->key, &rec, margin);
    if (r->put == AOE_PUT_ERROR) {
        r->ok = 0;
        r->status = AOE_EXEC_IO_ERROR;
        snprintf(r->error, sizeof r->error, "writing the result to the bank failed");
        return;
    }
    write_family(job, o, decl, &rec, margin);
}

/* A library call: the executor's candidates (asked from the worker, which
 * has the library open), each measured in its order within the budget, the
 * best confirmed against the default. The kept policy is the default's own
 * configuration unless a candidate wins. */
static aoe_exec_status tune_candidates(tctx *c, const aoe_exec_ops *ops)
{
    aoe_tune_result *r = c->r;
    aoe_tolerance tol;
    int (*tolerance)(const aoe_job *, aoe_tolerance *) = AOE_EXEC_V3(ops, tolerance);
    if (tolerance && !tolerance(c->job, &tol)) c->tol = tol;
    c->cands = calloc(1, sizeof *c->cands);
    if (!c->cands) {
        snprintf(r->error, sizeof r->error, "out of memory");
        return AOE_EXEC_OUT_OF_MEMORY;
    }
    aoe_wreq q = {.op = AOE_WOP_CANDIDATES};
    aoe_wrep *rep = &c->cands->rep;
    if (aoe_worker_call(c->w, &q, sizeof q, c->cands, sizeof *c->cands,
                        c->o->variant_timeout_s + 10, rep->reason, sizeof rep->reason))
        rep->status = aoe_worker_failure(c->w);
    else if (!rep->status && (!c->cands->n || c->cands->n > AOE_EXEC_MAX_CANDIDATES))
        rep->status = AOE_EXEC_NOTHING_TO_TUNE,
        snprintf(rep->reason, sizeof rep->reason, "nothing to tune: no candidates");
    if (rep->status) {
        snprintf(r->error, sizeof r->error, "%s", rep->reason);
        return rep->status;
    }
    snprintf(r->space, sizeof r->space, "%.255s", c->cands->space);
    r->space_size = c->cands->n;
    r->best = c->cands->pols[0];
    long best = -1;
    double best_us = 0;
    for (size_t i = 0; i < c->cands->n && i < c->o->max_evals; i++) {
        double t = eval(c, i);
        if (t > 0 && (best < 0 || t < best_us)) best = (long)i, best_us = t;
    }
    confirm(c, best);
    return AOE_EXEC_OK;
}

int aoe_tune_job(const aoe_job *job, const aoe_tune_options *o, aoe_tune_result *r)
{
    double t0 = now_s();
    tctx c;
    aoe_wrep rep;
    memset(r, 0, sizeof *r);
    memset(&c, 0, sizeof c);
    r->put = -2;
    snprintf(r->kernel, sizeof r->kernel, "%s", job->kernel_name ? job->kernel_name : "?");
    aoe_key_to_hex(&job->key, r->key_hex);
    c.job = job, c.o = o, c.r = r;
    c.t0 = t0;
    make_plan(&c, 0); /* the fixed protocol until the default's first run tells */
    c.tol = (aoe_tolerance){AOE_TOLERANCE_REL_L2, AOE_TOLERANCE_MAX_ABS, false};

    r->status = AOE_EXEC_REFUSED;
    if (aoe_worker_memory_check(job, o->max_mb, r->error, sizeof r->error)) goto done;
    r->status = AOE_EXEC_UNSUPPORTED;
    if (!aoe_exec_for(job, r->error, sizeof r->error)) goto done;
    if ((r->status = open_reference(&c, &rep))) {
        snprintf(r->error, sizeof r->error, "%s", rep.reason);
        goto done;
    }
    describe_replay(c.replay, job, r);
    make_plan(&c, rep.default_s); /* the default's duration as the worker established it */
    if (o->wait_for_cpu && aoe_cpu_starved(rep.timing.wait_share) &&
        (r->status = fair_default(&c, &rep))) {
        snprintf(r->error, sizeof r->error, "%s", rep.reason);
        goto done;
    }
    c.have_default = 1;
    aoe_run_plan_describe(&c.plan, r->protocol, sizeof r->protocol);
    r->default_us = r->best_us = rep.timing.median_us;
    r->default_spread_us = r->best_spread_us = rep.timing.spread_us;
    default_policy(job, &r->best);
    if (o->dry_run) {
        r->ok = 1;
        r->status = AOE_EXEC_OK;
        goto done;
    }
    const aoe_exec_ops *ops = aoe_exec_for(job, NULL, 0);
    if (AOE_EXEC_V3(ops, candidates)) {
        r->status = tune_candidates(&c, ops);
        if (!r->status) r->ok = 1;
        goto starved;
    }
    char err[512];
    c.sp = aoe_space_build(job, &rep.limits, &o->space, err, sizeof err);
    if (!c.sp) {
        /* nothing to tune is the job's verdict, not a failure; a declaration
         * that cannot be used (or no memory for the space) is one */
        int nothing = aoe_space_nothing_to_tune(err);
        r->status = nothing                        ? AOE_EXEC_NOTHING_TO_TUNE
                    : strstr(err, "out of memory") ? AOE_EXEC_OUT_OF_MEMORY
                                                   : AOE_EXEC_REFUSED;
        snprintf(r->error, sizeof r->error, "%s%s", nothing ? "" : "search space: ", err);
        goto done;
    }
    c.tol = aoe_space_tolerance(c.sp);
    snprintf(r->space, sizeof r->space, "%s", aoe_space_describe(c.sp));
    const aoe_search_space *ss = aoe_space_configs(c.sp);
    r->space_size = ss->n_configs;
    c.nconfigs = ss->n_configs;
    c.prepared = calloc(c.nconfigs ? c.nconfigs : 1, 1);
    c.prepare_ahead = c.prepared && ss->n_configs <= o->max_evals;

    aoe_budget b = {.max_evals = o->max_evals, .seed = o->seed};
    b.start_config = aoe_space_default_config(c.sp);
    b.time_limit_s = c.deadline - job_now(&c);
    if (b.time_limit_s < 0.001) b.time_limit_s = 0.001;
    b.clock = job_clock; /* waiting for a CPU is off the search's clock */
    aoe_search_result res;
    if (aoe_strategy_run(o->strategy, ss, eval, &c, &b, &res)) {
        r->status = AOE_EXEC_UNSUPPORTED;
        snprintf(r->error, sizeof r->error, "unknown strategy '%s'", o->strategy);
        goto done;
    }
    confirm(&c, res.best_config);
    r->ok = 1;
    r->status = AOE_EXEC_OK;
starved:
    if (c.starved) { /* r->error says why; the spool puts the job back */
        r->ok = 0;
        r->status = AOE_EXEC_STARVED;
    }
done:
    r->seconds = now_s() - t0;
    if (r->ok && !o->dry_run && o->bank) write_record(job, o, aoe_space_declaration(c.sp), r);
    if (c.w) aoe_worker_stop(c.w);
    if (c.sp) aoe_space_free(c.sp);
    free(c.prepared);
    free(c.cands);
    return r->ok ? 0 : -1;
}
