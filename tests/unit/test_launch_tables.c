/* The launch core's lock-free tables: the handle table (launch/ptr_table.h)
 * and the operator table (launch/op_table.h), alone and with several
 * threads inserting, looking up and removing at once. */
#include "launch/host.h"
#include "launch/op_table.h"
#include "launch/ptr_table.h"

#ifdef AOE_TEST_LITE /* the ThreadSanitizer build */
#include "tests/unit/test_lite.h"
#else
#include <criterion/criterion.h>
#endif
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

/* Handles are pointers; values encode their key, so a lookup that returns
 * another key's value (or a torn slot) is seen. */
static void *handle(uintptr_t i)
{
    return (void *)(0x10000 + i * 64);
}
static void *value_of(const void *h)
{
    return (void *)((uintptr_t)h ^ 0xabcdef00u);
}

Test(launch_tables, ptr_insert_find_replace_remove)
{
    static aoe_ptr_slot slots[16];
    aoe_ptr_table t = AOE_PTR_TABLE_INIT(slots);
    cr_assert_null(aoe_ptr_find(&t, handle(1)));
    cr_assert_null(aoe_ptr_find(&t, NULL), "0 and 1 are never keys");
    cr_assert_eq(aoe_ptr_insert(&t, NULL, value_of(0)), -1);
    cr_assert_eq(aoe_ptr_insert(&t, (void *)1, value_of(0)), -1);
    for (uintptr_t i = 0; i < 16; i++)
        cr_assert_eq(aoe_ptr_insert(&t, handle(i), value_of(handle(i))), 0);
    cr_assert_eq(aoe_ptr_insert(&t, handle(16), value_of(handle(16))), -1, "full");
    for (uintptr_t i = 0; i < 16; i++)
        cr_assert_eq(aoe_ptr_find(&t, handle(i)), value_of(handle(i)));
    cr_assert_null(aoe_ptr_find(&t, handle(16)), "a full table still ends a probe");
    /* a handle value reused by the runtime: replaced in place */
    cr_assert_eq(aoe_ptr_insert(&t, handle(3), handle(99)), 0);
    cr_assert_eq(aoe_ptr_find(&t, handle(3)), handle(99));
    cr_assert_eq(aoe_ptr_remove(&t, handle(3)), handle(99));
    cr_assert_null(aoe_ptr_find(&t, handle(3)));
    cr_assert_null(aoe_ptr_remove(&t, handle(3)), "removed once");
    for (uintptr_t i = 0; i < 16; i++)
        if (i != 3) cr_assert_eq(aoe_ptr_find(&t, handle(i)), value_of(handle(i)));
    /* the freed slot is used again */
    cr_assert_eq(aoe_ptr_insert(&t, handle(16), value_of(handle(16))), 0);
    cr_assert_eq(aoe_ptr_find(&t, handle(16)), value_of(handle(16)));
}

Test(launch_tables, ptr_churn_leaves_no_tombstones_behind)
{
    static aoe_ptr_slot slots[64];
    aoe_ptr_table t = AOE_PTR_TABLE_INIT(slots);
    /* far more inserts and removes than slots: a table filling up with
     * tombstones would refuse inserts */
    for (uintptr_t i = 0; i < 20000; i++) {
        cr_assert_eq(aoe_ptr_insert(&t, handle(i), value_of(handle(i))), 0, "insert %zu",
                     (size_t)i);
        if (i >= 8) cr_assert_eq(aoe_ptr_remove(&t, handle(i - 8)), value_of(handle(i - 8)));
    }
    for (uintptr_t i = 20000 - 8; i < 20000; i++)
        cr_assert_eq(aoe_ptr_find(&t, handle(i)), value_of(handle(i)));
}

#define PT_THREADS 4
#define PT_KEYS 256 /* per thread */
static aoe_ptr_slot g_slots[4096];
static aoe_ptr_table g_table = AOE_PTR_TABLE_INIT(g_slots);
static atomic_long g_bad;

/* Each thread owns a range of keys (inserted, checked, removed, again) and
 * looks up every other thread's keys: a value found is always its key's. */
static void *ptr_worker(void *arg)
{
    uintptr_t t = (uintptr_t)arg;
    unsigned seed = 1234u + (unsigned)t;
    for (int round = 0; round < 40; round++) {
        for (uintptr_t k = 0; k < PT_KEYS; k++) {
            void *h = handle(t * PT_KEYS + k);
            if (aoe_ptr_insert(&g_table, h, value_of(h))) atomic_fetch_add(&g_bad, 1);
        }
        for (int n = 0; n < 2000; n++) {
            seed = seed * 1103515245u + 12345u;
            void *h = handle((seed >> 4) % (PT_THREADS * PT_KEYS));
            void *v = aoe_ptr_find(&g_table, h);
            if (v && v != value_of(h)) atomic_fetch_add(&g_bad, 1);
        }
        for (uintptr_t k = 0; k < PT_KEYS; k++) {
            void *h = handle(t * PT_KEYS + k);
            if (aoe_ptr_find(&g_table, h) != value_of(h)) atomic_fetch_add(&g_bad, 1);
            if (k % 2 == (uintptr_t)round % 2 && aoe_ptr_remove(&g_table, h) != value_of(h))
                atomic_fetch_add(&g_bad, 1);
        }
        for (uintptr_t k = 0; k < PT_KEYS; k++) {
            void *h = handle(t * PT_KEYS + k);
            void *want = k % 2 == (uintptr_t)round % 2 ? NULL : value_of(h);
            if (aoe_ptr_find(&g_table, h) != want) atomic_fetch_add(&g_bad, 1);
            if (want) aoe_ptr_remove(&g_table, h);
        }
    }
    return NULL;
}

Test(launch_tables, ptr_threads_insert_find_remove, .timeout = 120)
{
    pthread_t th[PT_THREADS];
    for (uintptr_t t = 0; t < PT_THREADS; t++)
        cr_assert_eq(pthread_create(&th[t], NULL, ptr_worker, (void *)t), 0);
    for (int t = 0; t < PT_THREADS; t++) pthread_join(th[t], NULL);
    cr_assert_eq(atomic_load(&g_bad), 0, "%ld wrong results", atomic_load(&g_bad));
    for (uintptr_t i = 0; i < PT_THREADS * PT_KEYS; i++)
        cr_assert_null(aoe_ptr_find(&g_table, handle(i)));
}

/* A small table where slots change keys all the time: four handles with the
 * same home slot, two writers inserting and removing their own two, two
 * readers looking all four up. A reader that matched
 * a key and then loaded the value of the key that took the slot over returned
 * another key's record (seen in CI as "1 wrong results" above; this makes it
 * hundreds per run without the sequence check). */
#define RU_OPS 1000000
static aoe_ptr_slot g_ru_slots[8];
static aoe_ptr_table g_ru = AOE_PTR_TABLE_INIT(g_ru_slots);
static atomic_long g_ru_bad, g_ru_found;
static atomic_int g_ru_writers;
static void *g_ru_keys[4];

/* Four handles that hash to one slot: each takes over the others' slots. */
static void ru_pick_keys(void)
{
    size_t home = aoe_ptr_hash((uintptr_t)handle(0)) & g_ru.mask;
    int n = 0;
    for (uintptr_t i = 0; n < 4; i++)
        if ((aoe_ptr_hash((uintptr_t)handle(i)) & g_ru.mask) == home) g_ru_keys[n++] = handle(i);
}

static void *ru_writer(void *arg)
{
    uintptr_t first = 2 * (uintptr_t)arg;
    for (long n = 0; n < RU_OPS; n++) {
        void *h = g_ru_keys[first + (uintptr_t)(n & 1)];
        if (aoe_ptr_insert(&g_ru, h, value_of(h)) || aoe_ptr_remove(&g_ru, h) != value_of(h))
            atomic_fetch_add(&g_ru_bad, 1);
    }
    atomic_fetch_sub(&g_ru_writers, 1);
    return NULL;
}

static void *ru_reader(void *arg)
{
    unsigned seed = 99u + (unsigned)(uintptr_t)arg;
    while (atomic_load(&g_ru_writers) > 0) {
        seed = seed * 1103515245u + 12345u;
        void *h = g_ru_keys[(seed >> 8) % 4];
        void *v = aoe_ptr_find(&g_ru, h);
        if (v && v != value_of(h)) atomic_fetch_add(&g_ru_bad, 1);
        if (v) atomic_fetch_add(&g_ru_found, 1);
    }
    return NULL;
}

Test(launch_tables, ptr_slot_taken_over_mid_lookup, .timeout = 120)
{
    pthread_t w[2], r[2];
    ru_pick_keys();
    atomic_store(&g_ru_writers, 2);
    for (uintptr_t i = 0; i < 2; i++) {
        cr_assert_eq(pthread_create(&r[i], NULL, ru_reader, (void *)i), 0);
        cr_assert_eq(pthread_create(&w[i], NULL, ru_writer, (void *)i), 0);
    }
    for (int i = 0; i < 2; i++) pthread_join(w[i], NULL);
    for (int i = 0; i < 2; i++) pthread_join(r[i], NULL);
    cr_assert_eq(atomic_load(&g_ru_bad), 0, "%ld wrong results", atomic_load(&g_ru_bad));
    /* the readers did meet the keys (the check above was exercised) */
    cr_assert_gt(atomic_load(&g_ru_found), 0);
    for (int i = 0; i < 4; i++) cr_assert_null(aoe_ptr_find(&g_ru, g_ru_keys[i]));
}

static aoe_key key_of(uint64_t i)
{
    return (aoe_key){.hi = i * 0x9e3779b97f4a7c15ull, .lo = i ^ 0x1234};
}

Test(launch_tables, op_get_or_create_find_publish)
{
    aoe_key k = key_of(424242);
    cr_assert_null(aoe_op_find(&k));
    int created = 0;
    aoe_op *op = aoe_op_get_or_create(&k, "kern", "fp", &created);
    cr_assert_not_null(op);
    cr_assert_eq(created, 1);
    cr_assert_str_eq(op->kernel_name, "kern");
    cr_assert_str_eq(op->fingerprint, "fp");
    cr_assert_eq(aoe_op_get_or_create(&k, "other", "fp", &created), op);
    cr_assert_eq(created, 0);
    cr_assert_eq(aoe_op_find(&k), op);
    /* publishing: a serial per entry; the loser of a race frees its entry */
    aoe_policy_entry *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    cr_assert_eq(aoe_op_publish(op, NULL, a), 1);
    cr_assert_eq(atomic_load(&op->policy), a);
    cr_assert_eq(aoe_op_publish(op, NULL, b), 0, "published over an entry it did not see");
    aoe_policy_entry *c = calloc(1, sizeof *c);
    uint64_t sa = a->serial;
    cr_assert_eq(aoe_op_publish(op, a, c), 1);
    cr_assert_gt(c->serial, sa);
    free(a); /* no host installed: retired entries are kept (the caller's) */
}

#define OP_THREADS 4
#define OP_KEYS 500
static aoe_op *g_seen[OP_THREADS][OP_KEYS];
static atomic_int g_created;

static void *op_worker(void *arg)
{
    uintptr_t t = (uintptr_t)arg;
    for (int k = 0; k < OP_KEYS; k++) {
        int i = t % 2 ? OP_KEYS - 1 - k : k; /* meet the others from both ends */
        aoe_key key = key_of(1000 + (uint64_t)i);
        int created = 0;
        g_seen[t][i] = aoe_op_get_or_create(&key, "k", "fp", &created);
        if (created) atomic_fetch_add(&g_created, 1);
        if (aoe_op_find(&key) != g_seen[t][i]) g_seen[t][i] = NULL;
    }
    return NULL;
}

static void count_visit(aoe_op *op, void *ctx)
{
    (void)op;
    ++*(int *)ctx;
}

Test(launch_tables, op_threads_create_each_key_once, .timeout = 120)
{
    int before = 0, after = 0;
    aoe_op_foreach(count_visit, &before);
    pthread_t th[OP_THREADS];
    for (uintptr_t t = 0; t < OP_THREADS; t++)
        cr_assert_eq(pthread_create(&th[t], NULL, op_worker, (void *)t), 0);
    for (int t = 0; t < OP_THREADS; t++) pthread_join(th[t], NULL);
    cr_assert_eq(atomic_load(&g_created), OP_KEYS, "each key created exactly once");
    for (int i = 0; i < OP_KEYS; i++) {
        cr_assert_not_null(g_seen[0][i]);
        for (int t = 1; t < OP_THREADS; t++)
            cr_assert_eq(g_seen[t][i], g_seen[0][i], "key %d: threads got different operators", i);
    }
    aoe_op_foreach(count_visit, &after);
    cr_assert_eq(after - before, OP_KEYS);
}

/* Readers load the policy and read its fields while writers replace it:
 * every entry a reader sees is whole (fields derived from its serial). The
 * host's retire keeps entries until the threads are joined. */
static aoe_op *g_pop;
static atomic_int g_pub_stop;
static void *g_retired[100000];
static atomic_int g_nretired;

static void keep(void *p)
{
    int i = atomic_fetch_add(&g_nretired, 1);
    if (i < (int)(sizeof g_retired / sizeof g_retired[0])) g_retired[i] = p;
}

static void *publisher(void *arg)
{
    (void)arg;
    for (int n = 0; n < 5000; n++) {
        aoe_policy_entry *e = calloc(1, sizeof *e);
        if (!e) break;
        e->work_dim = 1;
        e->global[0] = (size_t)n * 3 + 1;
        e->local[0] = e->global[0] * 7;
        const aoe_policy_entry *cur = atomic_load_explicit(&g_pop->policy, memory_order_acquire);
        aoe_op_publish(g_pop, cur, e);
    }
    return NULL;
}

static void *policy_reader(void *arg)
{
    long *bad = arg;
    while (!atomic_load(&g_pub_stop)) {
        const aoe_policy_entry *p = atomic_load_explicit(&g_pop->policy, memory_order_acquire);
        if (p && (p->serial == 0 || p->local[0] != p->global[0] * 7)) ++*bad;
    }
    return NULL;
}

Test(launch_tables, op_publish_beside_readers, .timeout = 120)
{
    static const aoe_launch_host host = {.version = AOE_LAUNCH_HOST_VERSION, .retire = keep};
    aoe_launch_set_host(&host);
    aoe_key k = key_of(777777);
    int created = 0;
    g_pop = aoe_op_get_or_create(&k, "k", "fp", &created);
    cr_assert_not_null(g_pop);
    pthread_t pub[2], rd[2];
    long bad[2] = {0, 0};
    for (int i = 0; i < 2; i++)
        cr_assert_eq(pthread_create(&rd[i], NULL, policy_reader, &bad[i]), 0);
    for (int i = 0; i < 2; i++) cr_assert_eq(pthread_create(&pub[i], NULL, publisher, NULL), 0);
    for (int i = 0; i < 2; i++) pthread_join(pub[i], NULL);
    atomic_store(&g_pub_stop, 1);
    for (int i = 0; i < 2; i++) pthread_join(rd[i], NULL);
    cr_assert_eq(bad[0] + bad[1], 0, "torn or unpublished policy seen");
    int n = atomic_load(&g_nretired);
    /* every entry published but the current one was retired exactly once */
    const aoe_policy_entry *cur = atomic_load(&g_pop->policy);
    cr_assert_not_null(cur);
    for (int i = 0; i < n && i < (int)(sizeof g_retired / sizeof g_retired[0]); i++) {
        cr_assert_neq(g_retired[i], cur);
        free(g_retired[i]);
    }
    cr_assert_gt(n, 0);
    aoe_launch_set_host(NULL);
}
