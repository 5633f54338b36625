/* See sight.h. The services of the process (bank, spool, result file) come
 * from the host (host.h), what only the runtime knows from the description's
 * callbacks (desc.h). */
#include "launch/sight.h"

#include "core/log.h"
#include "core/not_tuned_reasons.h"
#include "launch/host.h"
#include "space/autodefine.h"

#include <stdlib.h>
#include <string.h>

/* The result file and the poller start with the first operator of a
 * process (a forked child starts its own: the host checks). */
static void start(const aoe_launch_host *h)
{
    if (h->start) h->start();
}

static void note(const aoe_launch_host *h, const char *name, int why, const char *detail)
{
    if (h->not_tuned) h->not_tuned(name, why, detail);
}

/* The kernel's declared tunables, or NULL. */
static const aoe_tunable_kernel *declaration(const aoe_launch_host *h, const aoe_launch_desc *d)
{
    return h->tunables ? h->tunables(d->runtime, d->kernel_name, d->source, d->program_hash) : NULL;
}

/* The launch an operator was created for, with the device's work-group
 * limits and the kernel's declared tunables: what a policy must fit. */
static void set_shape(const aoe_launch_desc *d, const aoe_tunable_kernel *decl, aoe_op *op)
{
    aoe_launch_shape *ls = calloc(1, sizeof *ls);
    if (!ls) return; /* no policy is applied to it */
    ls->dim = d->dim;
    ls->has_local = d->local != NULL;
    int grid = d->launch_kind == AOE_LAUNCH_GRID_BLOCK && d->local; /* checked in threads */
    for (uint32_t i = 0; i < d->dim; i++) {
        ls->global[i] = grid ? (uint64_t)d->global[i] * d->local[i] : d->global[i];
        ls->local[i] = d->local ? d->local[i] : 0;
    }
    if (d->rt && d->rt->limits) d->rt->limits(d, &ls->max_wg, ls->max_item);
    ls->decl = decl;
    atomic_store_explicit(&op->shape, ls, memory_order_release);
}

/* The family key of a launch with a NULL local size (keys across runs; the
 * declared scalars by value): 0 and *fk set, or -1 when it has none. */
static int family_key(const aoe_launch_desc *d, const aoe_tunable_kernel *decl, aoe_key *fk,
                      uint8_t *declared)
{
    if (d->local || d->launch_kind == AOE_LAUNCH_GRID_BLOCK || !d->dim || d->dim > 3) return -1;
    *declared = decl && decl->has_scalars;
    *fk = aoe_opkey_family(d->kpart, d->dim, d->global, d->nargs, d->shapes,
                           *declared ? decl->scalars : 0);
    return 0;
}

/* Before set_shape: the shape's release store publishes the family fields
 * to the poller, which reads them only once it sees the shape. */
static void set_family(const aoe_launch_desc *d, const aoe_tunable_kernel *decl, aoe_op *op)
{
    if (family_key(d, decl, &op->family, &op->family_scalars) == 0) op->family_set = 1;
}

/* An operator left untuned at its first sight (the kernel could be). */
static void not_tuned(const aoe_launch_host *h, aoe_op *op, int why, const char *detail)
{
    op->not_tuned = why;
    note(h, op->kernel_name, why, detail);
}

/* Whether the tuner could find anything to tune in d's job, decided as it
 * would (space/space.c): the launch sizes when the program left them to the
 * implementation (local == NULL; a launch that fixes them, an OpenCL local
 * size or a grid's block, never has them searched), a tunables declaration,
 * or with AOE_AUTO_DEFINES an #ifndef default (the tuner's own scanner). */
static int tunable(const aoe_launch_host *h, const aoe_launch_desc *d, const aoe_op *op)
{
    if (!d->local) return 1;
    const aoe_launch_shape *ls = atomic_load_explicit(&op->shape, memory_order_acquire);
    const aoe_tunable_kernel *decl = ls ? ls->decl : declaration(h, d);
    if (decl) return 1;
    return h->auto_defines && aoe_autodefine_any(d->source, d->options);
}

/* First sight of an operator in this process: call site, bank lookup, and
 * the capture decision. */
static void first_sight(aoe_sight *s, const aoe_launch_desc *d, aoe_op *op, const aoe_key *key)
{
    const aoe_launch_host *h = aoe_launch_get_host();
    if (h->call_site) h->call_site(op->call_site, sizeof op->call_site);
    if (h->refresh) h->refresh(op); /* the poller may have published it meanwhile */
    const aoe_policy_entry *p = atomic_load_explicit(&op->policy, memory_order_acquire);
    if (p) {
        op->first = AOE_OP_FIRST_HIT;
        op->first_timestamp = p->rec.timestamp;
        if (h->note_active && !aoe_policy_is_default(p)) h->note_active();
    }
    if (d->not_capturable) {
        not_tuned(h, op, d->not_capturable, "");
        return;
    }
    if (!h->capture) return;
    if (op->first == AOE_OP_FIRST_HIT && !h->repeat) return;
    if (h->allows && !h->allows(d->kernel_name)) {
        not_tuned(h, op, AOE_NT_FILTERED, "");
        return;
    }
    if (!tunable(h, d, op)) { /* nothing captured: its launches counted under the reason */
        not_tuned(h, op, AOE_NT_OWN_LOCAL,
                  h->auto_defines ? "no #ifndef defaults either" : "AOE_AUTO_DEFINES off");
        return;
    }
    if (s->captures >= AOE_MAX_CAPTURES_PER_KERNEL) {
        not_tuned(h, op, AOE_NT_CAPTURE_LIMIT, "16 jobs per kernel object");
        return;
    }
    if (op->family_set && !aoe_family_claim(&op->family)) { /* its policy comes with the family's */
        not_tuned(h, op, AOE_NT_FAMILY_QUEUED, "another operator of its family was captured");
        return;
    }
    s->captures++;
    aoe_launch_capture(d, op, key);
}

/* Past the operator limit, a launch with a NULL local size resolves to one
 * operator per family, keyed by the family key itself: the family's policy
 * is correct for every member (jobs/job.h), so a kernel whose scalars change
 * at every launch (ffmpeg's nlmeans: an offset per launch) keeps its tuned
 * launches. Its first sight captures the launch under its own key (unless
 * the family was captured already): the tuner banks the family record too. */
static aoe_op *family_op(aoe_sight *s, const aoe_launch_desc *d, const aoe_key *key)
{
    const aoe_tunable_kernel *decl = declaration(aoe_launch_get_host(), d);
    aoe_key fk;
    uint8_t declared;
    if (family_key(d, decl, &fk, &declared)) return NULL;
    aoe_op *op = aoe_op_find(&fk);
    if (op || s->family_ops >= AOE_MAX_FAMILY_OPS_PER_KERNEL) return op;
    int created = 0;
    op = aoe_op_get_or_create(&fk, d->kernel_name, d->fingerprint, &created);
    if (!op || !created) return op;
    s->family_ops++;
    op->family = fk;
    op->family_scalars = declared;
    op->family_set = 1;
    op->family_op = 1;
    set_shape(d, decl, op);
    first_sight(s, d, op, key);
    atomic_store_explicit(&op->sighted, 1, memory_order_release);
    return op;
}

aoe_op *aoe_launch_resolve(aoe_sight *s, const aoe_launch_desc *d)
{
    const aoe_launch_host *h = aoe_launch_get_host();
    start(h);
    aoe_key key = aoe_opkey_launch(d->kpart, d->dim, d->global, d->local, d->nargs, d->shapes);
    int created = 0;
    aoe_op *op;
    if (s->ops_created < AOE_MAX_OPS_PER_KERNEL)
        op = aoe_op_get_or_create(&key, d->kernel_name, d->fingerprint, &created);
    else if (!(op = aoe_op_find(&key)))
        op = family_op(s, d, &key);
    if (!op && s->ops_created >= AOE_MAX_OPS_PER_KERNEL && !s->ops_limited) {
        s->ops_limited = 1;
        note(h, d->kernel_name, AOE_NT_OPS_LIMIT, "64 operators per kernel object");
    }
    if (!op) return NULL;
    if (created) {
        s->ops_created++;
        const aoe_tunable_kernel *decl = declaration(h, d);
        set_family(d, decl, op);
        set_shape(d, decl, op);
        first_sight(s, d, op, &key);
        atomic_store_explicit(&op->sighted, 1, memory_order_release);
    }
    return op;
}
