/* Real-symbol resolution. dlsym(RTLD_NEXT) finds the runtime when the
 * program linked it; when the runtime was loaded by an RTLD_LOCAL dlopen
 * (every Python extension module) it is not in the global scope, so the
 * fallback asks the already loaded library itself, by the sonames in the
 * runtime's descriptor (RTLD_NOLOAD: never loads). Either way the library
 * the entry point lies in is pinned (below). */
#include "preload/shim.h"

#include <dlfcn.h>
#include <stddef.h>

static _Atomic(aoe_dlsym_fn) g_real_dlsym;

/* Called by the dlsym wrapper while a sanitizer runtime initialises (before
 * its shadow memory exists): no instrumentation. */
__attribute__((no_sanitize("address", "undefined"))) aoe_dlsym_fn aoe_real_dlsym_fn(void)
{
    aoe_dlsym_fn f = atomic_load_explicit(&g_real_dlsym, memory_order_acquire);
    if (f) return f;
    /* glibc >= 2.34 exports dlsym@GLIBC_2.34 from libc; older programs (and
     * libdl.so.2) use dlsym@GLIBC_2.2.5. Either is the real one. */
    f = (aoe_dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (!f) f = (aoe_dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    if (!f) f = (aoe_dlsym_fn)dlvsym(RTLD_DEFAULT, "dlsym", "GLIBC_2.34");
    if (!f) f = (aoe_dlsym_fn)dlvsym(RTLD_DEFAULT, "dlsym", "GLIBC_2.2.5");
    atomic_store_explicit(&g_real_dlsym, f, memory_order_release);
    return f;
}

void *aoe_real_dlsym(void *handle, const char *name)
{
    aoe_dlsym_fn f = aoe_real_dlsym_fn();
    return f ? f(handle, name) : NULL;
}

static _Atomic(void *) g_pinned; /* the last object pinned: most lookups are in it */

/* The shim caches each real entry point, and builds variant programs on a
 * thread of its own: a program that dlcloses the runtime (a plugin host
 * unloading a plugin) and opens it again would leave both pointing at
 * unmapped code, and the shim would never see the reloaded runtime's calls.
 * RTLD_NODELETE keeps the object loaded once the shim took an entry point
 * from it, as if the program had linked it; NOLOAD never loads anything. */
static void *pinned(void *p)
{
    Dl_info info;
    if (!p || !dladdr(p, &info) || !info.dli_fname || !info.dli_fbase ||
        atomic_load_explicit(&g_pinned, memory_order_relaxed) == info.dli_fbase)
        return p;
    void *h = dlopen(info.dli_fname, RTLD_NOLOAD | RTLD_NODELETE | RTLD_LAZY);
    if (h) {
        dlclose(h); /* the flag stays; the reference NOLOAD took goes */
        atomic_store_explicit(&g_pinned, info.dli_fbase, memory_order_relaxed);
    }
    return p;
}

void *aoe_real_sym(const aoe_runtime *rt, const char *name)
{
    void *p = aoe_real_dlsym(RTLD_NEXT, name);
    if (p) return pinned(p);
    for (const char *const *so = rt->sonames; so && *so; so++) {
        void *h = dlopen(*so, RTLD_NOLOAD | RTLD_LAZY);
        if (!h) continue;
        p = aoe_real_dlsym(h, name);
        dlclose(h);
        if (p) return pinned(p);
    }
    return NULL;
}
