/* Which libnvrtc a call belongs to. The shim's exported nvrtc* wrappers
 * catch the linked calls of every object in the process, and two NVRTC
 * versions can be loaded at once (a CuPy for CUDA 12 beside a PyTorch for
 * CUDA 13, each extension linked against its own): a program made by one
 * must never reach the other, which would take its handle for one of its
 * own. So a wrapper asks for the library the calling object is linked
 * against: found once per object (dlsym on the object's own handle
 * searches it and its dependencies, never the preloaded shim), kept for
 * good (pinned, RTLD_NODELETE). NVRTC calls are rare (a compile takes
 * milliseconds), so the lookup costs nothing that matters. */
#include "hooks/nvrtc_internal.h"

#include "preload/shim.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIBS 4     /* NVRTC versions in one process */
#define MAX_CALLERS 64 /* calling objects remembered; past that, looked up each call */

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static aoe_nv_lib g_libs[MAX_LIBS];
static int g_nlibs;
static struct {
    const void *base;      /* the calling object's load address ... */
    uint64_t name;         /* ... and its name's hash (another object may load there later) */
    const aoe_nv_lib *lib; /* NULL: the process's first libnvrtc */
} g_callers[MAX_CALLERS];
static int g_ncallers;

static const char *const g_fn_names[AOE_NVF_COUNT] = {
#define AOE_NV_NAME(fn) #fn,
    AOE_NV_WRAPPED(AOE_NV_NAME) AOE_NV_CALLED(AOE_NV_NAME)
#undef AOE_NV_NAME
};

/* The table of the library at path holding create (the caller holds g_lock),
 * or NULL when there is no room. */
static const aoe_nv_lib *lib_at(const char *path, void *create)
{
    for (int i = 0; i < g_nlibs; i++)
        if (g_libs[i].fn[AOE_NVF_nvrtcCreateProgram] == create) return &g_libs[i];
    if (g_nlibs == MAX_LIBS) return NULL;
    /* pinned: its entry points stay valid whoever dlcloses it */
    void *h = dlopen(path, RTLD_NOLOAD | RTLD_NODELETE | RTLD_LAZY);
    if (!h) return NULL;
    aoe_nv_lib *l = &g_libs[g_nlibs];
    for (int i = 0; i < AOE_NVF_COUNT; i++) l->fn[i] = aoe_real_dlsym(h, g_fn_names[i]);
    dlclose(h);
    if (l->fn[AOE_NVF_nvrtcCreateProgram] != create) return NULL;
    char real[PATH_MAX];
    snprintf(l->path, sizeof l->path, "%s", realpath(path, real) ? real : path);
    g_nlibs++;
    return l;
}

/* The libnvrtc the object at fname is linked against, when it is not the
 * process's first one (NULL: use that one). */
static const aoe_nv_lib *resolve(const char *fname)
{
    if (!fname || !fname[0]) return NULL; /* the main program: its libraries are global */
    void *h = dlopen(fname, RTLD_NOLOAD | RTLD_LAZY);
    if (!h) return NULL;
    void *create = aoe_real_dlsym(h, "nvrtcCreateProgram");
    dlclose(h);
    Dl_info li, self;
    if (!create || create == aoe_nv_real(AOE_NVF_nvrtcCreateProgram) || !dladdr(create, &li) ||
        !li.dli_fname || !dladdr((void *)&resolve, &self) || li.dli_fbase == self.dli_fbase)
        return NULL;
    const char *base = strrchr(li.dli_fname, '/');
    if (strncmp(base ? base + 1 : li.dli_fname, "libnvrtc", 8)) return NULL;
    pthread_mutex_lock(&g_lock);
    const aoe_nv_lib *l = lib_at(li.dli_fname, create);
    pthread_mutex_unlock(&g_lock);
    return l;
}

static uint64_t name_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; s && *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

const aoe_nv_lib *aoe_nv_lib_of(const void *ret)
{
    Dl_info ci;
    if (!ret || !dladdr(ret, &ci) || !ci.dli_fbase) return NULL;
    uint64_t name = name_hash(ci.dli_fname);
    pthread_mutex_lock(&g_lock);
    for (int i = 0; i < g_ncallers; i++)
        if (g_callers[i].base == ci.dli_fbase && g_callers[i].name == name) {
            const aoe_nv_lib *l = g_callers[i].lib;
            pthread_mutex_unlock(&g_lock);
            return l;
        }
    pthread_mutex_unlock(&g_lock);
    const aoe_nv_lib *l = resolve(ci.dli_fname); /* dlopen: outside the lock */
    pthread_mutex_lock(&g_lock);
    if (g_ncallers < MAX_CALLERS) {
        g_callers[g_ncallers].base = ci.dli_fbase, g_callers[g_ncallers].name = name;
        g_callers[g_ncallers++].lib = l;
    }
    pthread_mutex_unlock(&g_lock);
    return l;
}

const aoe_nv_lib *aoe_nv_lib_by_path(const char *path)
{
    const aoe_nv_lib *l = NULL;
    pthread_mutex_lock(&g_lock);
    for (int i = 0; path && i < g_nlibs && !l; i++)
        if (!strcmp(g_libs[i].path, path)) l = &g_libs[i];
    pthread_mutex_unlock(&g_lock);
    return l;
}

void aoe_nv_caller_atfork_child(void)
{
    pthread_mutex_init(&g_lock, NULL);
}
