#include "launch/counters.h"

void aoe_counts_switch(aoe_counts *c, struct aoe_op *op)
{
    if (atomic_load_explicit(&c->op, memory_order_relaxed) == op) return;
    aoe_counts_flush(c);
    atomic_store_explicit(&c->op, op, memory_order_relaxed);
}

void aoe_untuned_flush(aoe_untuned_counts *u)
{
    atomic_uint_least64_t *dest = atomic_load_explicit(&u->dest, memory_order_acquire);
    if (!dest || atomic_exchange_explicit(&u->lock, 1, memory_order_acquire)) return;
    uint64_t n = atomic_load_explicit(&u->n, memory_order_relaxed);
    uint64_t dn = n - u->flushed;
    u->flushed = n;
    atomic_store_explicit(&u->lock, 0, memory_order_release);
    if (dn) atomic_fetch_add_explicit(dest, dn, memory_order_relaxed);
}
