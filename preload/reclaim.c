/* See reclaim.h. One grace period at a time: entries retired meanwhile wait
 * for the next. */
#include "preload/reclaim.h"

#include "core/log.h"

#include <linux/membarrier.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

__thread aoe_rd_node *aoe_rd_self __attribute__((tls_model("initial-exec")));

typedef struct retired {
    struct retired *next;
    void *p;
} retired;

static _Atomic(aoe_rd_node *) g_nodes;
static pthread_once_t g_key_once = PTHREAD_ONCE_INIT;
static pthread_key_t g_key;
static int g_key_ok;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static retired *g_new;         /* retired, grace period not begun (g_lock) */
static retired *g_wait;        /* poller only: waiting for the grace period */
static atomic_ulong g_pending; /* both lists */
static int g_mb = -1;          /* poller only: membarrier usable (1), not (0), unknown */

/* Thread exit: the node goes to the next new thread (a launch from a later
 * destructor of this thread registers again). */
static void thread_gone(void *v)
{
    aoe_rd_node *n = v;
    if (aoe_rd_self == n) aoe_rd_self = NULL;
    atomic_store_explicit(&n->used, 0, memory_order_release);
}

static void make_key(void)
{
    g_key_ok = pthread_key_create(&g_key, thread_gone) == 0;
}

/* First read section of a thread: a node of a thread that ended, or a new
 * one (nodes are never freed: the poller scans them without a lock). */
aoe_rd_node *aoe_rd_register(void)
{
    pthread_once(&g_key_once, make_key);
    if (!g_key_ok) return NULL;
    aoe_rd_node *n;
    for (n = atomic_load_explicit(&g_nodes, memory_order_acquire); n; n = n->next) {
        int expect = 0;
        if (atomic_compare_exchange_strong(&n->used, &expect, 1)) break;
    }
    if (!n) {
        n = calloc(1, sizeof *n);
        if (!n) return NULL;
        atomic_init(&n->used, 1);
        n->next = atomic_load(&g_nodes);
        while (!atomic_compare_exchange_weak(&g_nodes, &n->next, n)) {
        }
    }
    if (pthread_setspecific(g_key, n)) {
        atomic_store(&n->used, 0);
        return NULL;
    }
    aoe_rd_self = n;
    return n;
}

void aoe_retire(void *p)
{
    if (!p) return;
    retired *r = malloc(sizeof *r);
    if (!r) return; /* kept for good: never freed early */
    r->p = p;
    pthread_mutex_lock(&g_lock);
    r->next = g_new;
    g_new = r;
    pthread_mutex_unlock(&g_lock);
    atomic_fetch_add(&g_pending, 1);
}

static int membarrier_ok(void)
{
    if (g_mb < 0)
        g_mb = syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
    return g_mb && syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0;
}

static unsigned long g_freed; /* poller only */

static void free_list(retired *r)
{
    unsigned long n = 0;
    for (retired *x = r; x; x = x->next) n++;
    g_freed += n;
    AOE_DEBUG("%lu superseded policies freed (%lu in all)", n, g_freed);
    while (r) {
        retired *next = r->next;
        free(r->p);
        free(r);
        atomic_fetch_sub(&g_pending, 1);
        r = next;
    }
}

/* 1 when every node inside a section at the snapshot has left it. */
static int grace_over(void)
{
    for (aoe_rd_node *n = atomic_load_explicit(&g_nodes, memory_order_acquire); n; n = n->next)
        if ((n->snap & 1) && atomic_load_explicit(&n->seq, memory_order_acquire) == n->snap)
            return 0;
    return 1;
}

void aoe_reclaim(void)
{
    if (g_wait) {
        if (!grace_over()) return;
        free_list(g_wait);
        g_wait = NULL;
    }
    pthread_mutex_lock(&g_lock);
    retired *batch = g_new;
    g_new = NULL;
    pthread_mutex_unlock(&g_lock);
    if (!batch) return;
    /* The entries are unpublished; after the barrier every reader either
     * shows its section in its node or loads the new pointers. */
    if (!membarrier_ok()) {
        retired *last = batch;
        while (last->next) last = last->next;
        pthread_mutex_lock(&g_lock);
        last->next = g_new;
        g_new = batch;
        pthread_mutex_unlock(&g_lock);
        return;
    }
    for (aoe_rd_node *n = atomic_load_explicit(&g_nodes, memory_order_acquire); n; n = n->next)
        n->snap = atomic_load_explicit(&n->seq, memory_order_acquire);
    g_wait = batch;
    if (grace_over()) {
        free_list(g_wait);
        g_wait = NULL;
    }
}

unsigned long aoe_reclaim_pending(void)
{
    return atomic_load(&g_pending);
}

/* Only the forking thread lives on: no other section is open. */
void aoe_reclaim_atfork_child(void)
{
    pthread_mutex_init(&g_lock, NULL);
    for (aoe_rd_node *n = atomic_load(&g_nodes); n; n = n->next) {
        if (n == aoe_rd_self) continue;
        unsigned s = atomic_load(&n->seq);
        atomic_store(&n->seq, s + (s & 1));
        atomic_store(&n->used, 0);
        n->snap = 0;
    }
    g_mb = -1; /* registration is per process */
}
