/* A second runtime, for tests only: its descriptor, its one wrapper and
 * nothing else, compiled into the test build of the shim (aoe_hook_toy,
 * which adds it to the registry with AOE_EXTRA_RUNTIMES). It shows that a
 * runtime is its own files plus one list entry: the dlsym wrapper, the
 * real-symbol lookup, the call-site walk, the poller, the exit and fork all
 * reach it through the registry. The wrapper adds TOY_WRAPPED to the real
 * result and records what it saw (aoe_toy_stats). */
#include "core/log.h"
#include "preload/callsite.h"
#include "preload/poller.h"
#include "preload/runtime.h"
#include "preload/shim.h"
#include "tests/toyrt/toy_stats.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern const aoe_runtime aoe_runtime_toy;

typedef int (*toy_launch_fn)(int);
static _Atomic(void *) g_real_launch;
static atomic_int g_launches, g_builds, g_forks, g_build_pending, g_variant_builds;
static pthread_mutex_t g_site_lock = PTHREAD_MUTEX_INITIALIZER;
static char g_call_site[256];

static void *real_launch(void)
{
    void *p = atomic_load(&g_real_launch);
    if (!p) {
        p = aoe_real_sym(&aoe_runtime_toy, "toyLaunch");
        atomic_store(&g_real_launch, p);
    }
    return p;
}

__attribute__((visibility("default"))) int toyLaunch(int x)
{
    toy_launch_fn real = (toy_launch_fn)real_launch();
    if (!real) return -1;
    if (aoe_shim_init()) {
        if (x == TOY_REQUEST_BUILD) atomic_store(&g_build_pending, 1);
        aoe_poller_start();
        aoe_poller_wake();
    }
    atomic_fetch_add(&g_launches, 1);
    pthread_mutex_lock(&g_site_lock);
    aoe_callsite_describe(g_call_site, sizeof g_call_site);
    pthread_mutex_unlock(&g_site_lock);
    return real(x) + TOY_WRAPPED;
}

__attribute__((visibility("default"))) void aoe_toy_stats(toy_stats *out)
{
    out->launches = atomic_load(&g_launches);
    out->builds = atomic_load(&g_builds);
    out->forks = atomic_load(&g_forks);
    out->variant_builds = atomic_load(&g_variant_builds);
    pthread_mutex_lock(&g_site_lock);
    snprintf(out->call_site, sizeof out->call_site, "%s", g_call_site);
    pthread_mutex_unlock(&g_site_lock);
}

static void *wrapper_for(const char *name)
{
    return strcmp(name, "toyLaunch") ? NULL : (void *)&toyLaunch;
}

static void *real_for(const char *name)
{
    return strcmp(name, "toyLaunch") ? NULL : real_launch();
}

typedef int (*toy_int_fn)(void);

/* TOY_BUILD_AT_EXIT set: the requested build starts only once the exit has
 * begun (the toy compiler torn down, or the shim's exit handler run), the
 * window in which an exit handler the runtime registered after the shim's
 * could free the compiler under the build. */
static void build_requested(void)
{
    toy_int_fn torn = (toy_int_fn)aoe_real_sym(&aoe_runtime_toy, "toyTornDown");
    toy_int_fn build = (toy_int_fn)aoe_real_sym(&aoe_runtime_toy, "toyBuild");
    if (!torn || !build) return;
    if (getenv("TOY_BUILD_AT_EXIT"))
        for (int i = 0; i < 10000 && !torn() && !aoe_poller_stopping(); i++)
            nanosleep(&(struct timespec){0, 1000 * 1000}, NULL);
    if (!aoe_poller_runtime_enter()) return;
    build();
    atomic_fetch_add(&g_variant_builds, 1);
    aoe_poller_runtime_leave();
}

static void build_variants(void)
{
    atomic_fetch_add(&g_builds, 1);
    if (atomic_exchange(&g_build_pending, 0)) build_requested();
}

static void flush_counts(void)
{
    AOE_INFO("toy runtime: counts flushed (%d launches)", atomic_load(&g_launches));
}

static void atfork_child(void)
{
    atomic_fetch_add(&g_forks, 1);
    atomic_store(&g_launches, 0);
    pthread_mutex_init(&g_site_lock, NULL);
}

static const char *const sonames[] = {"libtoyrt.so.1", "libtoyrt.so", NULL};
static const aoe_runtime_prefix prefixes[] = {{"toy", 1}, {NULL, 0}};
/* toyRun calls toyLaunch: the call site is toyRun's caller. */
static const char *const skip_objects[] = {"libtoyrt.so", NULL};

const aoe_runtime aoe_runtime_toy = {
    .version = AOE_RUNTIME_VERSION,
    .name = "toy",
    .sonames = sonames,
    .prefixes = prefixes,
    .skip_objects = skip_objects,
    .wrapper_for = wrapper_for,
    .wrapper_for_version = NULL,
    .real_for = real_for,
    .build_variants = build_variants,
    .flush_counts = flush_counts,
    .atfork_child = atfork_child,
};
