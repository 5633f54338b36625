/* Reclamation of superseded policy entries (issue 12 item 20). A launch reads
 * a policy inside a read section: two stores to its own thread's counter, no
 * lock, atomic read-modify-write, syscall or allocation. A retired entry is
 * freed by the poller once every thread that was inside a section when it
 * was unpublished has left that section (the poller's membarrier orders the
 * readers' plain stores against its own loads). Where membarrier is missing
 * retired entries are kept, as before. */
#ifndef AOE_RECLAIM_H
#define AOE_RECLAIM_H

#include <stdatomic.h>
#include <stddef.h>

typedef struct aoe_rd_node {
    atomic_uint seq; /* odd: inside a read section */
    atomic_int used; /* owned by a live thread */
    struct aoe_rd_node *next;
    unsigned snap; /* poller only: seq when the grace period began */
} aoe_rd_node;

extern __thread aoe_rd_node *aoe_rd_self __attribute__((tls_model("initial-exec")));
aoe_rd_node *aoe_rd_register(void);

/* Enters a read section; NULL (no memory for the thread's node): read no
 * policy. Sections do not nest. */
static inline aoe_rd_node *aoe_rd_begin(void)
{
    aoe_rd_node *n = aoe_rd_self;
    if (__builtin_expect(!n, 0) && !(n = aoe_rd_register())) return NULL;
    unsigned s = atomic_load_explicit(&n->seq, memory_order_relaxed);
    atomic_store_explicit(&n->seq, s + 1, memory_order_release);
    atomic_signal_fence(memory_order_seq_cst); /* the CPU fence is the poller's membarrier */
    return n;
}

static inline void aoe_rd_end(aoe_rd_node *n)
{
    unsigned s = atomic_load_explicit(&n->seq, memory_order_relaxed);
    atomic_store_explicit(&n->seq, s + 1, memory_order_release);
}

/* Hands p (malloc'ed, no longer reachable for new readers) to free() once no
 * read section can still hold it. Any thread. */
void aoe_retire(void *p);
/* Poller: frees what a finished grace period allows, starts the next one. */
void aoe_reclaim(void);
/* Entries retired and not yet freed (tests, debug lines). */
unsigned long aoe_reclaim_pending(void);
void aoe_reclaim_atfork_child(void);

#endif
