/* Isolation: real worker processes that answer, crash, hang or exit. A crash
 * is reported with its signal and a backtrace naming the crashing function;
 * a hang is ended by the watchdog; the parent always survives. */
#include "tuner/isolate.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Replies to each request with the request plus one; crashes or hangs on 7 / 9. */
/* An unmapped address the optimiser cannot see through (it would warn). */
static volatile uintptr_t g_bad_address = 16;

__attribute__((noinline)) void planted_crash_site(volatile int *p)
{
    *p = 42;
}

static int serve(void *ctx, int fd)
{
    (void)ctx;
    int v;
    while (!aoe_read_full(fd, &v, sizeof v)) {
        if (v == 7) planted_crash_site((volatile int *)g_bad_address);
        if (v == 9)
            for (;;) pause();
        if (v == 11) return 3;       /* exits without answering */
        if (v == 13) raise(SIGKILL); /* killed from outside, as by the out-of-memory killer */
        v++;
        if (aoe_write_full(fd, &v, sizeof v)) break;
    }
    return 0;
}

Test(isolate, worker_answers_requests)
{
    char err[256];
    aoe_worker *w = aoe_worker_start(serve, NULL, err, sizeof err);
    cr_assert(w, "%s", err);
    for (int i = 0; i < 3; i++) {
        int v = i * 10, r = 0;
        cr_assert_eq(aoe_worker_call(w, &v, sizeof v, &r, sizeof r, 5, err, sizeof err), 0, "%s",
                     err);
        cr_assert_eq(r, v + 1);
    }
    cr_assert(aoe_worker_alive(w));
    aoe_worker_stop(w);
}

Test(isolate, crash_reports_signal_and_backtrace)
{
    char err[256], why[2048] = "";
    aoe_worker *w = aoe_worker_start(serve, NULL, err, sizeof err);
    cr_assert(w);
    pid_t pid = aoe_worker_pid(w);
    int v = 7, r;
    cr_assert_eq(aoe_worker_call(w, &v, sizeof v, &r, sizeof r, 10, why, sizeof why), -1);
    cr_assert(strstr(why, "crash: SIGSEGV") == why, "%s", why);
    cr_assert(strstr(why, "backtrace:"), "%s", why);
    cr_assert(strstr(why, "planted_crash_site"), "%s", why);
    cr_assert(strstr(why, "serve"), "%s", why);
    cr_assert(!aoe_worker_alive(w));
    cr_assert_eq(waitpid(pid, NULL, WNOHANG), -1, "the worker was reaped");
    /* A later call fails cleanly; the parent is unharmed. */
    cr_assert_eq(aoe_worker_call(w, &v, sizeof v, &r, sizeof r, 1, why, sizeof why), -1);
    aoe_worker_stop(w);
}

Test(isolate, watchdog_kills_a_hang)
{
    char err[256], why[2048] = "";
    aoe_worker *w = aoe_worker_start(serve, NULL, err, sizeof err);
    cr_assert(w);
    pid_t pid = aoe_worker_pid(w);
    int v = 9, r;
    cr_assert_eq(aoe_worker_call(w, &v, sizeof v, &r, sizeof r, 1, why, sizeof why), -1);
    cr_assert(strstr(why, "timeout: no result after 1 s") == why, "%s", why);
    cr_assert_eq(kill(pid, 0), -1, "the hung worker is gone");
    aoe_worker_stop(w);
    /* A fresh worker works after the failure. */
    w = aoe_worker_start(serve, NULL, err, sizeof err);
    v = 1;
    cr_assert_eq(aoe_worker_call(w, &v, sizeof v, &r, sizeof r, 5, why, sizeof why), 0, "%s", why);
    cr_assert_eq(r, 2);
    aoe_worker_stop(w);
}

Test(isolate, exit_without_answer_is_reported)
{
    char err[256], why[2048] = "";
    aoe_worker *w = aoe_worker_start(serve, NULL, err, sizeof err);
    int v = 11, r;
    cr_assert_eq(aoe_worker_call(w, &v, sizeof v, &r, sizeof r, 5, why, sizeof why), -1);
    cr_assert(strstr(why, "worker exited: status 3") == why, "%s", why);
    aoe_worker_stop(w);
}

/* Several threads of the worker crash at once (as a kernel's work-groups do
 * on PoCL's thread pool): the first crash is still reported with its
 * backtrace, not lost to a second thread killing the process meanwhile. */
static pthread_barrier_t crash_barrier;

static void *crash_thread(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&crash_barrier);
    planted_crash_site((volatile int *)g_bad_address);
    return NULL;
}

static int crash_in_threads(void *ctx, int fd)
{
    (void)ctx;
    int v;
    if (aoe_read_full(fd, &v, sizeof v)) return 1;
    pthread_t th[8];
    pthread_barrier_init(&crash_barrier, NULL, 8);
    for (int i = 0; i < 8; i++) pthread_create(&th[i], NULL, crash_thread, NULL);
    for (int i = 0; i < 8; i++) pthread_join(th[i], NULL);
    return 0;
}

Test(isolate, concurrent_crashes_keep_the_backtrace)
{
    for (int round = 0; round < 20; round++) {
        char err[256], why[2048] = "";
        aoe_worker *w = aoe_worker_start(crash_in_threads, NULL, err, sizeof err);
        cr_assert(w, "%s", err);
        int v = 1, r;
        cr_assert_eq(aoe_worker_call(w, &v, sizeof v, &r, sizeof r, 10, why, sizeof why), -1);
        cr_assert(strstr(why, "crash: SIGSEGV") == why, "round %d: %s", round, why);
        cr_assert(strstr(why, "planted_crash_site"), "round %d: %s", round, why);
        aoe_worker_stop(w);
    }
}

/* Executor contract v2: how a worker ended travels as a status code (the
 * runner and the spool decide by it), beside the reason for people. */
Test(isolate, failures_carry_their_status)
{
    static const struct {
        int request;
        aoe_exec_status status;
        const char *reason;
    } cases[] = {{7, AOE_EXEC_CRASH, "crash: SIGSEGV"},
                 {9, AOE_EXEC_TIMEOUT, "timeout: "},
                 {11, AOE_EXEC_WORKER_EXITED, "worker exited: status 3"},
                 {13, AOE_EXEC_KILLED, "killed: signal 9"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char err[256], why[2048] = "";
        aoe_worker *w = aoe_worker_start(serve, NULL, err, sizeof err);
        cr_assert(w, "%s", err);
        int v = 1, r;
        cr_assert_eq(aoe_worker_call(w, &v, sizeof v, &r, sizeof r, 5, why, sizeof why), 0);
        cr_assert_eq(aoe_worker_failure(w), AOE_EXEC_OK, "no failure yet");
        v = cases[i].request;
        cr_assert_eq(aoe_worker_call(w, &v, sizeof v, &r, sizeof r, 1, why, sizeof why), -1);
        cr_expect_eq(aoe_worker_failure(w), cases[i].status, "request %d: %s (status %s)", v, why,
                     aoe_exec_status_name(aoe_worker_failure(w)));
        cr_expect(strstr(why, cases[i].reason) == why, "request %d: %s", v, why);
        aoe_worker_stop(w);
    }
}
