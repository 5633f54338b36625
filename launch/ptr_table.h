/* A lock-free-read map from a runtime handle (pointer) to a record pointer:
 * open addressing over a fixed array, writers serialised by a mutex, readers
 * use acquire loads only (no locks, no allocation). Deleted slots become
 * tombstones and are reused by later inserts. */
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
    size_t mask; /* capacity - 1 (a power of two) */
    pthread_mutex_t lock;
} aoe_ptr_table;

#define AOE_PTR_TABLE_INIT(storage)                                                                \
    {                                                                                              \
        (storage), sizeof(storage) / sizeof((storage)[0]) - 1, PTHREAD_MUTEX_INITIALIZER           \
    }

static inline size_t aoe_ptr_hash(uintptr_t k)
{
    uint64_t x = (uint64_t)k;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (size_t)x;
}

/* Lock-free lookup: the record for key, or NULL. */
static inline void *aoe_ptr_find(const aoe_ptr_table *t, const void *keyp)
{
    uintptr_t key = (uintptr_t)keyp;
    if (key < 2) return NULL;
    size_t i = aoe_ptr_hash(key) & t->mask;
    for (size_t n = 0; n <= t->mask; n++, i = (i + 1) & t->mask) {
        uintptr_t k = atomic_load_explicit(&t->slots[i].key, memory_order_acquire);
        if (k == key) return atomic_load_explicit(&t->slots[i].val, memory_order_acquire);
        if (k == 0) return NULL;
    }
    return NULL;
}

/* Inserts or replaces; returns 0, or -1 when the table is full. */
int aoe_ptr_insert(aoe_ptr_table *t, const void *key, void *val);
/* Removes key; returns the record it held, or NULL. */
void *aoe_ptr_remove(aoe_ptr_table *t, const void *key);
/* In a forked child: the lock may have been held by a thread that is gone. */
void aoe_ptr_table_atfork_child(aoe_ptr_table *t);

#endif
