/* dlsym/dlvsym lookups made from the object that includes this header: the
 * caller matters (RTLD_NEXT and RTLD_DEFAULT are relative to it). Each result
 * is printed as owner file + offset (equal across runs despite ASLR) with
 * dlerror()'s text, so runs with and without the shim can be compared. */
#ifndef DLSYM_LOOKUPS_H
#define DLSYM_LOOKUPS_H
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static void lookup_print(const char *where, const char *how, const char *sym, void *p)
{
    const char *err = dlerror();
    Dl_info di;
    if (!p) {
        printf("%s %s %s -> NULL | %s\n", where, how, sym, err ? err : "(no error)");
    } else if (dladdr(p, &di) && di.dli_fname) {
        const char *base = strrchr(di.dli_fname, '/');
        printf("%s %s %s -> %s+%#lx | %s\n", where, how, sym, base ? base + 1 : di.dli_fname,
               (unsigned long)((char *)p - (char *)di.dli_fbase), err ? err : "(no error)");
    } else {
        printf("%s %s %s -> unknown object | %s\n", where, how, sym, err ? err : "(no error)");
    }
}

/* Symbols: libc's, the allocator's, one defined only in a library loaded
 * after the caller, one defined in two libraries, one in the plugin's local
 * dependency, and none at all. */
static void lookups(const char *where)
{
    static const char *const syms[] = {"mmap",
                                       "malloc",
                                       "free",
                                       "aoe_dlsym_later",
                                       "aoe_dlsym_twice",
                                       "aoe_dlsym_local_dep",
                                       "aoe_dlsym_missing"};
    dlerror();
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        lookup_print(where, "next", syms[i], dlsym(RTLD_NEXT, syms[i]));
        lookup_print(where, "default", syms[i], dlsym(RTLD_DEFAULT, syms[i]));
    }
    /* A runtime's name where the program has none (no libcuda loaded): a
     * feature probe must see NULL, not a wrapper with nothing behind it. */
    lookup_print(where, "default", "cuInit", dlsym(RTLD_DEFAULT, "cuInit"));
    lookup_print(where, "default", "cuLibraryLoadData", dlsym(RTLD_DEFAULT, "cuLibraryLoadData"));
    lookup_print(where, "default", "cublasSgemm_v2", dlsym(RTLD_DEFAULT, "cublasSgemm_v2"));
    void *self = dlopen(NULL, RTLD_LAZY); /* the global scope, as ctypes.CDLL(None) */
    lookup_print(where, "self", "cuLibraryLoadData", dlsym(self, "cuLibraryLoadData"));
    lookup_print(where, "self", "cublasSgemm_v2", dlsym(self, "cublasSgemm_v2"));
    lookup_print(where, "vnext", "mmap", dlvsym(RTLD_NEXT, "mmap", "GLIBC_2.2.5"));
    lookup_print(where, "vnext", "aoe_dlsym_missing",
                 dlvsym(RTLD_NEXT, "aoe_dlsym_missing", "GLIBC_2.2.5"));
}
#endif
