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
#include "store/opkey.h"

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

/* The entry of g_libs for the library l describes (l filled outside the
 * lock, copied in), or NULL when there is no room. */
static const aoe_nv_lib *lib_of(const aoe_nv_lib *l)
{
    void *create = l->fn[AOE_NVF_nvrtcCreateProgram];
    const aoe_nv_lib *found = NULL;
    pthread_mutex_lock(&g_lock);
    for (int i = 0; i < g_nlibs && !found; i++)
        if (g_libs[i].fn[AOE_NVF_nvrtcCreateProgram] == create) found = &g_libs[i];
    if (!found && g_nlibs < MAX_LIBS) g_libs[g_nlibs] = *l, found = &g_libs[g_nlibs++];
    pthread_mutex_unlock(&g_lock);
    return found;
}

/* The libnvrtc the object at fname is linked against, when it is not the
 * process's first one (NULL: use that one). Never under g_lock: it dlopens. */
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
    /* pinned: its entry points stay valid whoever dlcloses it */
    void *lh = dlopen(li.dli_fname, RTLD_NOLOAD | RTLD_NODELETE | RTLD_LAZY);
    if (!lh) return NULL;
    aoe_nv_lib l;
    aoe_nv_table_of(lh, l.fn);
    dlclose(lh);
    if (l.fn[AOE_NVF_nvrtcCreateProgram] != create) return NULL;
    char real[PATH_MAX];
    snprintf(l.path, sizeof l.path, "%s", realpath(li.dli_fname, real) ? real : li.dli_fname);
    return lib_of(&l);
}

const aoe_nv_lib *aoe_nv_lib_of(const void *ret)
{
    Dl_info ci;
    if (!ret || !dladdr(ret, &ci) || !ci.dli_fbase) return NULL;
    uint64_t name = aoe_hash64_bytes(ci.dli_fname, ci.dli_fname ? strlen(ci.dli_fname) : 0, 0);
    pthread_mutex_lock(&g_lock);
    for (int i = 0; i < g_ncallers; i++)
        if (g_callers[i].base == ci.dli_fbase && g_callers[i].name == name) {
            const aoe_nv_lib *l = g_callers[i].lib;
            pthread_mutex_unlock(&g_lock);
            return l;
        }
    pthread_mutex_unlock(&g_lock);
    const aoe_nv_lib *l = resolve(ci.dli_fname);
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
