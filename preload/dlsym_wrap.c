/* The dlsym wrapper: programs that dlopen the runtime and look its functions
 * up by hand would otherwise bypass the shim. An unversioned definition in a
 * preloaded object satisfies both dlsym@GLIBC_2.2.5 and dlsym@GLIBC_2.34
 * references; the real one is found with dlvsym (real_sym.c). */
#include "preload/shim.h"

#include <dlfcn.h>
#include <link.h>
#include <stddef.h>

/* RTLD_NEXT is relative to the caller: forwarding it would make it relative
 * to the shim. Search the objects loaded after the caller instead. */
static void *next_after(const void *caller, const char *name)
{
    Dl_info info;
    struct link_map *lm = NULL;
    if (!dladdr1(caller, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
        return aoe_real_dlsym(RTLD_DEFAULT, name);
    for (struct link_map *m = lm->l_next; m; m = m->l_next) {
        void *p = aoe_real_dlsym(m, name);
        if (!p) continue;
        Dl_info pi;
        struct link_map *owner = NULL;
        /* A handle's lookup also searches its dependencies: keep only a
         * definition from the object itself, as RTLD_NEXT would. */
        if (dladdr1(p, &pi, (void **)&owner, RTLD_DL_LINKMAP) && owner == m) return p;
    }
    return NULL;
}

__attribute__((visibility("default"))) void *dlsym(void *handle, const char *name)
{
    void *p;
    if (handle == RTLD_NEXT)
        p = next_after(__builtin_return_address(0), name);
    else
        p = aoe_real_dlsym(handle, name);
    /* Cheap prefix filter first: only runtime entry points are wrapped. */
    if (!p || name[0] != 'c' || name[1] != 'l') return p; /* NULL name: p is NULL */
    void *wrapper = aoe_hook_wrapper_for(name);
    if (!wrapper || wrapper == p) return p;
    /* Only hand out the wrapper for the runtime's own function (the ICD
     * loader's). A vendor library looked up by the loader itself keeps its
     * real entry points, or the loader would call back into the shim. */
    return p == aoe_hook_real_for(name) ? wrapper : p;
}
