/* Real-symbol resolution. dlsym(RTLD_NEXT) finds the runtime when the
 * program linked it; when the runtime was loaded by an RTLD_LOCAL dlopen
 * (every Python extension module) it is not in the global scope, so the
 * fallback asks the already loaded library itself, by the sonames in the
 * runtime's descriptor, then by any loaded object named like them but for
 * the version (RTLD_NOLOAD: never loads). Either way the library the entry
 * point lies in is pinned (below). */
#include "preload/shim.h"

#include <dlfcn.h>
#include <link.h>
#include <stddef.h>
#include <string.h>

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

/* name in the already loaded object `so` (a soname or a path), or NULL. */
static void *in_loaded(const char *so, const char *name)
{
    void *h = dlopen(so, RTLD_NOLOAD | RTLD_LAZY);
    if (!h) return NULL;
    void *p = aoe_real_dlsym(h, name);
    dlclose(h);
    return p;
}

/* Loaded objects named like one of the runtime's sonames but for the version
 * ("libcublas.so.12" where the descriptor says libcublas.so.13): their paths,
 * copied out, since dlopen must not run inside dl_iterate_phdr's lock. */
#define STEM_PATHS 4
struct stem_scan {
    const aoe_runtime *rt;
    int n;
    char path[STEM_PATHS][1024];
};

static int stem_visit(struct dl_phdr_info *info, size_t size, void *ctx)
{
    (void)size;
    struct stem_scan *s = ctx;
    const char *path = info->dlpi_name, *base = path ? strrchr(path, '/') : NULL;
    if (!path || !*path || s->n == STEM_PATHS) return s->n == STEM_PATHS;
    base = base ? base + 1 : path;
    for (const char *const *so = s->rt->sonames; *so; so++) {
        const char *ext = strstr(*so, ".so");
        size_t stem = ext ? (size_t)(ext - *so) + 3 : 0;
        if (stem && !strncmp(base, *so, stem) && (base[stem] == '\0' || base[stem] == '.') &&
            strlen(path) < sizeof s->path[0]) {
            memcpy(s->path[s->n++], path, strlen(path) + 1);
            break;
        }
    }
    return 0;
}

void *aoe_real_sym(const aoe_runtime *rt, const char *name)
{
    void *p = aoe_real_dlsym(RTLD_NEXT, name);
    if (p) return pinned(p);
    for (const char *const *so = rt->sonames; so && *so; so++)
        if ((p = in_loaded(*so, name))) return pinned(p);
    if (!rt->sonames) return NULL;
    /* Another major version than the descriptor names, loaded RTLD_LOCAL (a
     * CUDA 12 wheel): the program's linked calls still reach the wrappers,
     * which must find its library or fail every call. */
    struct stem_scan s = {.rt = rt, .n = 0};
    dl_iterate_phdr(stem_visit, &s);
    for (int i = 0; i < s.n; i++)
        if ((p = in_loaded(s.path[i], name))) return pinned(p);
    return NULL;
}
