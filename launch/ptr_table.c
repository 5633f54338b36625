#include "launch/ptr_table.h"

/* Seqlock writer side (the lock is held): readers that overlap see the count
 * change and look again. The slot stores that follow are release stores, so a
 * reader that loads one (acquire) also sees the odd count; no fence (which
 * ThreadSanitizer cannot follow), as in launch/shape_cache.h. */
static void moves_begin(aoe_ptr_table *t)
{
    unsigned long g = atomic_load_explicit(&t->gen, memory_order_relaxed);
    atomic_store_explicit(&t->gen, g + 1, memory_order_relaxed);
}

static void moves_end(aoe_ptr_table *t)
{
    unsigned long g = atomic_load_explicit(&t->gen, memory_order_relaxed);
    atomic_store_explicit(&t->gen, g + 1, memory_order_release);
}

void *aoe_ptr_find_slow(aoe_ptr_table *t, uintptr_t key)
{
    void *v;
    for (int tries = 0; tries < 3; tries++)
        if (aoe_ptr_try(t, key, &v)) return v;
    pthread_mutex_lock(&t->lock);
    v = aoe_ptr_probe(t, key);
    pthread_mutex_unlock(&t->lock);
    return v;
}

int aoe_ptr_insert(aoe_ptr_table *t, const void *keyp, void *val)
{
    uintptr_t key = (uintptr_t)keyp;
    if (key < 2) return -1;
    pthread_mutex_lock(&t->lock);
    size_t i = aoe_ptr_hash(key) & t->mask, reuse = (size_t)-1;
    int rc = -1;
    for (size_t n = 0; n <= t->mask; n++, i = (i + 1) & t->mask) {
        uintptr_t k = atomic_load_explicit(&t->slots[i].key, memory_order_relaxed);
        if (k == key) { /* a handle value reused by the runtime: replace */
            atomic_store_explicit(&t->slots[i].val, val, memory_order_release);
            rc = 0;
            goto out;
        }
        if (k == 1 && reuse == (size_t)-1) reuse = i;
        if (k == 0) {
            if (reuse == (size_t)-1) reuse = i;
            break;
        }
    }
    if (reuse != (size_t)-1) {
        /* Value first, then the key with release: a reader that sees the key sees the value. */
        moves_begin(t);
        atomic_store_explicit(&t->slots[reuse].val, val, memory_order_release);
        atomic_store_explicit(&t->slots[reuse].key, key, memory_order_release);
        moves_end(t);
        rc = 0;
    }
out:
    pthread_mutex_unlock(&t->lock);
    return rc;
}

void *aoe_ptr_remove(aoe_ptr_table *t, const void *keyp)
{
    uintptr_t key = (uintptr_t)keyp;
    void *val = NULL;
    if (key < 2) return NULL;
    pthread_mutex_lock(&t->lock);
    size_t i = aoe_ptr_hash(key) & t->mask;
    for (size_t n = 0; n <= t->mask; n++, i = (i + 1) & t->mask) {
        uintptr_t k = atomic_load_explicit(&t->slots[i].key, memory_order_relaxed);
        if (k == key) {
            val = atomic_load_explicit(&t->slots[i].val, memory_order_relaxed);
            /* A slot followed by an empty one can be emptied (no probe for
             * another key goes past it), and so can tombstones before it:
             * keeps churned tables (buffers) from filling with tombstones. */
            size_t next = (i + 1) & t->mask;
            moves_begin(t);
            if (atomic_load_explicit(&t->slots[next].key, memory_order_relaxed) == 0) {
                size_t j = i;
                do {
                    atomic_store_explicit(&t->slots[j].key, 0, memory_order_release);
                    j = (j - 1) & t->mask;
                } while (atomic_load_explicit(&t->slots[j].key, memory_order_relaxed) == 1);
            } else {
                atomic_store_explicit(&t->slots[i].key, 1, memory_order_release);
            }
            moves_end(t);
            break;
        }
        if (k == 0) break;
    }
    pthread_mutex_unlock(&t->lock);
    return val;
}

void aoe_ptr_table_atfork_child(aoe_ptr_table *t)
{
    pthread_mutex_init(&t->lock, NULL);
    /* a writer that was mid-change is gone: its slot is whole either way */
    unsigned long g = atomic_load_explicit(&t->gen, memory_order_relaxed);
    atomic_store_explicit(&t->gen, g + (g & 1), memory_order_relaxed);
}
