/* The launch core's seqlock shape cache (launch/shape_cache.h): hits only
 * for the shape stored, and readers running beside a writer never see a torn
 * entry (an operator returned for sizes stored with another operator). */
#include "launch/shape_cache.h"

#ifdef AOE_TEST_LITE /* the ThreadSanitizer build */
#include "tests/unit/test_lite.h"
#else
#include <criterion/criterion.h>
#endif
#include <pthread.h>
#include <stdint.h>

struct aoe_op {
    int id;
};

static struct aoe_op g_ops[64];
static int g_q1, g_q2;

Test(launch_cache, empty_misses)
{
    aoe_shape_cache c = {0};
    size_t g[3] = {64, 1, 1};
    uint32_t v = 0;
    cr_assert_null(aoe_shape_find(&c, &v, &g_q1, 1, g, NULL));
}

Test(launch_cache, hits_only_the_stored_shape)
{
    aoe_shape_cache c = {0};
    size_t g[3] = {1024, 512, 1}, l[3] = {16, 8, 1};
    uint32_t v = 3, v4 = 4;
    aoe_shape_store(&c, v, &g_q1, 2, g, l, &g_ops[1]);
    cr_assert_eq(atomic_load(&c.tag), aoe_shape_tag(3, 2, 1));
    cr_assert_eq(aoe_shape_find(&c, &v, &g_q1, 2, g, l), &g_ops[1]);
    cr_assert_eq(atomic_load(&c.seq) & 1, 0, "sequence left odd");
    size_t g2[3] = {1024, 256, 1}, l2[3] = {16, 4, 1};
    cr_assert_null(aoe_shape_find(&c, &v, &g_q2, 2, g, l), "another queue");
    cr_assert_null(aoe_shape_find(&c, &v, &g_q1, 2, g2, l), "another global size");
    cr_assert_null(aoe_shape_find(&c, &v, &g_q1, 2, g, l2), "another local size");
    cr_assert_null(aoe_shape_find(&c, &v4, &g_q1, 2, g, l), "shape version");
    cr_assert_null(aoe_shape_find(&c, &v, &g_q1, 2, g, NULL), "no local size given");
    cr_assert_null(aoe_shape_find(&c, &v, &g_q1, 1, g, l), "dimensions");
    /* only the first dim sizes count */
    size_t g3[3] = {1024, 512, 99}, l3[3] = {16, 8, 77};
    cr_assert_eq(aoe_shape_find(&c, &v, &g_q1, 2, g3, l3), &g_ops[1]);
    /* a new shape replaces the old one */
    aoe_shape_store(&c, v, &g_q2, 1, g2, NULL, &g_ops[2]);
    cr_assert_eq(aoe_shape_find(&c, &v, &g_q2, 1, g2, NULL), &g_ops[2]);
    cr_assert_null(aoe_shape_find(&c, &v, &g_q1, 2, g, l));
}

Test(launch_cache, store_skipped_while_another_writer_holds_it)
{
    aoe_shape_cache c = {0};
    size_t g[3] = {8, 1, 1};
    uint32_t v = 1;
    aoe_shape_store(&c, v, &g_q1, 1, g, NULL, &g_ops[1]);
    atomic_store(&c.writer, 1);
    size_t g2[3] = {16, 1, 1};
    aoe_shape_store(&c, v, &g_q1, 1, g2, NULL, &g_ops[2]);
    cr_assert_null(aoe_shape_find(&c, &v, &g_q1, 1, g2, NULL));
    cr_assert_eq(aoe_shape_find(&c, &v, &g_q1, 1, g, NULL), &g_ops[1]);
    /* a reader never takes an entry while the sequence is odd */
    atomic_store(&c.seq, atomic_load(&c.seq) + 1);
    cr_assert_null(aoe_shape_find(&c, &v, &g_q1, 1, g, NULL));
}

/* Entry i: every field derived from i, so a mix of two entries cannot match
 * entry i's full shape and name another operator. */
static void shape_of(unsigned i, uint32_t *version, size_t g[3], size_t l[3])
{
    *version = i * 7u + 1;
    for (int d = 0; d < 3; d++) {
        g[d] = (size_t)i * 1000003u + (size_t)d * 17u + 1;
        l[d] = ((size_t)i ^ 0x5a5au) * 31u + (size_t)d;
    }
}

#define ENTRIES 2
static atomic_int g_stop;
static aoe_shape_cache g_shared;

static void *writer(void *arg)
{
    (void)arg;
    for (unsigned n = 0; !atomic_load_explicit(&g_stop, memory_order_relaxed); n++) {
        unsigned i = n % ENTRIES;
        uint32_t version;
        size_t g[3], l[3];
        shape_of(i, &version, g, l);
        aoe_shape_store(&g_shared, version, &g_q1, 3, g, l, &g_ops[i]);
    }
    return NULL;
}

typedef struct {
    unsigned seed;
    long hits, torn;
} reader_result;

static void *reader(void *arg)
{
    reader_result *r = arg;
    for (long n = 0; n < 3000000; n++) {
        r->seed = r->seed * 1103515245u + 12345u;
        unsigned i = (r->seed >> 8) % ENTRIES;
        uint32_t version;
        size_t g[3], l[3];
        shape_of(i, &version, g, l);
        struct aoe_op *op = aoe_shape_find(&g_shared, &version, &g_q1, 3, g, l);
        if (!op) continue;
        r->hits++;
        if (op != &g_ops[i]) r->torn++;
    }
    return NULL;
}

Test(launch_cache, readers_beside_a_writer_never_see_a_torn_entry, .timeout = 120)
{
    enum { READERS = 3 };
    pthread_t w, rd[READERS];
    reader_result res[READERS];
    atomic_store(&g_stop, 0);
    cr_assert_eq(pthread_create(&w, NULL, writer, NULL), 0);
    for (int t = 0; t < READERS; t++) {
        res[t] = (reader_result){.seed = 77u + (unsigned)t};
        cr_assert_eq(pthread_create(&rd[t], NULL, reader, &res[t]), 0);
    }
    for (int t = 0; t < READERS; t++) pthread_join(rd[t], NULL);
    atomic_store(&g_stop, 1);
    pthread_join(w, NULL);
    long hits = 0;
    for (int t = 0; t < READERS; t++) {
        cr_assert_eq(res[t].torn, 0, "reader %d: %ld torn entries", t, res[t].torn);
        hits += res[t].hits;
    }
    /* the writer's last entry is found by a final read */
    unsigned last_ok = 0;
    for (unsigned i = 0; i < ENTRIES; i++) {
        uint32_t version;
        size_t g[3], l[3];
        shape_of(i, &version, g, l);
        struct aoe_op *op = aoe_shape_find(&g_shared, &version, &g_q1, 3, g, l);
        if (op) last_ok += op == &g_ops[i];
    }
    cr_assert_eq(last_ok, 1, "exactly one entry cached at rest");
    cr_log_info("hits %ld", hits);
}
