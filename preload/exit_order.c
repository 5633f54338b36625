/* Exit handlers run last-registered first, and glibc reuses the slots of
 * handlers already run, so an exit that has begun runs every handler
 * registered after the shim's before the shim's own. The shim's handler
 * stops the poller and waits for a variant build in flight; it must run
 * before any teardown a runtime registered (clang's function-local statics,
 * registered at the program's own build under PoCL, free the compiler's
 * file system). Re-registering it when the poller enters a build is too
 * late when the exit begins before that: the teardown has run and the build
 * starts on freed state (1 exit in ~1000 under load on PoCL). So once a
 * variant build has been requested (aoe_exit_order_arm) the shim's handler
 * is registered again at once and after every later registration: the
 * shim defines __cxa_atexit, through which atexit and C++ static
 * destructors register. Before that, registrations go straight to glibc. */
#include "preload/poller.h"
#include "preload/runtime.h"
#include "preload/shim.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>

typedef int (*cxa_atexit_fn)(void (*)(void *), void *, void *);

extern void *__dso_handle;

static atomic_int g_armed;

/* glibc's __cxa_atexit, looked up once (NULL until found). */
static AOE_UNINSTRUMENTED cxa_atexit_fn real_cxa_atexit(void)
{
    static _Atomic(cxa_atexit_fn) real;
    cxa_atexit_fn f = atomic_load_explicit(&real, memory_order_acquire);
    if (!f) {
        aoe_dlsym_fn dl = aoe_real_dlsym_fn();
        f = dl ? (cxa_atexit_fn)dl(RTLD_NEXT, "__cxa_atexit") : NULL;
        if (f) atomic_store_explicit(&real, f, memory_order_release);
    }
    return f;
}

int aoe_exit_register(void (*fn)(void *))
{
    cxa_atexit_fn real = real_cxa_atexit();
    return real ? real(fn, NULL, &__dso_handle) : -1;
}

void aoe_exit_order_arm(void)
{
    atomic_store_explicit(&g_armed, 1, memory_order_relaxed);
    aoe_shim_exit_rearm();
}

__attribute__((visibility("default"))) AOE_UNINSTRUMENTED int __cxa_atexit(void (*fn)(void *),
                                                                           void *arg, void *dso)
{
    cxa_atexit_fn real = real_cxa_atexit();
    if (!real) return -1;
    int rc = real(fn, arg, dso);
    if (rc == 0 && dso != &__dso_handle && atomic_load_explicit(&g_armed, memory_order_relaxed))
        aoe_shim_exit_rearm();
    return rc;
}
