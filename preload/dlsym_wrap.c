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

/* The sanitizer runtimes look their interceptors' targets up with dlsym
 * before their shadow memory exists: instrumented code here would fault. */
#define AOE_UNINSTRUMENTED __attribute__((no_sanitize("address", "undefined")))

/* Cheap prefix filter first: only runtime entry points ("cl" and a capital)
 * are wrapped; clock_gettime, close... never reach the instrumented table. */
AOE_UNINSTRUMENTED static int wrapped(const char *name)
{
    return name && name[0] == 'c' && name[1] == 'l' && name[2] >= 'A' && name[2] <= 'Z' &&
           aoe_hook_wrapper_for(name);
}

__attribute__((visibility("default"))) AOE_SIBCALL_FN AOE_UNINSTRUMENTED void *
dlsym(void *handle, const char *name)
{
    aoe_dlsym_fn real = aoe_real_dlsym_fn();
    if (!real) return NULL;
    /* RTLD_NEXT is glibc's own lookup for every name: the next definition
     * after the caller is what interposers and sanitizer runtimes ask for. */
    if (handle == RTLD_NEXT || !wrapped(name)) AOE_TAIL_CALL return real(handle, name);
    /* A handle's lookup does not depend on the caller, and RTLD_DEFAULT's
     * global scope holds the shim's own definitions of the wrapped names. */
    void *p = real(handle, name);
    void *wrapper = aoe_hook_wrapper_for(name);
    if (!p || wrapper == p) return p;
    /* Only hand out the wrapper for the runtime's own function (the ICD
     * loader's). A vendor library looked up by the loader itself keeps its
     * real entry points, or the loader would call back into the shim. */
    return p == aoe_hook_real_for(name) ? wrapper : p;
}
