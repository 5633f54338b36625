/* The launch (shape) cache of one kernel object: the shape of its last
 * launch and the operator that shape resolved to, so that a launch with the
 * same shape finds its operator without computing a key. A seqlock: readers
 * never write; one writer at a time (a try-lock: a second writer skips the
 * store). Every field is an atomic, relaxed or acquire/release (plain moves
 * on x86, no fences, which ThreadSanitizer cannot follow). Runtime-neutral:
 * OpenCL stores global and local sizes in a and b, CUDA will store grid and
 * block. Everything here is inline: it is the launch path's steady state. */
#ifndef AOE_LAUNCH_SHAPE_CACHE_H
#define AOE_LAUNCH_SHAPE_CACHE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct aoe_op;

#define AOE_SHAPE_DIMS 3

typedef struct {
    atomic_uint seq;           /* odd while the writer is inside */
    atomic_int writer;         /* try-lock of the one writer */
    atomic_uint_least64_t tag; /* aoe_shape_tag: what else the shape depends on */
    _Atomic(void *) queue;     /* queue or stream the launch went to */
    _Atomic(struct aoe_op *) op;
    atomic_size_t a[AOE_SHAPE_DIMS], b[AOE_SHAPE_DIMS];
} aoe_shape_cache;

/* The tag of a launch: the hook's argument shape version (bumped when an
 * argument's shape changes), the dimensions, and whether b was given. A
 * kernel object's launches are not concurrent with changes of its
 * arguments (the runtimes require it), so the version is a plain field. */
static inline uint64_t aoe_shape_tag(uint32_t shape_version, unsigned dim, int has_b)
{
    return (uint64_t)shape_version << 8 | (uint64_t)dim << 1 | (uint64_t)(has_b != 0);
}

static inline int aoe_shape_same(const atomic_size_t *c, const size_t *v, unsigned dim)
{
    for (unsigned d = 0; d < dim; d++)
        if (atomic_load_explicit(&c[d], memory_order_acquire) != v[d]) return 0;
    return 1;
}

/* Lock-free read: the cached operator when the tag (aoe_shape_tag of
 * *version, dim and b != NULL), queue and the first dim sizes of a (and of
 * b, unless b is NULL) match, else NULL. The acquire loads keep the second
 * read of the sequence after them. version is read where the tag is
 * compared, as the launch path always did (its generated code stays). */
static inline struct aoe_op *aoe_shape_find(aoe_shape_cache *c, const uint32_t *version,
                                            const void *queue, unsigned dim, const size_t *a,
                                            const size_t *b)
{
    unsigned s = atomic_load_explicit(&c->seq, memory_order_acquire);
    struct aoe_op *op = atomic_load_explicit(&c->op, memory_order_acquire);
    if ((s & 1) || !op ||
        atomic_load_explicit(&c->tag, memory_order_acquire) !=
            aoe_shape_tag(*version, dim, b != NULL) ||
        atomic_load_explicit(&c->queue, memory_order_acquire) != queue ||
        !aoe_shape_same(c->a, a, dim) || (b && !aoe_shape_same(c->b, b, dim)))
        return NULL;
    return atomic_load_explicit(&c->seq, memory_order_relaxed) == s ? op : NULL;
}

/* Stores a launch's shape and operator; skipped while another thread
 * stores. The release stores keep the odd sequence before every field. */
static inline void aoe_shape_store(aoe_shape_cache *c, uint32_t version, void *queue, unsigned dim,
                                   const size_t *a, const size_t *b, struct aoe_op *op)
{
    uint64_t tag = aoe_shape_tag(version, dim, b != NULL);
    if (atomic_exchange_explicit(&c->writer, 1, memory_order_acquire)) return;
    unsigned s = atomic_load_explicit(&c->seq, memory_order_relaxed);
    atomic_store_explicit(&c->seq, s + 1, memory_order_relaxed);
    atomic_store_explicit(&c->tag, tag, memory_order_release);
    atomic_store_explicit(&c->queue, queue, memory_order_release);
    for (unsigned d = 0; d < dim; d++) {
        atomic_store_explicit(&c->a[d], a[d], memory_order_release);
        if (b) atomic_store_explicit(&c->b[d], b[d], memory_order_release);
    }
    atomic_store_explicit(&c->op, op, memory_order_release);
    atomic_store_explicit(&c->seq, s + 2, memory_order_release);
    atomic_store_explicit(&c->writer, 0, memory_order_release);
}

#endif
