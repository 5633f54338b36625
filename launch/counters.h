/* Launch counters of one kernel object, flushed into the operator table
 * (aoe_op.launches, .tuned_launches) by the poller, at a switch of operator
 * and when the object is freed. No global atomic on the launch path: the
 * first thread that counts (the owner, named by its read node) counts with a
 * plain load + store into own_*, any other thread with a relaxed add into
 * shared (launches in the low 32 bits, tuned in the high 32; flushed before
 * the low half overflows). Launches of an object the shim does not tune are
 * counted apart (untuned_*, plain moves: concurrent launches of one object
 * may lose some) into the counter the hook names (its not-tuned entry). */
#ifndef AOE_LAUNCH_COUNTERS_H
#define AOE_LAUNCH_COUNTERS_H

#include "launch/op_table.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct aoe_op;

typedef struct {
    _Atomic(struct aoe_op *) op; /* counted into (set by aoe_counts_switch) */
    _Atomic(const void *) owner; /* the owning thread's read node */
    atomic_uint_least64_t own_n, own_t;
    atomic_uint_least64_t shared;
    uint64_t flushed_n, flushed_t; /* own_* already flushed (flush_lock) */
    atomic_int flush_lock;
} aoe_counts;

/* Launches of an object that is not tuned. */
typedef struct {
    _Atomic(atomic_uint_least64_t *) dest; /* NULL until the hook names it */
    atomic_uint_least64_t n;
    uint64_t flushed; /* n already added to *dest (lock) */
    atomic_int lock;
} aoe_untuned_counts;

/* One more, by the only thread that writes c (or where a lost count is fine). */
static inline void aoe_count_own(atomic_uint_least64_t *c)
{
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
                          memory_order_relaxed);
}

/* Adds what was counted since the last flush to the operator (any thread;
 * a flush already running elsewhere takes these counts too). Static like
 * aoe_counts_other, which calls it. */
static __attribute__((noinline, unused)) void aoe_counts_flush(aoe_counts *c)
{
    struct aoe_op *op = atomic_load_explicit(&c->op, memory_order_relaxed);
    if (!op) return;
    if (atomic_exchange_explicit(&c->flush_lock, 1, memory_order_acquire)) return;
    uint64_t v = atomic_exchange_explicit(&c->shared, 0, memory_order_relaxed);
    uint64_t n = atomic_load_explicit(&c->own_n, memory_order_relaxed);
    uint64_t t = atomic_load_explicit(&c->own_t, memory_order_relaxed);
    uint64_t dn = n - c->flushed_n, dt = t - c->flushed_t;
    c->flushed_n = n;
    c->flushed_t = t;
    atomic_store_explicit(&c->flush_lock, 0, memory_order_release);
    dn += v & 0xffffffffu;
    dt += v >> 32;
    if (dn) atomic_fetch_add(&op->launches, dn);
    if (dt) atomic_fetch_add(&op->tuned_launches, dt);
}

/* Not the owner (or none yet): becomes the owner, or adds to shared. Out of
 * line but static (one copy per file that counts), so that the launch
 * path's caller keeps its registers (the compiler sees what it clobbers). */
static __attribute__((noinline, unused)) void aoe_counts_other(aoe_counts *c, const void *rd,
                                                               int tuned)
{
    const void *none = NULL;
    if (rd && atomic_compare_exchange_strong(&c->owner, &none, rd)) {
        aoe_count_own(&c->own_n);
        if (tuned) aoe_count_own(&c->own_t);
        return;
    }
    uint64_t inc = tuned ? (1ull << 32) | 1u : 1u;
    uint64_t v = atomic_fetch_add_explicit(&c->shared, inc, memory_order_relaxed);
    if ((uint32_t)v >= 1u << 31) aoe_counts_flush(c);
}

/* Counts a launch (tuned: it went out with a policy). rd: the launching
 * thread's read node (NULL: not known; counted as another thread). The
 * owner's count is two plain moves; no count of another thread is lost. */
static inline void aoe_counts_launch(aoe_counts *c, const void *rd, int tuned)
{
    if (__builtin_expect(atomic_load_explicit(&c->owner, memory_order_relaxed) == rd, 1) && rd) {
        aoe_count_own(&c->own_n);
        if (tuned) aoe_count_own(&c->own_t);
        return;
    }
    aoe_counts_other(c, rd, tuned);
}

/* The launches from now on count into op (the counts so far are flushed
 * into the previous one). One thread at a time (the hook's slow path). */
void aoe_counts_switch(aoe_counts *c, struct aoe_op *op);

/* Untuned launches: counted with a plain move; flushed into *dest. */
static inline void aoe_untuned_count(aoe_untuned_counts *u)
{
    aoe_count_own(&u->n);
}
void aoe_untuned_flush(aoe_untuned_counts *u);

#endif
