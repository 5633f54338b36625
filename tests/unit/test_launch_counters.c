/* The launch core's per-kernel launch counters (launch/counters.h): the
 * owner thread's plain counts, other threads' shared adds and the flushes
 * into the operator lose nothing, also with flushes running beside them. */
#include "launch/counters.h"
#include "launch/op_table.h"

#ifdef AOE_TEST_LITE /* the ThreadSanitizer build */
#include "tests/unit/test_lite.h"
#else
#include <criterion/criterion.h>
#endif
#include <pthread.h>
#include <stdint.h>

static int g_rd[8]; /* stand-ins for threads' read nodes */

Test(launch_counters, owner_counts_and_flushes)
{
    aoe_op op = {0};
    aoe_counts c = {.op = NULL};
    aoe_counts_switch(&c, &op);
    for (int i = 0; i < 1000; i++) aoe_counts_launch(&c, &g_rd[0], i % 4 == 0);
    cr_assert_eq(atomic_load(&c.owner), &g_rd[0], "the first counting thread owns");
    cr_assert_eq(atomic_load(&c.shared), 0, "the owner never adds to shared");
    cr_assert_eq(atomic_load(&op.launches), 0, "nothing before a flush");
    aoe_counts_flush(&c);
    cr_assert_eq(atomic_load(&op.launches), 1000);
    cr_assert_eq(atomic_load(&op.tuned_launches), 250);
    aoe_counts_flush(&c); /* nothing counted twice */
    cr_assert_eq(atomic_load(&op.launches), 1000);
    aoe_counts_launch(&c, &g_rd[1], 1); /* another thread */
    aoe_counts_launch(&c, NULL, 0);     /* no read node: never the owner */
    cr_assert_eq(atomic_load(&c.shared), (1ull << 32) | 2u);
    aoe_counts_flush(&c);
    cr_assert_eq(atomic_load(&op.launches), 1002);
    cr_assert_eq(atomic_load(&op.tuned_launches), 251);
}

Test(launch_counters, switch_flushes_into_the_previous_operator)
{
    aoe_op a = {0}, b = {0};
    aoe_counts c = {.op = NULL};
    aoe_counts_launch(&c, &g_rd[0], 0); /* no operator yet: kept */
    aoe_counts_switch(&c, &a);
    aoe_counts_launch(&c, &g_rd[0], 1);
    aoe_counts_switch(&c, &a); /* same operator: nothing happens */
    cr_assert_eq(atomic_load(&a.launches), 0);
    aoe_counts_switch(&c, &b);
    cr_assert_eq(atomic_load(&a.launches), 2);
    cr_assert_eq(atomic_load(&a.tuned_launches), 1);
    aoe_counts_launch(&c, &g_rd[0], 0);
    aoe_counts_flush(&c);
    cr_assert_eq(atomic_load(&b.launches), 1);
    cr_assert_eq(atomic_load(&a.launches), 2);
}

Test(launch_counters, shared_half_flushed_before_it_overflows)
{
    aoe_op op = {0};
    aoe_counts c = {.op = NULL};
    aoe_counts_switch(&c, &op);
    aoe_counts_launch(&c, &g_rd[0], 0);
    atomic_store(&c.shared, (1ull << 31) - 1); /* as if 2^31 - 1 launches of others */
    aoe_counts_launch(&c, &g_rd[1], 0);
    cr_assert_eq(atomic_load(&c.shared), 1ull << 31, "below 2^31 before the add: kept");
    aoe_counts_launch(&c, &g_rd[1], 1);
    cr_assert_eq(atomic_load(&c.shared), 0, "flushed once the low half reached 2^31");
    cr_assert_eq(atomic_load(&op.launches), 1 + (1ull << 31) + 1);
    cr_assert_eq(atomic_load(&op.tuned_launches), 1);
}

Test(launch_counters, untuned_counts_flush_once_named)
{
    aoe_untuned_counts u = {.dest = NULL};
    atomic_uint_least64_t dest = 0;
    for (int i = 0; i < 5; i++) aoe_untuned_count(&u);
    aoe_untuned_flush(&u); /* no destination yet: kept */
    atomic_store(&u.dest, &dest);
    aoe_untuned_flush(&u);
    cr_assert_eq(atomic_load(&dest), 5);
    aoe_untuned_count(&u);
    aoe_untuned_flush(&u);
    aoe_untuned_flush(&u);
    cr_assert_eq(atomic_load(&dest), 6);
}

#define THREADS 4
#define PER_THREAD 200000
static aoe_op g_op;
static aoe_counts g_c;
static atomic_int g_started, g_done;

static void *counting(void *arg)
{
    int t = (int)(intptr_t)arg;
    atomic_fetch_add(&g_started, 1);
    while (atomic_load(&g_started) < THREADS) {
    }
    for (int i = 0; i < PER_THREAD; i++) aoe_counts_launch(&g_c, &g_rd[t], i % 3 == 0);
    atomic_fetch_add(&g_done, 1);
    return NULL;
}

static void *flushing(void *arg)
{
    (void)arg;
    while (atomic_load(&g_done) < THREADS) aoe_counts_flush(&g_c);
    return NULL;
}

Test(launch_counters, threads_lose_no_count, .timeout = 120)
{
    pthread_t th[THREADS], fl;
    aoe_counts_switch(&g_c, &g_op);
    cr_assert_eq(pthread_create(&fl, NULL, flushing, NULL), 0);
    for (int t = 0; t < THREADS; t++)
        cr_assert_eq(pthread_create(&th[t], NULL, counting, (void *)(intptr_t)t), 0);
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    pthread_join(fl, NULL);
    aoe_counts_flush(&g_c);
    const void *owner = atomic_load(&g_c.owner);
    int owned = 0;
    for (int t = 0; t < THREADS; t++) owned += owner == &g_rd[t];
    cr_assert_eq(owned, 1, "one thread owns the counters");
    uint64_t tuned_per = (PER_THREAD + 2) / 3;
    cr_assert_eq(atomic_load(&g_op.launches), (uint64_t)THREADS * PER_THREAD);
    cr_assert_eq(atomic_load(&g_op.tuned_launches), (uint64_t)THREADS * tuned_per);
}
