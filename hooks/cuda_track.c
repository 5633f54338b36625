/* Modules, libraries, functions and kernels of the CUDA driver the shim saw
 * made: handle -> record maps (launch/ptr_table: lock-free reads). Records
 * come from fixed pools and are never freed, so a launch racing an unload
 * reads a valid record; beyond the pools, handles are not tracked (their
 * launches are then recorded at first sight as made outside the shim). */
#include "hooks/cuda_image.h"
#include "hooks/cuda_internal.h"
#include "hooks/cuda_nvinfo.h"
#include "hooks/cuda_tune.h"

#include "core/log.h"
#include "launch/ptr_table.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdatomic.h>

#define MAX_MODULES 4096
#define MAX_FUNCS 16384

static aoe_ptr_slot g_module_slots[2 * MAX_MODULES];
static aoe_ptr_table g_modules = AOE_PTR_TABLE_INIT(g_module_slots);
static aoe_ptr_slot g_func_slots[2 * MAX_FUNCS];
aoe_ptr_table aoe_cu_funcs = AOE_PTR_TABLE_INIT(g_func_slots);

static aoe_cu_module g_module_pool[MAX_MODULES];
static aoe_cu_func g_func_pool[MAX_FUNCS];
static atomic_int g_nmodules, g_nfuncs;
static atomic_int g_said_full;

static void full(const char *what)
{
    if (what[0] == 'm')
        aoe_shim_log_once(&g_said_full, AOE_LOG_WARN,
                          "more than %d CUDA modules: the kernels of later ones count as "
                          "precompiled (never tuned)",
                          MAX_MODULES);
    else
        aoe_shim_log_once(&g_said_full, AOE_LOG_WARN,
                          "more than %d CUDA functions: later ones run untouched and unlisted",
                          MAX_FUNCS);
}

/* The next record of a pool of max, or -1 when it is full. The count stops
 * at max: a full pool's callers (every later cuModuleGetFunction) would
 * otherwise push it on until it wrapped to a negative index. */
static int claim(atomic_int *count, int max)
{
    int i = atomic_load_explicit(count, memory_order_relaxed);
    do
        if (i >= max) return -1;
    while (!atomic_compare_exchange_weak_explicit(count, &i, i + 1, memory_order_relaxed,
                                                  memory_order_relaxed));
    return i;
}

/* Function records are never freed (a launch racing an unload reads a
 * valid one): the module's are only unmapped, their counts kept. */
static pthread_mutex_t g_func_lock = PTHREAD_MUTEX_INITIALIZER;

static void forget_functions(const void *module)
{
    pthread_mutex_lock(&g_func_lock);
    for (size_t i = 0; i <= aoe_cu_funcs.mask; i++) {
        uintptr_t k = atomic_load_explicit(&aoe_cu_funcs.slots[i].key, memory_order_acquire);
        aoe_cu_func *f = atomic_load_explicit(&aoe_cu_funcs.slots[i].val, memory_order_acquire);
        if (k < 2 || !f || f->owner != module) continue;
        aoe_untuned_flush(&f->untuned);
        aoe_ptr_remove(&aoe_cu_funcs, (const void *)k);
    }
    pthread_mutex_unlock(&g_func_lock);
}

void aoe_cu_track_module(const void *handle, const void *image, int kind)
{
    /* A handle value the shim knows, from a load without an unload between:
     * the driver destroyed that module with its context (cuCtxDestroy, a
     * primary context's reset) and reuses the value. Its functions go with
     * it; kept, they would take the new module's kernels for the old ones
     * (their programs, their tuned variants built in a destroyed context). */
    if (aoe_ptr_find(&g_modules, handle)) forget_functions(handle);

    int i = claim(&g_nmodules, MAX_MODULES);
    if (i < 0) {
        full("modules");
        return;
    }
    aoe_cu_module *m = &g_module_pool[i];
    const void *start = image;
    m->kind = image ? aoe_cu_image_measure(image, &start, &m->len) : kind;
    /* A fatbin's bytes are never read: NVRTC's output is a cubin or PTX,
     * and the CUDA runtime loads every fatbin of a program through these
     * calls (libtorch_cuda's run to hundreds of MB: seconds of hashing, and
     * pages lazy loading would never touch). */
    bool read = m->len && m->kind != AOE_CU_IMAGE_FATBIN;
    if (read) m->hash = aoe_cu_image_hash(start, m->len);
    if (read && aoe_nvrtc_image_program)
        m->program = aoe_nvrtc_image_program(start, m->len, m->hash, &m->image_kind);
    if (m->program) {
        m->origin = m->program->name ? m->program->name : "?";
        if (m->kind == AOE_CU_IMAGE_ELF) m->nvinfo = aoe_cu_nvinfo_read(start, m->len);
    }
    AOE_DEBUG("CUDA module %p: kind %d, %zu bytes, hash %016llx%s%s", handle, m->kind, m->len,
              (unsigned long long)m->hash, m->origin ? ", from NVRTC program " : "",
              m->origin ? m->origin : "");
    aoe_ptr_insert(&g_modules, handle, m);
}

/* Function records, created once per handle (a handle the driver reuses after
 * an unload gets a fresh one). */

static aoe_cu_func *new_func(const void *fn, const aoe_cu_module *mod, const void *owner,
                             int is_kernel)
{
    if ((uintptr_t)fn < 2) return NULL; /* no function (a launch the driver refuses): no key */
    int i = claim(&g_nfuncs, MAX_FUNCS);
    if (i < 0) {
        full("functions");
        return NULL;
    }
    aoe_cu_func *f = &g_func_pool[i];
    f->mod = mod;
    f->owner = owner;
    f->is_kernel = is_kernel;
    if (aoe_ptr_insert(&aoe_cu_funcs, fn, f)) return NULL;
    return f;
}

void aoe_cu_track_function(const void *fn, const void *owner, int is_kernel)
{
    pthread_mutex_lock(&g_func_lock);
    aoe_cu_func *f = aoe_ptr_find(&aoe_cu_funcs, fn);
    if (!f || f->owner != owner) new_func(fn, aoe_ptr_find(&g_modules, owner), owner, is_kernel);
    pthread_mutex_unlock(&g_func_lock);
}

void aoe_cu_track_kernel_function(const void *fn, const void *kernel)
{
    pthread_mutex_lock(&g_func_lock);
    aoe_cu_func *k = aoe_ptr_find(&aoe_cu_funcs, kernel);
    aoe_cu_func *f = aoe_ptr_find(&aoe_cu_funcs, fn);
    if (k && (!f || f->owner != k->owner)) new_func(fn, k->mod, k->owner, 0);
    pthread_mutex_unlock(&g_func_lock);
}

/* A launched function the shim never saw made: recorded now (first sight). */
aoe_cu_func *aoe_cu_find_or_add(const void *fn)
{
    if (atomic_load_explicit(&g_nfuncs, memory_order_relaxed) >= MAX_FUNCS) return NULL;
    pthread_mutex_lock(&g_func_lock);
    aoe_cu_func *f = aoe_ptr_find(&aoe_cu_funcs, fn);
    if (!f) f = new_func(fn, NULL, NULL, 0);
    pthread_mutex_unlock(&g_func_lock);
    return f;
}

void aoe_cu_untrack_module(const void *handle)
{
    forget_functions(handle);
    aoe_ptr_remove(&g_modules, handle);
}

void aoe_cu_flush_counts(void)
{
    int n = atomic_load(&g_nfuncs);
    for (int i = 0; i < n && i < MAX_FUNCS; i++) {
        aoe_untuned_flush(&g_func_pool[i].untuned);
        aoe_cu_tunable *t = atomic_load_explicit(&g_func_pool[i].tunable, memory_order_acquire);
        if (t) aoe_cu_tune_flush(t);
    }
    aoe_cu_graph_flush_counts();
}

void aoe_cu_track_atfork_child(void)
{
    pthread_mutex_init(&g_func_lock, NULL);
    /* a thread of the parent making a tuned function's shape is gone */
    int n = atomic_load(&g_nfuncs);
    for (int i = 0; i < n && i < MAX_FUNCS; i++) {
        aoe_cu_tunable *t = atomic_load_explicit(&g_func_pool[i].tunable, memory_order_acquire);
        if (t) atomic_store(&((aoe_cu_tuned *)t->launch)->slow_lock, 0);
    }
    aoe_ptr_table_atfork_child(&g_modules);
    aoe_ptr_table_atfork_child(&aoe_cu_funcs);
}
