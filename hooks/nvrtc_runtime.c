/* The NVRTC runtime's descriptor (preload/runtime.h), named by
 * preload/runtime_list.h when the build has the CUDA headers: the libraries
 * its real symbols live in, the names the dlsym wrapper passes to it, and
 * its fork entry point. NVRTC only compiles: the runtime tracks programs
 * (nvrtc_programs.c) for the module-loading hooks and tunes nothing itself. */
#include "hooks/nvrtc_internal.h"

#include "preload/shim.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* PyTorch and CuPy dlopen it RTLD_LOCAL (CuPy's cython bindings link it
 * inside an extension module): found by soname when RTLD_NEXT misses. */
static const char *const sonames[] = {"libnvrtc.so.13", "libnvrtc.so.12", NULL};
/* nvrtc followed by a capital: the API's names only. */
static const aoe_runtime_prefix prefixes[] = {{"nvrtc", 1}, {NULL, 0}};
static const char *const skip_objects[] = {"libnvrtc.so", "libnvrtc-builtins", NULL};

const aoe_runtime aoe_runtime_nvrtc = {
    .version = AOE_RUNTIME_VERSION,
    .name = "nvrtc",
    .sonames = sonames,
    .prefixes = prefixes,
    .skip_objects = skip_objects,
    .wrapper_for = aoe_nv_wrapper_for,
    .wrapper_for_version = NULL,
    .real_for = aoe_nv_real_for,
    .build_variants = NULL, /* compiles nothing of its own */
    .flush_counts = NULL,   /* launches nothing */
    .atfork_child = aoe_nv_atfork_child,
};

#define AOE_NV_NAME(fn) #fn,
static const char *const g_names[AOE_NVF_COUNT] = {AOE_NV_WRAPPED(AOE_NV_NAME)
                                                       AOE_NV_CALLED(AOE_NV_NAME)};
#undef AOE_NV_NAME

_Atomic(void *) aoe_nv_real_ptr[AOE_NVF_COUNT];

/* Resolved at the first call (programs load NVRTC long after the
 * constructor); a miss is not cached, so a library loaded later is found. */
void *aoe_nv_resolve(int idx)
{
    void *p = aoe_real_sym(&aoe_runtime_nvrtc, g_names[idx]);
    if (p) atomic_store_explicit(&aoe_nv_real_ptr[idx], p, memory_order_relaxed);
    return p;
}

#define AOE_NV_WRAP(fn) (void *)&fn,
static void *const g_wrappers[] = {AOE_NV_WRAPPED(AOE_NV_WRAP)};
#undef AOE_NV_WRAP
#define N_WRAPPED (sizeof g_wrappers / sizeof g_wrappers[0])

static int index_of(const char *name)
{
    for (size_t i = 0; i < N_WRAPPED; i++)
        if (!strcmp(g_names[i], name)) return (int)i;
    return -1;
}

void *aoe_nv_wrapper_for(const char *name)
{
    int i = index_of(name);
    return i < 0 ? NULL : g_wrappers[i];
}

void *aoe_nv_real_for(const char *name)
{
    int i = index_of(name);
    return i < 0 ? NULL : aoe_nv_real(i);
}

/* A program read back in a warm run names the libnvrtc it was compiled
 * with; the process may not have loaded any. Opened by that absolute path
 * (only a regular file of the user or root that no one else can write),
 * once, and kept: a variant builder's library, never the wrappers'. */
#define MAX_LIBRARIES 4
static pthread_mutex_t g_lib_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    char path[4096];
    void *handle;
} g_libs[MAX_LIBRARIES];

static void *open_library(const char *path, char *why, size_t wlen)
{
    struct stat st;
    void *h = NULL;
    pthread_mutex_lock(&g_lib_lock);
    int i = 0;
    for (; i < MAX_LIBRARIES && g_libs[i].handle; i++)
        if (!strcmp(g_libs[i].path, path)) {
            h = g_libs[i].handle;
            break;
        }
    if (h) goto out;
    if (path[0] != '/' || strlen(path) >= sizeof g_libs[0].path)
        snprintf(why, wlen, "the NVRTC library %s is not an absolute path", path);
    else if (lstat(path, &st) || !S_ISREG(st.st_mode))
        snprintf(why, wlen, "the NVRTC library %s is not a regular file", path);
    else if ((st.st_uid != geteuid() && st.st_uid != 0) || (st.st_mode & (S_IWGRP | S_IWOTH)))
        snprintf(why, wlen,
                 "the NVRTC library %s is not owned by you or root, or others can write it", path);
    else if (!(h = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
        snprintf(why, wlen, "the NVRTC library %s does not load: %s", path, dlerror());
    else if (i < MAX_LIBRARIES)
        snprintf(g_libs[i].path, sizeof g_libs[i].path, "%s", path), g_libs[i].handle = h;
out:
    pthread_mutex_unlock(&g_lib_lock);
    return h;
}

int aoe_nv_real_table(const char *library, void **fns, char *why, size_t wlen)
{
    const aoe_nv_lib *l = aoe_nv_lib_by_path(library); /* one more of the process's own */
    if (l) {
        memcpy(fns, l->fn, sizeof l->fn);
        return 0;
    }
    if (aoe_nv_real(AOE_NVF_nvrtcCreateProgram)) { /* the process's own */
        for (int i = 0; i < AOE_NVF_COUNT; i++) fns[i] = aoe_nv_real(i);
        return 0;
    }
    if (!library) {
        snprintf(why, wlen, "no NVRTC library is loaded");
        return -1;
    }
    void *h = open_library(library, why, wlen);
    if (!h) return -1;
    aoe_nv_table_of(h, fns);
    return 0;
}

void aoe_nv_table_of(void *handle, void **fns)
{
    for (int i = 0; i < AOE_NVF_COUNT; i++) fns[i] = aoe_real_dlsym(handle, g_names[i]);
}

void aoe_nv_atfork_child(void)
{
    pthread_mutex_init(&g_lib_lock, NULL);
    aoe_nv_caller_atfork_child();
    aoe_nv_programs_atfork_child();
}
