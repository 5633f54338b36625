/* The run-queue wait of this process's threads (tuner/cpu_wait.c): the share
 * on synthetic samples (starved, fairly shared, unknown), and real samples:
 * a thread's CPU time is counted, also of a thread that is not the caller.
 * A really starved tuner is tests/integration/tune_starved.sh. */
#include "tuner/cpu_wait.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <time.h>

static aoe_cpu_sample at(double run_s, double wait_s)
{
    return (aoe_cpu_sample){(uint64_t)(run_s * 1e9), (uint64_t)(wait_s * 1e9)};
}

Test(cpu_wait, share_of_two_samples)
{
    aoe_cpu_sample a = at(10, 5);
    aoe_cpu_sample starved = at(10.04, 5.96), fair = at(10.5, 5.5), alone = at(10.95, 5.05);
    cr_assert_float_eq(aoe_cpu_wait_share(&a, &starved), 0.96, 1e-9);
    cr_assert(aoe_cpu_starved(aoe_cpu_wait_share(&a, &starved)));
    cr_assert_float_eq(aoe_cpu_wait_share(&a, &fair), 0.5, 1e-9);
    cr_assert_not(aoe_cpu_starved(aoe_cpu_wait_share(&a, &fair)));
    cr_assert_not(aoe_cpu_starved(aoe_cpu_wait_share(&a, &alone)));
    aoe_cpu_sample edge = at(10.2, 5.8); /* exactly the threshold */
    cr_assert(aoe_cpu_starved(aoe_cpu_wait_share(&a, &edge)));
}

Test(cpu_wait, unknown_shares_are_not_starved)
{
    aoe_cpu_sample a = at(10, 5);
    aoe_cpu_sample tiny = {a.run_ns + 100000, a.wait_ns + 900000};    /* 1 ms in all */
    aoe_cpu_sample ended = {a.run_ns - 1000, a.wait_ns + 1000000000}; /* a thread left */
    cr_assert_eq(aoe_cpu_wait_share(&a, &tiny), -1);
    cr_assert_eq(aoe_cpu_wait_share(&a, &ended), -1);
    cr_assert_not(aoe_cpu_starved(-1));
}

static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int spun, released;

/* Spins 0.2 s of its own CPU time, says so, and stays alive until released
 * (a thread that ended is no longer in /proc/self/task). */
static void *spinner(void *arg)
{
    (void)arg;
    double t0 = thread_cpu_s();
    while (thread_cpu_s() - t0 < 0.2) {
    }
    pthread_mutex_lock(&mu);
    spun = 1;
    pthread_cond_broadcast(&cv);
    while (!released) pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    return NULL;
}

Test(cpu_wait, another_threads_cpu_time_is_counted)
{
    aoe_cpu_sample before, after;
    cr_assert_eq(aoe_cpu_sample_now(&before), 0, "/proc/self/task/*/schedstat is not readable");
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, spinner, NULL), 0);
    pthread_mutex_lock(&mu);
    while (!spun) pthread_cond_wait(&cv, &mu); /* the caller sleeps meanwhile */
    pthread_mutex_unlock(&mu);
    cr_assert_eq(aoe_cpu_sample_now(&after), 0);
    pthread_mutex_lock(&mu);
    released = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    pthread_join(t, NULL);
    double run_s = 1e-9 * (double)(after.run_ns - before.run_ns);
    cr_expect(run_s >= 0.19 && run_s < 5, "run time %.3f s for 0.2 s of spinning", run_s);
    double share = aoe_cpu_wait_share(&before, &after);
    cr_expect(share >= 0 && share <= 1, "share %g", share);
}
