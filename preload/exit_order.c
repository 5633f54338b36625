/* Exit handlers run last-registered first. The shim's handler waits for a
 * variant build in flight, so it must run before any teardown the runtime
 * registers, including teardown registered by that very build (a compiler's
 * function-local statics first used by it: clang's under PoCL), which the
 * re-registration before each runtime call cannot follow. So the shim
 * defines __cxa_atexit (atexit and C++ static destructors register through
 * it): while the poller is inside a runtime call, every registration is
 * followed by the shim's own handler once more. Any other registration goes
 * straight to glibc's. */
#include "preload/poller.h"
#include "preload/runtime.h"
#include "preload/shim.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>

typedef int (*cxa_atexit_fn)(void (*)(void *), void *, void *);

extern void *__dso_handle;

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

__attribute__((visibility("default"))) AOE_UNINSTRUMENTED int __cxa_atexit(void (*fn)(void *),
                                                                           void *arg, void *dso)
{
    cxa_atexit_fn real = real_cxa_atexit();
    if (!real) return -1;
    int rc = real(fn, arg, dso);
    if (rc == 0 && atomic_load_explicit(&aoe_poller_in_runtime_flag, memory_order_relaxed))
        aoe_shim_exit_rearm();
    return rc;
}
