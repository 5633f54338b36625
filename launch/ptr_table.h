/* A lock-free-read map from a runtime handle (pointer) to a record pointer:
 * open addressing over a fixed array, writers serialised by a mutex, readers
 * use loads only (no locks, no allocation) unless writers keep changing the
 * table under them. Deleted slots become tombstones and are reused by later
 * inserts, so a slot can hold another key by the time a reader that matched
 * its key loads its value: a table-wide sequence count (a seqlock, odd while
 * a writer changes which key a slot holds) makes the reader look again. */
#ifndef AOE_PTR_TABLE_H
#define AOE_PTR_TABLE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    _Atomic uintptr_t key; /* 0 empty, 1 tombstone */
    _Atomic(void *) val;
} aoe_ptr_slot;

typedef struct {
    aoe_ptr_slot *slots;
    size_t mask;               /* capacity - 1 (a power of two) */
    _Atomic unsigned long gen; /* odd while a writer moves keys */
    pthread_mutex_t lock;
} aoe_ptr_table;

#define AOE_PTR_TABLE_INIT(storage)                                                                \
    {                                                                                              \
        (storage), sizeof(storage) / sizeof((storage)[0]) - 1, 0, PTHREAD_MUTEX_INITIALIZER        \
    }

static inline size_t aoe_ptr_hash(uintptr_t k)
{
    uint64_t x = (uint64_t)k;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (size_t)x;
}

/* One probe; the result holds only if no writer moved a key meanwhile. */
static inline void *aoe_ptr_probe(const aoe_ptr_table *t, uintptr_t key)
{
    size_t i = aoe_ptr_hash(key) & t->mask;
    for (size_t n = 0; n <= t->mask; n++, i = (i + 1) & t->mask) {
        uintptr_t k = atomic_load_explicit(&t->slots[i].key, memory_order_acquire);
        if (k == key) return atomic_load_explicit(&t->slots[i].val, memory_order_acquire);
        if (k == 0) return NULL;
    }
    return NULL;
}

/* One seqlock-checked probe: 1 with the record in *v, or 0 when a writer
 * moved a key meanwhile. The probe's acquire loads keep the second read of
 * the count after them. */
static inline int aoe_ptr_try(aoe_ptr_table *t, uintptr_t key, void **v)
{
    unsigned long g = atomic_load_explicit(&t->gen, memory_order_acquire);
    *v = aoe_ptr_probe(t, key);
    return !(g & 1) && atomic_load_explicit(&t->gen, memory_order_relaxed) == g;
}

/* The lookup again, for a reader a writer overtook: a few more tries, then
 * under the writers' lock (a bounded wait instead of spinning). */
void *aoe_ptr_find_slow(aoe_ptr_table *t, uintptr_t key);

/* Lock-free lookup: the record for key, or NULL. */
static inline void *aoe_ptr_find(aoe_ptr_table *t, const void *keyp)
{
    uintptr_t key = (uintptr_t)keyp;
    void *v;
    if (key < 2) return NULL;
    return aoe_ptr_try(t, key, &v) ? v : aoe_ptr_find_slow(t, key);
}

/* Inserts or replaces; returns 0, or -1 when the table is full. */
int aoe_ptr_insert(aoe_ptr_table *t, const void *key, void *val);
/* Removes key; returns the record it held, or NULL. */
void *aoe_ptr_remove(aoe_ptr_table *t, const void *key);
/* In a forked child: the lock may have been held by a thread that is gone. */
void aoe_ptr_table_atfork_child(aoe_ptr_table *t);

#endif
