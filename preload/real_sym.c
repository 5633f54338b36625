/* Real-symbol resolution. dlsym(RTLD_NEXT) finds the runtime when the
 * program linked it; when the runtime was loaded by an RTLD_LOCAL dlopen
 * (every Python extension module) it is not in the global scope, so the
 * fallback asks the already loaded library itself, by the sonames in the
 * runtime's descriptor (RTLD_NOLOAD: never loads). */
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

void *aoe_real_sym(const aoe_runtime *rt, const char *name)
{
    void *p = aoe_real_dlsym(RTLD_NEXT, name);
    if (p) return p;
    for (const char *const *so = rt->sonames; so && *so; so++) {
        void *h = dlopen(*so, RTLD_NOLOAD | RTLD_LAZY);
        if (!h) continue;
        p = aoe_real_dlsym(h, name);
        /* Drop the reference NOLOAD took: the program's own handle keeps it loaded. */
        dlclose(h);
        if (p) return p;
    }
    return NULL;
}
