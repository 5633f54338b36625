/* The dlsym wrapper: programs that dlopen the runtime and look its functions
 * up by hand would otherwise bypass the shim. An unversioned definition in a
 * preloaded object satisfies both dlsym@GLIBC_2.2.5 and dlsym@GLIBC_2.34
 * references; the real one is found with dlvsym (real_sym.c). */
#include "preload/shim.h"

#include <dlfcn.h>
#include <stddef.h>

/* glibc resolves RTLD_NEXT and RTLD_DEFAULT relative to the object its dlsym
 * returns to, so every lookup the shim does not alter must reach glibc by a
 * tail call: a call from here would make them relative to the shim. Forced
 * whatever the build's optimisation level (the tests check the result). */
#if defined(__clang__)
#define AOE_SIBCALL_FN
#define AOE_TAIL_CALL __attribute__((musttail))
#else
#define AOE_SIBCALL_FN __attribute__((optimize("O2", "no-omit-frame-pointer")))
#define AOE_TAIL_CALL
#endif

/* p lies in the shim itself. */
static int in_shim(const void *p)
{
    Dl_info a, b;
    return dladdr(p, &a) && dladdr((const void *)&in_shim, &b) && a.dli_fbase == b.dli_fbase;
}

/* Every lookup passes here: the runtime is found by name prefix first
 * (preload/runtime_match.c: a few byte compares, uninstrumented, since the
 * sanitizer runtimes look their interceptors' targets up with dlsym before
 * their shadow memory exists), so clock_gettime, close... never reach a
 * runtime's instrumented table. */
__attribute__((visibility("default"))) AOE_SIBCALL_FN AOE_UNINSTRUMENTED void *
dlsym(void *handle, const char *name)
{
    aoe_dlsym_fn real = aoe_real_dlsym_fn();
    if (!real) return NULL;
    /* RTLD_NEXT is glibc's own lookup for every name: the next definition
     * after the caller is what interposers and sanitizer runtimes ask for. */
    const aoe_runtime *rt = handle == RTLD_NEXT ? NULL : aoe_runtime_for_symbol(name);
    void *wrapper = rt && rt->wrapper_for ? rt->wrapper_for(name) : NULL;
    if (!wrapper) AOE_TAIL_CALL return real(handle, name);
    /* A handle's lookup does not depend on the caller, and RTLD_DEFAULT's
     * global scope holds the shim's own definitions of the wrapped names. */
    void *p = real(handle, name);
    if (!p) return p;
    void *r = rt->real_for ? rt->real_for(name) : NULL;
    /* Only hand out the wrapper for the runtime's own function (the ICD
     * loader's). A vendor library looked up by the loader itself keeps its
     * real entry points, or the loader would call back into the shim. */
    if (r && p == r) return wrapper;
    /* The lookup found the shim's own definition (its wrapper, or a
     * versioned entry: hooks/cublas_internal.h), through RTLD_DEFAULT or a
     * dlopen(NULL) handle. It stands for the runtime's function, and is
     * handed out only when the runtime has that function, loaded anywhere
     * (a plugin's own dependency counts, as it does for the plugin's
     * lookups): else NULL, as the program would get without the shim. A
     * feature probe must not find a wrapper with nothing behind it. */
    if (wrapper == p || in_shim(p)) {
        if (r) return p;
        real(RTLD_NEXT, name); /* fails: dlerror() says the symbol is undefined */
        return NULL;
    }
    return p;
}
