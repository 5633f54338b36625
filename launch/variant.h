/* Variants: a program rebuilt with a policy's -D values added to its own
 * options. The neutral part lives here: the per-program list of variants
 * (keyed by those values, a copy, never by the policy, which may be freed),
 * the check that a policy does not override a macro the program sets, and
 * the queue of requested builds that the poller thread drains by calling the
 * runtime's builder. A runtime embeds aoe_variant as the first member of its
 * own variant record (its program handle, its built program). */
#ifndef AOE_LAUNCH_VARIANT_H
#define AOE_LAUNCH_VARIANT_H

#include <stdatomic.h>
#include <string.h>

enum { AOE_VAR_PENDING = 0, AOE_VAR_READY = 1, AOE_VAR_FAILED = 2 };

typedef struct aoe_variant {
    struct aoe_variant *next;         /* in the program's list */
    struct aoe_variant *next_request; /* in the build queue */
    char *defines;                    /* " -DNAME=value ..." (owned) */
    char kernel_name[128];            /* for the message when it does not build */
    atomic_int state;                 /* AOE_VAR_* */
} aoe_variant;

/* A program's variants: pushed lock-free, never removed while it lives. */
typedef _Atomic(aoe_variant *) aoe_variant_list;

/* The variant with these defines, or NULL. Inline: a launch whose variant
 * is still being built looks it up every time. */
static inline aoe_variant *aoe_variant_find(aoe_variant_list *list, const char *defines)
{
    for (aoe_variant *v = atomic_load_explicit(list, memory_order_acquire); v; v = v->next)
        if (!strcmp(v->defines, defines)) return v;
    return NULL;
}
/* Sets v's defines (a copy), kernel name and state: failed from the start
 * when bad, else pending. -1 when out of memory. */
int aoe_variant_init(aoe_variant *v, const char *defines, const char *kernel_name, int bad);
/* How many variants the list holds (it never shrinks). */
static inline int aoe_variant_count(aoe_variant_list *list)
{
    int n = 0;
    for (aoe_variant *v = atomic_load_explicit(list, memory_order_acquire); v; v = v->next) n++;
    return n;
}
/* Adds v to the list. Two threads may add the same values at once: both
 * are built, and either may be found. */
void aoe_variant_add(aoe_variant_list *list, aoe_variant *v);
/* Adds v unless the list holds one with its defines (returned instead) or
 * max variants (NULL). Lock-free and exact: two threads never both add the
 * same values. */
aoe_variant *aoe_variant_add_once(aoe_variant_list *list, aoe_variant *v, int max);

/* 1 when the program's build options set one of the macros of defines
 * itself (such kernels carry their own tuned values and must come out
 * exactly as they went in), or defines is malformed. */
int aoe_variant_overrides(const char *options, const char *defines);

/* Builds requested and not yet taken by the poller (lock-free push). */
typedef struct {
    _Atomic(aoe_variant *) head;
} aoe_variant_queue;

void aoe_variant_request(aoe_variant_queue *q, aoe_variant *v);
/* The runtime's builder: builds v and sets its state; returns 0 to go on,
 * -1 to drop the requests still queued (the exit has begun). */
typedef int (*aoe_variant_build_fn)(aoe_variant *v, void *ctx);
/* Poller thread: takes every queued request and builds each, newest first. */
void aoe_variant_drain(aoe_variant_queue *q, aoe_variant_build_fn build, void *ctx);

#endif
