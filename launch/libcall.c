/* See libcall.h. The process's services come from the host (host.h), as for
 * kernel launches (sight.c). */
#include "launch/libcall.h"

#include "core/log.h"
#include "core/not_tuned_reasons.h"
#include "launch/host.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t g_walk_lock = PTHREAD_MUTEX_INITIALIZER;

static void note(const aoe_launch_host *h, aoe_op *op, int why, const char *detail)
{
    op->not_tuned = why;
    if (h->not_tuned) h->not_tuned(op->kernel_name, why, detail);
}

/* Writes the job once per key (spool state as for kernels: capture.c). */
static void capture(const aoe_launch_host *h, const aoe_libcall_desc *d, aoe_op *op)
{
    if (h->spool_has && h->spool_has(&d->key)) { /* queued, running or failed elsewhere */
        if (h->tuner_spawn) h->tuner_spawn();
        return;
    }
    if (h->spool_full && h->spool_full()) {
        note(h, op, AOE_NT_SPOOL_FULL, "");
        return;
    }
    aoe_job job;
    memset(&job, 0, sizeof job);
    if (!d->job || d->job(d, &job)) return;
    free(job.call_site);
    job.call_site = strdup(op->call_site);
    job.repeat_tune = h->repeat;
    int rc = job.call_site && h->spool_submit ? h->spool_submit(&job) : 0;
    aoe_job_free(&job);
    if (rc != 1) return;
    op->job_written = 1;
    op->repeat_job = h->repeat;
    char hex[33];
    aoe_key_to_hex(&d->key, hex);
    AOE_DEBUG("captured %s (%s) as %s/%s.job", op->kernel_name, op->call_site,
              h->spool_dir ? h->spool_dir : "", hex);
    if (h->tuner_spawn) h->tuner_spawn();
}

static void first_sight(aoe_libcall_sight *s, const aoe_libcall_desc *d, aoe_op *op)
{
    const aoe_launch_host *h = aoe_launch_get_host();
    /* One call-site walk at a time: threads of a library's callers reach
     * first sights together (libunwind's caches race under ThreadSanitizer). */
    pthread_mutex_lock(&g_walk_lock);
    if (h->call_site) h->call_site(op->call_site, sizeof op->call_site);
    pthread_mutex_unlock(&g_walk_lock);
    if (h->refresh) h->refresh(op);
    const aoe_policy_entry *p = atomic_load_explicit(&op->policy, memory_order_acquire);
    if (p) {
        op->first = AOE_OP_FIRST_HIT;
        op->first_timestamp = p->rec.timestamp;
        if (h->note_active && !aoe_policy_is_default(p)) h->note_active();
    }
    if (!h->capture) return;
    if (op->first == AOE_OP_FIRST_HIT && !h->repeat) return;
    if (h->allows && !h->allows(op->kernel_name)) {
        note(h, op, AOE_NT_FILTERED, "");
        return;
    }
    if (atomic_fetch_add(&s->captures, 1) >= AOE_MAX_LIBCALL_CAPTURES) {
        note(h, op, AOE_NT_CAPTURE_LIMIT, "256 jobs per library");
        return;
    }
    capture(h, d, op);
}

aoe_op *aoe_libcall_resolve(aoe_libcall_sight *s, const aoe_libcall_desc *d)
{
    const aoe_launch_host *h = aoe_launch_get_host();
    if (h->start) h->start();
    aoe_op *op = aoe_op_find(&d->key);
    if (op) return op;
    int created = 0;
    if (atomic_fetch_add(&s->ops_created, 1) < AOE_MAX_LIBCALL_OPS) {
        op = aoe_op_get_or_create(&d->key, d->op_name, d->fingerprint, &created);
        if (!created) atomic_fetch_sub(&s->ops_created, 1);
    } else {
        atomic_fetch_sub(&s->ops_created, 1);
        if (!atomic_exchange(&s->ops_limited, 1) && h->not_tuned)
            h->not_tuned(d->op_name, AOE_NT_OPS_LIMIT, "4096 operators per library");
    }
    if (!op || !created) return op;
    op->libcall = 1;
    /* A library call has no launch shape: an empty one marks the first
     * sight as started for the poller, which then publishes records as
     * they are (libcall set before, released with it). */
    aoe_launch_shape *ls = calloc(1, sizeof *ls);
    if (ls) atomic_store_explicit(&op->shape, ls, memory_order_release);
    first_sight(s, d, op);
    atomic_store_explicit(&op->sighted, 1, memory_order_release);
    return op;
}

aoe_policy_entry *aoe_policy_from_library_record(const aoe_record *rec)
{
    char err[256];
    if (aoe_record_check(rec, err, sizeof err)) {
        AOE_ERROR("bank record refused: %s", err);
        return NULL;
    }
    for (uint32_t i = 0; i < rec->policy.n_params; i++)
        if (rec->policy.params[i].kind != AOE_PARAM_LIBRARY_ATTR) {
            AOE_ERROR("bank record refused: parameter %s of a library call is not a library "
                      "attribute",
                      rec->policy.params[i].name);
            return NULL;
        }
    aoe_policy_entry *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->rec = *rec;
    return e;
}

void aoe_libcall_atfork_child(void)
{
    pthread_mutex_init(&g_walk_lock, NULL);
}
