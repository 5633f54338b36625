/* The worker side of tuning: everything that touches the device runs here,
 * in a child process the tuner can lose without harm. */
#include "tuner/runner_worker.h"
#include "tuner/isolate.h"
#include "tuner/run_plan.h"
#include "tuner/verify_status.h"
#include "core/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const aoe_job *job;
    aoe_job zero_job; /* the job with zero-filled synthetic buffers (AOE_REPLAY_ZERO_SYNTH) */
    int replay;       /* AOE_REPLAY_* bits of the OPEN request */
    const aoe_exec_ops *ops;
    aoe_protocol *ex;
    aoe_reference ref;
    int have_ref;
    aoe_tolerance tol;
    uint8_t **cap;           /* capture target of the current reference run */
    const uint8_t *cap_only; /* NULL: capture every buffer; else only those set */
    uint64_t cap_oob;
    int fd;         /* the parent's socket (OPEN's first answer) */
    int first_sent; /* OPEN: aoe_wfirst sent */
    double first_s; /* OPEN: the default's first run (wall time of its launch) */
    double min_s;   /* OPEN: the shortest of the default's reference runs */
    char reason[1024];
} wstate;

static const aoe_measure_opts verify_only = {1, 0, 0, 0, 0, 0, 0};

/* How a variant (or, final, a confirmation round) is measured: the run plan
 * of the default's duration the parent established (run_plan.h). */
static aoe_measure_opts timing_opts(int final, double cutoff_us, double default_s)
{
    aoe_run_plan plan;
    aoe_run_plan_make(default_s, 0, 0, 0, &plan);
    aoe_measure_opts o = plan.search;
    o.cutoff_us = cutoff_us;
    return final ? plan.final : o;
}

/* OPEN's first answer: the default's first run is done (or failed: < 0). */
static void send_first(wstate *s, double first_run_s)
{
    if (s->first_sent) return;
    aoe_wfirst f = {.first_run_s = first_run_s};
    s->first_sent = 1;
    aoe_write_full(s->fd, &f, sizeof f);
}

static aoe_exec_status capture(void *ctx, const aoe_outputs *outs)
{
    wstate *s = ctx;
    for (uint32_t i = 0; i < outs->nargs; i++) {
        free(s->cap[i]);
        s->cap[i] = NULL;
        if (!outs->data[i] || (s->cap_only && !s->cap_only[i])) continue;
        s->cap[i] = malloc(outs->size[i]);
        if (!s->cap[i]) {
            snprintf(s->reason, sizeof s->reason, "out of memory: copying the reference");
            return AOE_EXEC_OUT_OF_MEMORY;
        }
        memcpy(s->cap[i], outs->data[i], outs->size[i]);
    }
    s->cap_oob = outs->oob_bytes;
    return AOE_EXEC_OK;
}

static aoe_exec_status verify(void *ctx, const aoe_outputs *outs)
{
    wstate *s = ctx;
    aoe_exec_status st = aoe_verify_run(&s->ref, outs, &s->tol, s->reason, sizeof s->reason);
    int (*check)(const aoe_job *, uint32_t, const uint8_t *, const uint8_t *, uint64_t, char *,
                 size_t) = AOE_EXEC_V3(s->ops, check);
    for (uint32_t i = 0; !st && check && i < outs->nargs; i++)
        if (s->ref.ref[i] && outs->data[i] &&
            check(s->job, i, s->ref.ref[i], outs->data[i], s->ref.size[i], s->reason,
                  sizeof s->reason))
            st = AOE_EXEC_WRONG_RESULT;
    return st;
}

/* Verified, and kept in s->cap for the second run (verify_same). */
static aoe_exec_status verify_keep(void *ctx, const aoe_outputs *outs)
{
    aoe_exec_status st = verify(ctx, outs);
    return st ? st : capture(ctx, outs);
}

/* Verified, and bit for bit what the run before gave (s->cap). */
static aoe_exec_status verify_same(void *ctx, const aoe_outputs *outs)
{
    wstate *s = ctx;
    aoe_exec_status st = verify(ctx, outs);
    for (uint32_t i = 0; !st && i < outs->nargs; i++)
        if (s->cap[i] && outs->data[i] && memcmp(s->cap[i], outs->data[i], outs->size[i])) {
            snprintf(s->reason, sizeof s->reason,
                     "wrong result: args[%u]: two runs differ (the algorithm is not "
                     "deterministic)",
                     i);
            st = AOE_EXEC_WRONG_RESULT;
        }
    return st;
}

static void free_copies(uint8_t **c, uint32_t n)
{
    for (uint32_t i = 0; c && i < n; i++) free(c[i]);
    free(c);
}

/* Runs the default once with buffers `w` poisoned by `poison`, into *copies. */
static aoe_exec_status reference_run(wstate *s, const uint8_t *w, uint8_t poison, uint8_t ***copies,
                                     char *err, size_t errlen)
{
    uint32_t n = s->job->nargs;
    aoe_timing t;
    s->cap = calloc(n ? n : 1, sizeof *s->cap);
    if (!s->cap) {
        snprintf(err, errlen, "out of memory");
        return AOE_EXEC_OUT_OF_MEMORY;
    }
    /* A poisoned run is compared only on the poisoned buffers: copying the
     * others would double the worker's memory for nothing. */
    s->cap_only = w;
    aoe_protocol_set_poison(s->ex, w, poison);
    s->reason[0] = '\0';
    aoe_exec_status rc =
        aoe_protocol_measure(s->ex, NULL, &verify_only, capture, s, &t, err, errlen);
    if (rc && s->reason[0]) snprintf(err, errlen, "%s", s->reason);
    *copies = s->cap;
    s->cap = NULL;
    s->cap_only = NULL;
    if (!rc && !w) s->first_s = t.first_run_s;
    if (!rc && (s->min_s <= 0 || t.first_run_s < s->min_s)) s->min_s = t.first_run_s;
    return rc;
}

/* Whether buffer i (after the default's plain run: `after`) may be poisoned
 * to find out if it is a pure output. Never a buffer the kernel may read as
 * it was captured: one the program declared read-only, or one the default
 * left bit-identical (an input such as a size or an index table; poisoning
 * it would feed the kernel values the program never gave it). */
static int may_poison(wstate *s, uint32_t i, const uint8_t *after)
{
    const uint8_t *before = aoe_protocol_input(s->ex, i);
    if (s->replay & AOE_REPLAY_NO_POISON) return 0;
    if (aoe_protocol_read_only(s->ex, i)) return 0;
    return !before || memcmp(before, after, s->ref.size[i]) != 0;
}

/* Finds the pure outputs (buffers the default writes without reading them)
 * and their written bytes: see aoe_verify_classify. Poisoning one buffer can
 * change what the kernel writes elsewhere, so repeat until the set is stable. */
static aoe_exec_status build_reference(wstate *s, char *err, size_t errlen)
{
    const aoe_job *job = s->job;
    uint32_t n = job->nargs;
    uint8_t **a = NULL, **b = NULL, **c = NULL, *w = calloc(n ? n : 1, 1);
    aoe_exec_status rc = AOE_EXEC_OUT_OF_MEMORY;
    int stable = 0;
    snprintf(err, errlen, "out of memory");
    if (!w || aoe_reference_init(&s->ref, n)) goto out;
    aoe_reference_types_from_job(&s->ref, job); /* typed where the capture knew the types */
    for (uint32_t i = 0; i < n; i++) { /* else where the executor's runtime declares them */
        aoe_elem_type e = aoe_protocol_elem(s->ex, i);
        if (s->ref.elem[i] == AOE_VERIFY_UNTYPED && e != AOE_ELEM_BYTES)
            s->ref.elem[i] = (uint8_t)e;
        if (s->ref.elem[i] != AOE_VERIFY_UNTYPED)
            AOE_DEBUG("args[%u] verified as %s", i, aoe_elem_name((aoe_elem_type)s->ref.elem[i]));
    }
    if ((rc = reference_run(s, NULL, 0, &a, err, errlen))) goto out;
    send_first(s, s->first_s); /* the parent scales its watchdog for the rest */
    s->ref.oob_bytes = s->cap_oob;
    int candidates = 0;
    for (uint32_t i = 0; i < n; i++) {
        s->ref.size[i] = a[i] ? job->args[i].size : 0;
        if (a[i] && !s->ref.size[i]) s->ref.size[i] = 1;
        w[i] = a[i] && may_poison(s, i, a[i]);
        candidates += w[i];
    }
    stable = !candidates; /* nothing to poison: every buffer is restored and compared */
    /* Buffers the kernel never writes are inputs: drop them first (their
     * poison may have changed other outputs), then the ones read in place. */
    for (int iter = 0; iter < 4 && !stable; iter++) {
        free_copies(b, n), free_copies(c, n);
        b = c = NULL;
        if ((rc = reference_run(s, w, AOE_POISON_1, &b, err, errlen))) goto out;
        if ((rc = reference_run(s, w, AOE_POISON_2, &c, err, errlen))) goto out;
        rc = AOE_EXEC_OUT_OF_MEMORY;
        snprintf(err, errlen, "out of memory");
        uint8_t pure[n ? n : 1], input[n ? n : 1];
        int inputs = 0, impure = 0;
        for (uint32_t i = 0; i < n; i++) {
            pure[i] = input[i] = 0;
            if (!w[i]) continue;
            free(s->ref.written[i]);
            s->ref.written[i] = malloc(s->ref.size[i]);
            if (!s->ref.written[i]) goto out;
            pure[i] =
                (uint8_t)aoe_verify_classify(a[i], b[i], c[i], s->ref.size[i], s->ref.written[i]);
            uint64_t nw = 0;
            for (uint64_t k = 0; k < s->ref.size[i]; k++) nw += s->ref.written[i][k];
            input[i] = nw == 0;
            inputs += input[i];
            impure += !pure[i] && !input[i];
        }
        for (uint32_t i = 0; i < n; i++)
            if (w[i] && (inputs ? input[i] : !pure[i])) w[i] = 0;
        stable = !inputs && !impure;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (!a[i]) continue;
        s->ref.poisoned[i] = stable && w[i];
        s->ref.ref[i] = s->ref.poisoned[i] ? b[i] : a[i];
        if (s->ref.poisoned[i])
            b[i] = NULL;
        else
            a[i] = NULL;
    }
    if (!stable) memset(w, 0, n);
    aoe_protocol_set_poison(s->ex, w, AOE_POISON_1);
    s->have_ref = 1;
    rc = AOE_EXEC_OK;
out:
    free_copies(a, n), free_copies(b, n), free_copies(c, n);
    free(w);
    return rc;
}

/* The job with every synthetic buffer given zero contents (a buffer of
 * indices or sizes filled with float32 values sends the kernel out of
 * bounds; zeros are the safest guess). */
static int zero_synthetic(wstate *s)
{
    const aoe_job *job = s->job;
    aoe_job_arg *args = calloc(job->nargs ? job->nargs : 1, sizeof *args);
    if (!args) return -1;
    s->zero_job = *job;
    s->zero_job.args = args;
    s->job = &s->zero_job;
    for (uint32_t i = 0; i < job->nargs; i++) {
        args[i] = job->args[i];
        if (!aoe_job_arg_has_memory(args[i].kind) || args[i].data || !args[i].size) continue;
        args[i].data = calloc(args[i].size, 1); /* pages stay unmapped until copied */
        if (!args[i].data) return -1;
    }
    return 0;
}

static void free_zero_job(wstate *s, const aoe_job *orig)
{
    if (s->job != &s->zero_job) return;
    for (uint32_t i = 0; i < s->zero_job.nargs; i++)
        if (s->zero_job.args[i].data != orig->args[i].data) free(s->zero_job.args[i].data);
    free(s->zero_job.args);
}

/* "<category>: <detail>" into the reply, with the status. */
static void reply(aoe_wrep *r, aoe_exec_status st, const char *detail)
{
    r->status = st;
    snprintf(r->reason, sizeof r->reason, "%s: %.900s", aoe_exec_status_name(st), detail);
}

static void do_open(wstate *s, const aoe_wreq *q, aoe_wrep *r)
{
    char err[1024];
    aoe_exec_status st;
    s->tol = q->tol;
    s->replay = q->replay;
    if (s->ex) {
        reply(r, AOE_EXEC_RUNTIME_ERROR, "the device is already open");
        return;
    }
    if ((q->replay & AOE_REPLAY_ZERO_SYNTH) && s->job != &s->zero_job && zero_synthetic(s)) {
        reply(r, AOE_EXEC_OUT_OF_MEMORY, "out of memory for zero buffers");
        return;
    }
    /* Opening: the reason is the executor's own line (it names the runtime). */
    if ((st = aoe_protocol_open(s->ops, s->job, &s->ex, err, sizeof err))) {
        r->status = st;
        snprintf(r->reason, sizeof r->reason, "%s", err);
        return;
    }
    aoe_protocol_limits(s->ex, &r->limits);
    r->default_ran = 1; /* from here on a failure may depend on the data */
    if ((st = build_reference(s, err, sizeof err))) {
        r->status = st;
        snprintf(r->reason, sizeof r->reason, "the default policy: %.900s", err);
        return;
    }
    for (uint32_t i = 0; i < s->job->nargs; i++) r->outputs += s->ref.poisoned[i];
    /* The plan of the default's duration (run_plan.h): the parent's when it
     * has one (a fresh worker after a failure: a slow default already timed
     * is not timed again), else the shortest reference run's. */
    aoe_run_plan plan;
    r->default_s = q->default_s > 0 ? q->default_s : s->min_s;
    aoe_run_plan_make(r->default_s, 0, 0, 0, &plan);
    if (plan.slow && q->default_s > 0) {
        r->default_ran = 0;
        r->status = AOE_EXEC_OK;
        return;
    }
    s->reason[0] = '\0';
    if (plan.slow) { /* no warm-up: the reference runs were; two runs timed */
        st = aoe_protocol_measure(s->ex, NULL, &plan.final, verify, s, &r->timing, err, sizeof err);
        /* A launch's wall time includes first-run costs (PoCL compiles a
         * work-group function at the first launch): the device's own time
         * decides, and a kernel that is fast after all gets the fixed protocol. */
        if (!st && r->timing.median_us * 1e-6 < r->default_s)
            r->default_s = r->timing.median_us * 1e-6;
        aoe_run_plan_make(r->default_s, 0, 0, 0, &plan);
    }
    if (!st && !plan.slow)
        st = aoe_protocol_measure(s->ex, NULL, &plan.final, verify, s, &r->timing, err, sizeof err);
    if (st) {
        r->status = st;
        snprintf(r->reason, sizeof r->reason,
                 "the default policy does not reproduce its own results: %.900s",
                 s->reason[0] ? s->reason : err);
        return;
    }
    r->default_ran = 0;
    r->status = AOE_EXEC_OK;
}

static void do_measure(wstate *s, const aoe_wreq *q, aoe_wrep *r)
{
    char err[1024];
    aoe_measure_opts o = timing_opts(q->final, q->cutoff_us, q->default_s);
    if (!s->ex || !s->have_ref) {
        reply(r, AOE_EXEC_RUNTIME_ERROR, "the worker has no device open");
        return;
    }
    s->tol = q->tol;
    s->reason[0] = '\0';
    const aoe_policy *pol = q->op == AOE_WOP_DEFAULT ? NULL : &q->pol;
    aoe_exec_status st;
    if (pol && AOE_EXEC_V3(s->ops, determinism)) { /* two verified runs, bit-identical */
        uint32_t n = s->job->nargs;
        s->cap = calloc(n ? n : 1, sizeof *s->cap);
        if (!s->cap) {
            reply(r, AOE_EXEC_OUT_OF_MEMORY, "out of memory");
            return;
        }
        aoe_timing t;
        st = aoe_protocol_measure(s->ex, pol, &verify_only, verify_keep, s, &t, err, sizeof err);
        if (!st)
            st = aoe_protocol_measure(s->ex, pol, &o, verify_same, s, &r->timing, err, sizeof err);
        free_copies(s->cap, n);
        s->cap = NULL;
    } else {
        st = aoe_protocol_measure(s->ex, pol, &o, verify, s, &r->timing, err, sizeof err);
    }
    int (*lost)(aoe_exec *) = AOE_EXEC_V3(s->ops, lost);
    r->retire = st && lost && lost(aoe_protocol_exec(s->ex));
    if (st && s->reason[0]) { /* the verification's reason names its category */
        r->status = st;
        snprintf(r->reason, sizeof r->reason, "%s", s->reason);
    } else if (st) {
        reply(r, st, err);
    } else {
        r->status = AOE_EXEC_OK;
    }
}

/* The executor's candidates (library calls): one aoe_wcands reply. */
static void do_candidates(wstate *s, int fd)
{
    static aoe_wcands c; /* large; the worker serves one request at a time */
    char err[1024] = "";
    size_t n = 0;
    memset(&c, 0, sizeof c);
    aoe_exec_status (*cands)(aoe_exec *, aoe_policy *, size_t, size_t *, char *, size_t, char *,
                             size_t) = AOE_EXEC_V3(s->ops, candidates);
    if (!s->ex || !s->have_ref)
        reply(&c.rep, AOE_EXEC_RUNTIME_ERROR, "the worker has no device open");
    else if (!cands)
        reply(&c.rep, AOE_EXEC_UNSUPPORTED, "the executor proposes no candidates");
    else if ((c.rep.status = cands(aoe_protocol_exec(s->ex), c.pols, AOE_EXEC_MAX_CANDIDATES, &n,
                                   c.space, sizeof c.space, err, sizeof err)))
        reply(&c.rep, c.rep.status, err);
    c.n = (uint32_t)n;
    aoe_write_full(fd, &c, sizeof c);
}

static void do_prepare(wstate *s, const aoe_wreq *q, int fd, aoe_wrep *r)
{
    aoe_policy *p = calloc(q->count ? q->count : 1, sizeof *p);
    if (!p || aoe_read_full(fd, p, q->count * sizeof *p)) {
        free(p);
        reply(r, AOE_EXEC_RUNTIME_ERROR, "reading the policies");
        return;
    }
    if (s->ex) aoe_protocol_prepare(s->ex, p, q->count, q->parallel);
    free(p);
    r->status = AOE_EXEC_OK;
}

int aoe_runner_worker_main(void *ctx, int fd)
{
    wstate s;
    memset(&s, 0, sizeof s);
    s.job = ctx;
    s.fd = fd;
    char no_exec[256];
    s.ops = aoe_exec_for(s.job, no_exec, sizeof no_exec);
    aoe_wreq q;
    while (!aoe_read_full(fd, &q, sizeof q)) {
        aoe_wrep r;
        memset(&r, 0, sizeof r);
        r.status = AOE_EXEC_RUNTIME_ERROR;
        s.first_sent = 0, s.first_s = s.min_s = 0;
        if (!s.ops) {
            r.status = AOE_EXEC_UNSUPPORTED;
            snprintf(r.reason, sizeof r.reason, "%s", no_exec);
        } else if (q.op == AOE_WOP_CANDIDATES) {
            do_candidates(&s, fd);
            continue;
        } else if (q.op == AOE_WOP_OPEN)
            do_open(&s, &q, &r);
        else if (q.op == AOE_WOP_VARIANT || q.op == AOE_WOP_DEFAULT)
            do_measure(&s, &q, &r);
        else if (q.op == AOE_WOP_PREPARE)
            do_prepare(&s, &q, fd, &r);
        else
            snprintf(r.reason, sizeof r.reason, "runtime error: unknown request %d", q.op);
        if (q.op == AOE_WOP_OPEN) send_first(&s, -1); /* failed before the first run */
        if (aoe_write_full(fd, &r, sizeof r) || r.retire) break;
    }
    aoe_protocol_close(s.ex);
    aoe_reference_free(&s.ref);
    free_zero_job(&s, ctx);
    return 0;
}
