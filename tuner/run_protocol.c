/* The run protocol (run_protocol.h): neutral code over an executor's
 * primitives. It owns the host side of every buffer (initial contents, the
 * copy read back, the guard bytes) and decides what is restored, poisoned,
 * timed and checked; the executor only moves bytes and runs the kernel. */
#include "tuner/run_protocol.h"
#include "tuner/cpu_wait.h"
#include "tuner/measure.h"
#include "tuner/run_programs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define OPTIONS_LEN 8192

typedef struct {
    int is_buf;
    uint64_t size;       /* bytes the kernel sees (>= 1) */
    uint64_t front;      /* guard bytes before the data (the executor's alignment) */
    uint8_t *host;       /* contents after the verified run */
    const uint8_t *init; /* contents restored before each run */
    uint8_t *owned;      /* init when synthesised here (else the job's own bytes) */
} host_buf;

struct aoe_protocol {
    const aoe_exec_ops *ops;
    const aoe_job *job;
    aoe_exec *ex;
    aoe_programs *progs;
    host_buf *bufs;
    uint8_t *read_only;
    uint8_t *elem; /* aoe_elem_type per argument the program declares (BYTES: unknown) */
    uint8_t *poisoned;
    uint8_t poison;
    aoe_device_limits lim;
    int host_cpu; /* the device is this machine's CPU: the runs' CPU wait is read */
    const uint8_t **out_data;
    uint64_t *out_size;
    uint8_t *guard; /* scratch for the guard bytes read back */
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void aoe_synthetic_fill(uint8_t *dst, uint64_t size, uint32_t seed)
{
    uint64_t s = 0x9E3779B97F4A7C15ull ^ ((uint64_t)seed * 0x100000001B3ull);
    uint64_t i = 0;
    for (; i + 4 <= size; i += 4) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        float f = (float)((double)(s >> 40) / (double)(1ull << 24) * 2.0 - 1.0);
        memcpy(dst + i, &f, 4);
    }
    for (; i < size; i++) dst[i] = (uint8_t)(s >> (8 * (i % 8)));
}

/* x in [-1, 1) rounded to a half's 10 mantissa bits (truncated): finite. */
static uint16_t half_of(float x)
{
    uint16_t sign = x < 0 ? 0x8000 : 0;
    float a = x < 0 ? -x : x;
    if (a < 6.103515625e-05f) return sign; /* below the smallest normal half: zero */
    int e = 0;
    while (a >= 2.0f) a *= 0.5f, e++;
    while (a < 1.0f) a *= 2.0f, e--;
    return (uint16_t)(sign | (uint16_t)((e + 15) << 10) | (uint16_t)((a - 1.0f) * 1024.0f));
}

void aoe_synthetic_fill_typed(uint8_t *dst, uint64_t size, aoe_elem_type type, uint32_t seed)
{
    aoe_synthetic_fill(dst, size, seed);
    if (type != AOE_ELEM_F16) return;
    for (uint64_t i = 0; i + 2 <= size; i += 2) { /* the same generator's values, as halves */
        uint64_t s = 0x9E3779B97F4A7C15ull ^ ((uint64_t)seed * 0x100000001B3ull) ^
                     (i * 0x2545F4914F6CDD1Dull);
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        uint16_t h = half_of((float)((double)(s >> 40) / (double)(1ull << 24) * 2.0 - 1.0));
        memcpy(dst + i, &h, 2);
    }
}

/* The element type of image argument i's channels (the executor's answer). */
static aoe_elem_type image_elem(const aoe_protocol *p, uint32_t i)
{
    aoe_elem_type (*f)(const aoe_job *, uint32_t) = AOE_EXEC_V3(p->ops, image_elem);
    aoe_elem_type e = f ? f(p->job, i) : AOE_ELEM_BYTES;
    return (unsigned)e < AOE_ELEM_COUNT ? e : AOE_ELEM_BYTES;
}

/* Host side of buffer or image argument i, then the executor's device side. */
static aoe_exec_status make_buffer(aoe_protocol *p, uint32_t i, char *detail, size_t len)
{
    const aoe_job_arg *a = &p->job->args[i];
    host_buf *b = &p->bufs[i];
    char why[512] = "";
    b->is_buf = 1;
    b->size = a->size ? a->size : 1;
    b->host = malloc(b->size);
    if (a->data && a->size) {
        b->init = a->data; /* never written: no second host copy of the job's bytes */
    } else if ((b->owned = malloc(b->size)) && a->kind == AOE_JOB_ARG_IMAGE) {
        /* legal pixels for the channel type: no NaN or infinity in a float image */
        aoe_synthetic_fill_typed(b->owned, b->size, image_elem(p, i), i);
        b->init = b->owned;
    } else if (b->owned) {
        void (*fill)(const aoe_job *, uint32_t, uint8_t *, uint64_t) = AOE_EXEC_V3(p->ops, fill);
        if (fill)
            fill(p->job, i, b->owned, b->size); /* typed, as the runtime knows the buffer */
        else
            aoe_synthetic_fill(b->owned, b->size, i);
        b->init = b->owned;
    }
    aoe_exec_status st = AOE_EXEC_OUT_OF_MEMORY;
    if (b->host && b->init)
        st = p->ops->buffer(p->ex, i, b->size, AOE_GUARD_ZONE, b->init, &b->front, why, sizeof why);
    else
        snprintf(why, sizeof why, "out of host memory");
    if (st)
        snprintf(detail, len, "args[%u]: allocating %llu bytes: %s", i, (unsigned long long)a->size,
                 why);
    return st;
}

aoe_exec_status aoe_protocol_open(const aoe_exec_ops *ops, const aoe_job *job, aoe_protocol **out,
                                  char *detail, size_t len)
{
    aoe_exec_status st = AOE_EXEC_OUT_OF_MEMORY;
    uint32_t n = job->nargs ? job->nargs : 1;
    aoe_protocol *p = calloc(1, sizeof *p);
    *out = NULL;
    int lib = job->op == AOE_OP_LIBRARY_CALL; /* no program, no launch sizes */
    if (!lib && !job->source && !job->binary) {
        snprintf(detail, len, "the job has neither source nor binary");
        st = AOE_EXEC_BAD_JOB;
        goto fail;
    }
    if (!lib && (job->work_dim < 1 || job->work_dim > 3)) {
        snprintf(detail, len, "work_dim %u is not 1..3", job->work_dim);
        st = AOE_EXEC_BAD_JOB;
        goto fail;
    }
    snprintf(detail, len, "out of memory");
    if (!p) goto fail;
    p->ops = ops, p->job = job;
    p->bufs = calloc(n, sizeof *p->bufs);
    p->read_only = calloc(n, 1);
    p->elem = calloc(n, 1); /* AOE_ELEM_BYTES is 0 */
    p->poisoned = calloc(n, 1);
    p->out_data = calloc(n, sizeof *p->out_data);
    p->out_size = calloc(n, sizeof *p->out_size);
    if (!p->bufs || !p->read_only || !p->elem || !p->poisoned || !p->out_data || !p->out_size)
        goto fail;
    if ((st = ops->open(job, &p->ex, detail, len)) != AOE_EXEC_OK) goto fail;
    uint64_t front_max = 0;
    for (uint32_t i = 0; i < job->nargs; i++) {
        if (!aoe_job_arg_has_memory(job->args[i].kind)) continue;
        if ((st = make_buffer(p, i, detail, len)) != AOE_EXEC_OK) goto fail;
        p->out_data[i] = p->bufs[i].host;
        p->out_size[i] = p->bufs[i].size;
        if (p->bufs[i].front > front_max) front_max = p->bufs[i].front;
    }
    st = AOE_EXEC_OUT_OF_MEMORY;
    p->guard = malloc(front_max + AOE_GUARD_ZONE); /* one buffer's front and back guards */
    p->progs = aoe_programs_new(ops, p->ex);
    if (!p->guard || !p->progs) {
        snprintf(detail, len, "out of memory");
        goto fail;
    }
    char why[1024];
    aoe_exec_program *def;
    st = aoe_programs_get(p->progs, job->options ? job->options : "", &def, why, sizeof why);
    if (st) {
        snprintf(detail, len, "the default program: %s: %.900s", aoe_exec_status_name(st), why);
        goto fail;
    }
    aoe_exec_info info = {.read_only = p->read_only, .elem = p->elem};
    if ((st = ops->inspect(p->ex, def, &info, detail, len)) != AOE_EXEC_OK) goto fail;
    for (uint32_t i = 0; i < job->nargs; i++) /* an image's pixels are typed by its format */
        if (job->args[i].kind == AOE_JOB_ARG_IMAGE) p->elem[i] = (uint8_t)image_elem(p, i);
    p->lim = info.limits;
    p->host_cpu = info.host_cpu;
    *out = p;
    return AOE_EXEC_OK;
fail:
    aoe_protocol_close(p);
    return st;
}

void aoe_protocol_limits(const aoe_protocol *p, aoe_device_limits *out)
{
    *out = p->lim;
}

void aoe_protocol_set_poison(aoe_protocol *p, const uint8_t *poisoned, uint8_t poison)
{
    for (uint32_t i = 0; i < p->job->nargs; i++) p->poisoned[i] = poisoned ? poisoned[i] : 0;
    p->poison = poison;
}

void aoe_protocol_prepare(aoe_protocol *p, const aoe_policy *pols, size_t n, int parallel)
{
    char err[256];
    char(*opts)[OPTIONS_LEN] = calloc(n ? n : 1, sizeof *opts);
    const char **list = calloc(n ? n : 1, sizeof *list);
    size_t m = 0;
    for (size_t i = 0; opts && list && i < n; i++)
        if (!aoe_exec_variant_options(p->job->options, &pols[i], opts[m], sizeof opts[m], err,
                                      sizeof err))
            list[m] = opts[m], m++;
    if (opts && list) aoe_programs_build(p->progs, list, m, parallel);
    free(list);
    free(opts);
}

static uint64_t count_not(const uint8_t *q, uint64_t n, uint8_t b)
{
    uint64_t c = 0;
    for (uint64_t i = 0; i < n; i++) c += q[i] != b;
    return c;
}

/* Reads every buffer back and counts overwritten guard bytes. */
static aoe_exec_status read_back(aoe_protocol *p, aoe_outputs *o, char *detail, size_t len)
{
    o->nargs = p->job->nargs;
    o->data = p->out_data;
    o->size = p->out_size;
    o->oob_bytes = 0;
    o->oob_arg = -1;
    for (uint32_t i = 0; i < p->job->nargs; i++) {
        host_buf *b = &p->bufs[i];
        if (!b->is_buf) continue;
        uint8_t *back = p->guard + b->front;
        aoe_exec_status st = p->ops->read(p->ex, i, b->host, p->guard, back, detail, len);
        if (st) return st;
        uint64_t bad = count_not(p->guard, b->front, AOE_GUARD_BYTE) +
                       count_not(back, AOE_GUARD_ZONE, AOE_GUARD_BYTE);
        if (bad && o->oob_arg < 0) o->oob_arg = (int)i;
        o->oob_bytes += bad;
    }
    return AOE_EXEC_OK;
}

/* The launch and options of policy pol (NULL: the job's own). */
static aoe_exec_status variant(aoe_protocol *p, const aoe_policy *pol, aoe_exec_launch *l,
                               char *options, char *detail, size_t len)
{
    const aoe_job *job = p->job;
    memset(l, 0, sizeof *l);
    l->work_dim = job->work_dim;
    for (int d = 0; d < 3; d++) l->global[d] = 1;
    if (!pol) {
        uint64_t global[3], local[3];
        snprintf(options, OPTIONS_LEN, "%s", job->options ? job->options : "");
        aoe_job_launch_sizes(job, global, local, &l->has_local); /* threads */
        for (uint32_t d = 0; d < job->work_dim && d < 3; d++) {
            l->global[d] = global[d];
            l->local[d] = local[d];
        }
        return AOE_EXEC_OK;
    }
    aoe_exec_status st =
        aoe_exec_variant_options(job->options, pol, options, OPTIONS_LEN, detail, len);
    if (st) return st;
    int defines = 0;
    for (uint32_t i = 0; i < pol->n_params && i < AOE_MAX_PARAMS; i++)
        defines += pol->params[i].kind == AOE_PARAM_DEFINE;
    if (defines && !job->source) {
        snprintf(detail, len, "a program built from a binary cannot take -D values");
        return AOE_EXEC_REFUSED;
    }
    l->policy = pol;
    l->work_dim = pol->work_dim ? pol->work_dim : job->work_dim;
    for (uint32_t d = 0; d < l->work_dim && d < 3; d++) {
        l->global[d] = pol->global[d];
        l->local[d] = pol->local[d];
        l->has_local |= pol->local[d] != 0;
    }
    return AOE_EXEC_OK;
}

/* Prefixes detail with what was being done ("running the kernel: ..."). */
static aoe_exec_status failed(aoe_exec_status st, const char *doing, char *detail, size_t len)
{
    char why[1024];
    snprintf(why, sizeof why, "%s", detail);
    snprintf(detail, len, "%s: %s", doing, why);
    return st;
}

aoe_exec_status aoe_protocol_measure(aoe_protocol *p, const aoe_policy *pol,
                                     const aoe_measure_opts *opt, aoe_outputs_check_fn check,
                                     void *check_ctx, aoe_timing *out, char *detail, size_t len)
{
    const aoe_exec_ops *ops = p->ops;
    char options[OPTIONS_LEN];
    aoe_exec_launch l;
    aoe_exec_program *prog;
    double times[AOE_MAX_TIMED];
    int nt = 0;
    memset(out, 0, sizeof *out);
    out->wait_share = -1;
    aoe_exec_status st = variant(p, pol, &l, options, detail, len);
    if (st) return st;
    if ((l.work_dim < 1 || l.work_dim > 3) && p->job->op != AOE_OP_LIBRARY_CALL) {
        snprintf(detail, len, "work_dim %u is not 1..3", l.work_dim);
        return AOE_EXEC_RUNTIME_ERROR;
    }
    if ((st = aoe_programs_get(p->progs, options, &prog, detail, len))) return st;

    /* On a CPU device, the runs' share of waiting for a CPU: from the
     * warm-up (the verified run may be the first timed one) to the last
     * timed run. */
    aoe_cpu_sample cpu0, cpu1;
    int have_cpu = p->host_cpu && !aoe_cpu_sample_now(&cpu0);
    /* Warm-up: the first run re-arms the guards and is read back and checked. */
    int warmup = opt->warmup > 0 ? opt->warmup : 1;
    for (int w = 0; w < warmup; w++) {
        double us = 0, *timed = w == 0 && opt->time_verified ? &us : NULL;
        st = ops->reset(p->ex, p->poisoned, p->poison, w == 0 ? (int)AOE_GUARD_BYTE : -1, detail,
                        len);
        double t = now_s();
        if (!st) st = ops->run(p->ex, prog, &l, timed, detail, len);
        if (st) return failed(st, "running the kernel", detail, len);
        if (w) continue;
        out->first_run_s = now_s() - t; /* what the run plan is made from */
        if (timed) times[nt++] = us > 0 ? us : 0.001;
        aoe_outputs o;
        if ((st = read_back(p, &o, detail, len)))
            return failed(st, "reading the results", detail, len);
        if (check && (st = check(check_ctx, &o)) != AOE_EXEC_OK) {
            snprintf(detail, len, "rejected by verification");
            return st;
        }
    }
    int max_reps = opt->max_reps > 0 ? opt->max_reps : 0;
    if (max_reps > AOE_MAX_TIMED - nt) max_reps = AOE_MAX_TIMED - nt;
    double t0 = now_s();
    for (int r = 0; r < max_reps; r++) {
        double us = 0;
        st = ops->reset(p->ex, p->poisoned, p->poison, -1, detail, len);
        if (!st) ops->flush(p->ex, (unsigned)r);
        if (!st) st = ops->run(p->ex, prog, &l, &us, detail, len);
        if (st) return failed(st, "timing the kernel", detail, len);
        times[nt++] = us > 0 ? us : 0.001;
        double med = aoe_median(times, (size_t)nt);
        if (opt->cutoff_us > 0 && nt >= (opt->cutoff_runs > 0 ? opt->cutoff_runs : 3) &&
            med > opt->cutoff_us) {
            out->abandoned = 1;
            break;
        }
        if (nt >= opt->min_reps && now_s() - t0 >= opt->budget_s) break;
    }
    if (have_cpu && !aoe_cpu_sample_now(&cpu1)) out->wait_share = aoe_cpu_wait_share(&cpu0, &cpu1);
    out->runs = nt;
    out->median_us = aoe_median(times, (size_t)nt);
    out->spread_us = aoe_spread(times, (size_t)nt, out->median_us);
    return AOE_EXEC_OK;
}

const uint8_t *aoe_protocol_input(const aoe_protocol *p, uint32_t arg)
{
    return arg < p->job->nargs && p->bufs[arg].is_buf ? p->bufs[arg].init : NULL;
}

aoe_elem_type aoe_protocol_elem(const aoe_protocol *p, uint32_t arg)
{
    return arg < p->job->nargs && p->bufs[arg].is_buf && p->elem[arg] < AOE_ELEM_COUNT
               ? (aoe_elem_type)p->elem[arg]
               : AOE_ELEM_BYTES;
}

int aoe_protocol_read_only(const aoe_protocol *p, uint32_t arg)
{
    return arg < p->job->nargs && p->bufs[arg].is_buf && p->read_only[arg];
}

aoe_exec *aoe_protocol_exec(const aoe_protocol *p)
{
    return p->ex;
}

size_t aoe_protocol_programs(const aoe_protocol *p)
{
    return aoe_programs_count(p->progs);
}

void aoe_protocol_close(aoe_protocol *p)
{
    if (!p) return;
    aoe_programs_free(p->progs); /* programs before the executor they belong to */
    if (p->ex) p->ops->close(p->ex);
    for (uint32_t i = 0; p->bufs && i < p->job->nargs; i++) {
        free(p->bufs[i].host);
        free(p->bufs[i].owned);
    }
    free(p->bufs);
    free(p->read_only);
    free(p->elem);
    free(p->poisoned);
    free(p->out_data);
    free(p->out_size);
    free(p->guard);
    free(p);
}
