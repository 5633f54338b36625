/* The background thread: every AOE_POLL_MS it reads the bank's generation
 * counter; when it moved, it reloads the policies of the operators this
 * process has seen and publishes the new ones (the next launch switches),
 * builds variant programs off the launching threads, and rewrites the result
 * file. Launches themselves never make a syscall to learn about results. */
#include "core/log.h"
#include "core/log_memo.h"
#include "jobs/job.h"
#include "launch/libcall.h"
#include "launch/op_table.h"
#include "preload/policy_check.h"
#include "preload/poller.h"
#include "preload/reclaim.h"
#include "preload/result_file.h"
#include "preload/shim.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cond = PTHREAD_COND_INITIALIZER;
static pthread_t g_thread;
static int g_started, g_stop, g_wake;
static int g_in_runtime;      /* the poller is inside a runtime call (g_lock) */
static atomic_int g_stopping; /* g_stop, readable without the lock */
static _Atomic(aoe_bank *) g_bank;
static pthread_mutex_t g_bank_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int g_active_logged;
static aoe_log_memo g_bank_memo;
static uint64_t g_last_gen;

aoe_bank *aoe_shim_bank(void)
{
    aoe_bank *b = atomic_load_explicit(&g_bank, memory_order_acquire);
    if (b) return b;
    pthread_mutex_lock(&g_bank_lock);
    b = atomic_load_explicit(&g_bank, memory_order_relaxed);
    if (!b) {
        char err[512];
        struct stat st;
        /* A bank that does not exist yet is normal (the tuner creates it). */
        if (stat(aoe_shim.bank_path, &st) == 0) {
            b = aoe_bank_open(aoe_shim.bank_path, AOE_BANK_READONLY, err, sizeof err);
            /* EAGAIN: not created yet, or a tuner is creating it now (say
             * nothing); a real error once per distinct message. */
            if (!b && errno != EAGAIN)
                aoe_log_changed(&g_bank_memo, AOE_LOG_WARN, "bank %s: %s (running untuned)",
                                aoe_shim.bank_path, err);
            else if (b)
                atomic_store_explicit(&g_bank, b, memory_order_release);
        }
    }
    pthread_mutex_unlock(&g_bank_lock);
    return b;
}

typedef struct {
    aoe_bank *bank;
    int changed;
    int active; /* of which change what the program runs (not its default) */
} reload_ctx;

static int same_record(const aoe_record *a, const aoe_record *b)
{
    return a->timestamp == b->timestamp && a->tuned_us == b->tuned_us &&
           !memcmp(&a->policy, &b->policy, sizeof a->policy);
}

/* Publishes op's policy from the bank when it is new or changed. Called by
 * the poller and, at an operator's first sight, by a launching thread inside
 * its read section: the current entry cannot be freed under either. */
int aoe_op_refresh(aoe_op *op, aoe_bank *bank)
{
    /* First sight still running: it refreshes. The shape's acquire also
     * makes the family fields, written before it, visible here. */
    const aoe_launch_shape *shape = atomic_load_explicit(&op->shape, memory_order_acquire);
    if (!shape) return 0;
    aoe_record rec;
    memset(&rec, 0, sizeof rec);
    if (aoe_bank_get(bank, op->fingerprint, &op->key, &rec) != 1) {
        /* keys across runs: the family's policy, where it is correct for any
         * scalar values the family key ignores (jobs/job.h) */
        if (!op->family_set || aoe_bank_get(bank, op->fingerprint, &op->family, &rec) != 1 ||
            !aoe_family_policy_ok(&rec.policy, op->family_scalars))
            return 0;
    } else if (op->family_op && !aoe_family_policy_ok(&rec.policy, op->family_scalars)) {
        return 0; /* its own key is a family key: the same rule */
    }
    const aoe_policy_entry *cur = atomic_load_explicit(&op->policy, memory_order_acquire);
    if (cur && same_record(&cur->rec, &rec)) return 0;
    /* A library call's record is checked by its hook against each call. */
    aoe_policy_entry *e =
        op->libcall ? aoe_policy_from_library_record(&rec) : aoe_policy_from_record(&rec);
    if (!e) return 0;
    char why[256];
    if (!op->libcall && aoe_policy_check(e, shape, why, sizeof why)) {
        int first = atomic_fetch_add(&op->refused, 1) == 0;
        if (atomic_exchange(&op->refused_ts, rec.timestamp) != rec.timestamp || first)
            AOE_WARN("bank record for %s refused: %s; the program's own launch runs",
                     op->kernel_name, why);
        free(e);
        return 0;
    }
    if (!aoe_op_publish(op, cur, e)) return 0;
    if (!cur) op->active_after_s = aoe_result_elapsed();
    return 1;
}

static void reload_one(aoe_op *op, void *vctx)
{
    reload_ctx *ctx = vctx;
    if (!aoe_op_refresh(op, ctx->bank)) return;
    ctx->changed++;
    const aoe_policy_entry *p = atomic_load_explicit(&op->policy, memory_order_acquire);
    if (p && !aoe_policy_is_default(p)) ctx->active++;
}

static void build_variants(const aoe_runtime *rt, void *ctx)
{
    (void)ctx;
    if (rt->build_variants) rt->build_variants();
}

static void tick(void)
{
    aoe_bank *bank = aoe_shim_bank();
    if (bank) {
        uint64_t gen = aoe_bank_generation(bank);
        if (gen != g_last_gen) {
            g_last_gen = gen;
            reload_ctx ctx = {bank, 0, 0};
            aoe_op_foreach(reload_one, &ctx);
            if (ctx.active) aoe_shim_note_active();
            if (ctx.changed) {
                AOE_DEBUG("%d new policies from the bank", ctx.changed);
                aoe_result_write();
            }
        }
    }
    aoe_runtime_each(build_variants, NULL);
    aoe_reclaim();
}

void aoe_shim_note_active(void)
{
    aoe_shim_log_once(&g_active_logged, AOE_LOG_INFO, "tuned policies active (bank %s)",
                      aoe_shim.bank_path);
}

static void *poller_main(void *arg)
{
    (void)arg;
    long ms = aoe_shim.cfg.num[AOE_CFG_POLL_MS];
    pthread_mutex_lock(&g_lock);
    while (!g_stop) {
        pthread_mutex_unlock(&g_lock);
        tick();
        pthread_mutex_lock(&g_lock);
        if (g_stop) break;
        if (!g_wake) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_sec += ms / 1000;
            ts.tv_nsec += (ms % 1000) * 1000000L;
            if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&g_cond, &g_lock, &ts);
        }
        g_wake = 0;
    }
    pthread_mutex_unlock(&g_lock);
    return NULL;
}

void aoe_poller_start(void)
{
    pthread_mutex_lock(&g_lock);
    if (!g_started && !g_stop) {
        /* The program's signals keep going to the program's threads. */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        if (pthread_create(&g_thread, NULL, poller_main, NULL) == 0) g_started = 1;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    pthread_mutex_unlock(&g_lock);
}

/* Called when a variant build is requested: the exit handler is kept ahead
 * of the runtime's teardown from now on (exit_order.c). */
void aoe_poller_wake(void)
{
    aoe_exit_order_arm();
    pthread_mutex_lock(&g_lock);
    g_wake = 1;
    pthread_cond_signal(&g_cond);
    pthread_mutex_unlock(&g_lock);
}

int aoe_poller_runtime_enter(void)
{
    /* The exit handler must run before any teardown the runtime registered
     * so far (exit handlers run last-registered first): re-registered here,
     * it finds the runtime intact and this call finished. */
    aoe_shim_exit_rearm();
    pthread_mutex_lock(&g_lock);
    int ok = !g_stop;
    if (ok) g_in_runtime = 1;
    pthread_mutex_unlock(&g_lock);
    return ok;
}

void aoe_poller_runtime_leave(void)
{
    pthread_mutex_lock(&g_lock);
    g_in_runtime = 0;
    pthread_mutex_unlock(&g_lock);
}

int aoe_poller_stopping(void)
{
    return atomic_load_explicit(&g_stopping, memory_order_relaxed);
}

/* At exit (before the runtime's own teardown, see aoe_poller_runtime_enter):
 * no new build is queued or started. A build already inside the runtime is
 * let finish, since abandoning it lets it run on while the runtime's
 * destructors free its compiler's state (a crash in the build thread, seen
 * with PoCL); then the poller returns without another runtime call. */
void aoe_poller_stop(void)
{
    atomic_store(&g_stopping, 1);
    pthread_mutex_lock(&g_lock);
    int started = g_started;
    g_stop = 1;
    pthread_cond_signal(&g_cond);
    pthread_mutex_unlock(&g_lock);
    if (started && !pthread_equal(pthread_self(), g_thread)) pthread_join(g_thread, NULL);
    g_started = 0;
}

void aoe_poller_atfork_child(void)
{
    /* The thread did not survive the fork; the bank handle must not be used
     * (LMDB): abandon it, never close it. */
    pthread_mutex_init(&g_lock, NULL);
    pthread_cond_init(&g_cond, NULL);
    pthread_mutex_init(&g_bank_lock, NULL);
    g_started = g_stop = g_wake = g_in_runtime = 0;
    atomic_store(&g_stopping, 0);
    g_last_gen = 0;
    atomic_store(&g_bank, NULL);
    atomic_store(&g_bank_memo, 0);
}
