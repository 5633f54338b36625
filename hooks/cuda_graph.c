/* Graph replays (cuGraphLaunch and cuGraphLaunch_ptsz): passed through with
 * the caller's arguments, counted, never changed. The kernels inside a
 * graph were seen at their launches into the capture (listed then as
 * "graph capture"); a replay runs them again with no launch call the shim
 * could see or change, so replays are listed as not tunable: one entry,
 * "CUDA graph replays", with their count and the call site of the first.
 * Counting costs what an untuned launch costs: each thread counts into a
 * slot of its own (a thread-local pointer set at its first replay, slots
 * handed out in turn) with plain moves; no atomic read-modify-write, lock,
 * allocation or syscall per replay. Past SLOTS threads two threads may
 * share a slot and lose counts, as concurrent untuned launches of one
 * function may. */
#include "hooks/cuda_internal.h"

#include <pthread.h>

#define SLOTS 64
#define REPLAYS_NAME "CUDA graph replays"

typedef struct {
    _Alignas(64) aoe_untuned_counts c; /* a cache line each: threads do not share one */
} slot;

typedef CUresult (*graph_launch_fn)(CUgraphExec, CUstream);

static slot g_slots[SLOTS];
static unsigned g_next;        /* the next slot to hand out (g_lock) */
static aoe_not_tuned *g_entry; /* the replays' not-tuned entry (g_lock) */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread aoe_untuned_counts *t_slot __attribute__((tls_model("initial-exec")));

/* This thread's first replay: its slot (and, at the first replay of all,
 * the not-tuned entry every slot counts into). NULL: the shim is off. */
static aoe_untuned_counts *attach(void)
{
    if (!aoe_shim_init()) return NULL;
    pthread_mutex_lock(&g_lock);
    if (!g_entry) {
        char site[256];
        aoe_cu_callsite(site, sizeof site);
        g_entry = aoe_not_tuned_note(REPLAYS_NAME, AOE_NT_GRAPH_REPLAY, site);
        for (int i = 0; g_entry && i < SLOTS; i++)
            atomic_store_explicit(&g_slots[i].c.dest, &g_entry->launches, memory_order_release);
    }
    aoe_untuned_counts *c = &g_slots[g_next++ % SLOTS].c;
    pthread_mutex_unlock(&g_lock);
    t_slot = c;
    return c;
}

/* The slow path (the entry point not resolved yet, or this thread's first
 * replay), then the real call; entered by a tail call (see cuda_launch.c). */
static __attribute__((noinline, cold)) CUresult first_replay(int id, CUgraphExec g, CUstream s)
{
    graph_launch_fn real = (graph_launch_fn)aoe_cu_real(id);
    if (!real) return CUDA_ERROR_NOT_INITIALIZED;
    aoe_untuned_counts *c = t_slot ? t_slot : attach();
    if (c) aoe_untuned_count(c);
    return real(g, s);
}

#define RESOLVED(id)                                                                               \
    ((graph_launch_fn)atomic_load_explicit(&aoe_cu_real_ptr[AOE_CUF_##id], memory_order_relaxed))
#define WRAPPER(id, name)                                                                          \
    AOE_CU_EXPORT CUresult aoe_cu_w_##id(CUgraphExec g, CUstream s) __asm__(name);                 \
    AOE_CU_EXPORT CUresult aoe_cu_w_##id(CUgraphExec g, CUstream s)                                \
    {                                                                                              \
        graph_launch_fn real = RESOLVED(id);                                                       \
        aoe_untuned_counts *c = t_slot;                                                            \
        if (__builtin_expect(!real || !c, 0)) return first_replay(AOE_CUF_##id, g, s);             \
        aoe_untuned_count(c);                                                                      \
        return real(g, s);                                                                         \
    }

WRAPPER(GRAPH_LAUNCH, "cuGraphLaunch")
WRAPPER(GRAPH_LAUNCH_PT, "cuGraphLaunch_ptsz")

void aoe_cu_graph_flush_counts(void)
{
    for (int i = 0; i < SLOTS; i++) aoe_untuned_flush(&g_slots[i].c);
}

void aoe_cu_graph_atfork_child(void)
{
    pthread_mutex_init(&g_lock, NULL);
}
