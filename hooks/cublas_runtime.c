/* The cuBLAS / cuBLASLt runtime's descriptor (preload/runtime.h), named by
 * preload/runtime_list.h when the build has the CUDA headers: the libraries
 * its real symbols live in, the names the dlsym wrapper passes to it, and
 * its entry points for the exit and fork. */
#include "hooks/cublas_internal.h"

#include "core/fs_safe.h"
#include "core/log.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* For the GEMM jobs: the directory of the cuBLASLt this program loaded
 * (runtime_extra.cublas_dir). A pip wheel keeps it in site-packages, which
 * only the program's own libraries search, so the tuner would not find it
 * by name; and the tuner, shared by every program of the spool, measures
 * each job with that job's library, not with the one of the program that
 * started it. Only a directory the tuner accepts (yours or root's, nobody
 * else can write it or rename it away); else the tuner searches by name.
 * Worked out once: one cuBLAS tuned per process (with a second, GEMMs pass
 * through, each caller to its own library: AOE_CB_ENTRIES). */
static atomic_int g_dir_state; /* 0: not yet, 1: g_dir, -1: none, 2: being written */
static char g_dir[PATH_MAX];

static int find_lib_dir(char *out)
{
    void *p =
        atomic_load_explicit(&aoe_cb_real_ptr[AOE_CBF_cublasLtGetVersion], memory_order_relaxed);
    if (!p) p = aoe_cb_resolve(AOE_CBF_cublasLtGetVersion);
    Dl_info info;
    if (!p || !dladdr(p, &info) || !info.dli_fname || info.dli_fname[0] != '/') return 0;
    char dir[PATH_MAX], err[512];
    snprintf(dir, sizeof dir, "%s", info.dli_fname);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir) return -1;
    *slash = '\0';
    snprintf(err, sizeof err, "%s", "no real path");
    if (!realpath(dir, out) || aoe_fs_private_dir(out, AOE_FS_ROOT_OK, err, sizeof err)) {
        AOE_DEBUG("GEMM jobs do not name where cuBLASLt lies (%s: %s): the tuner searches by name",
                  dir, err);
        return -1;
    }
    return 1;
}

int aoe_cb_lib_dir(char *out)
{
    int st = atomic_load_explicit(&g_dir_state, memory_order_acquire);
    if (st == 1) {
        memcpy(out, g_dir, sizeof g_dir);
        return 0;
    }
    if (st == -1) return -1;
    int found = find_lib_dir(out); /* also while another thread publishes its own */
    int expect = 0;
    if (found && atomic_compare_exchange_strong(&g_dir_state, &expect, 2)) {
        if (found == 1) memcpy(g_dir, out, sizeof g_dir);
        atomic_store_explicit(&g_dir_state, found, memory_order_release);
    }
    return found == 1 ? 0 : -1;
}

/* PyTorch's wheels load both from the nvidia-cublas wheel (RTLD_LOCAL
 * through the extension module): found by soname when RTLD_NEXT misses. */
static const char *const sonames[] = {"libcublasLt.so.13", "libcublas.so.13", NULL};
/* cublasLt* and cublas* followed by a capital: cublas_... helpers never match. */
static const aoe_runtime_prefix prefixes[] = {{"cublas", 1}, {NULL, 0}};
/* libcublas calls libcublasLt's public entry points itself: its frames are
 * never the program's call site. */
static const char *const skip_objects[] = {"libcublasLt.so", "libcublas.so", NULL};

const aoe_runtime aoe_runtime_cublas = {
    .version = AOE_RUNTIME_VERSION,
    .name = AOE_GEMM_RUNTIME,
    .sonames = sonames,
    .prefixes = prefixes,
    .skip_objects = skip_objects,
    .wrapper_for = aoe_cb_wrapper_for,
    .wrapper_for_version = NULL,
    .real_for = aoe_cb_real_for,
    .build_variants = NULL, /* a library call builds no program */
    .flush_counts = aoe_cb_flush_counts,
    .atfork_child = aoe_cb_atfork_child,
};

#define AOE_CB_NAME(fn) #fn,
static const char *const g_names[AOE_CBF_COUNT] = {AOE_CB_WRAPPED(AOE_CB_NAME)
                                                       AOE_CB_CALLED(AOE_CB_NAME)};
#undef AOE_CB_NAME

_Atomic(void *) aoe_cb_real_ptr[AOE_CBF_COUNT];
/* The entries' own functions (aoe_cb_route_resolve): a major's callers are
 * linked against its library, so it is loaded before they can call; an
 * unversioned caller reaches the 13 entry, whichever is loaded. */
_Atomic(void *) aoe_cb_route_ptr[2][AOE_CBF_COUNT];

/* idx in major's library, found by soname (pinned, as every library the
 * shim takes entry points from: real_sym.c), or NULL. Kept in
 * aoe_cb_route_ptr when found, or, with cache_miss, as AOE_CB_NOT_LOADED. */
static void *major_lookup(int major, int idx, int cache_miss)
{
    char soname[32];
    snprintf(soname, sizeof soname, "%s.so.%d",
             strncmp(g_names[idx], "cublasLt", 8) ? "libcublas" : "libcublasLt", major);
    void *h = dlopen(soname, RTLD_NOLOAD | RTLD_NODELETE | RTLD_LAZY);
    void *p = h ? aoe_real_dlsym(h, g_names[idx]) : NULL;
    if (h) dlclose(h);
    if (p || cache_miss)
        atomic_store_explicit(&aoe_cb_route_ptr[major - 12][idx], p ? p : AOE_CB_NOT_LOADED,
                              memory_order_relaxed);
    return p;
}

/* The cuBLAS major the wrappers work with (12 or 13; 0: not yet): that of
 * the first library a function was found in. Every later function is looked
 * up in that major's libraries first, so the wrappers all reach one
 * library even when another major is loaded later, globally (else a
 * function first called then would be that one's, and its own major's
 * callers would bypass the wrapper, or a handle the shim made with one
 * library be destroyed by the other). */
static atomic_int g_major;

/* 12 or 13 for a function of libcublas[Lt].so.12/13, else 0. */
static int major_of(void *p)
{
    Dl_info info;
    if (!dladdr(p, &info) || !info.dli_fname) return 0;
    const char *base = strrchr(info.dli_fname, '/');
    base = base ? base + 1 : info.dli_fname;
    if (strncmp(base, "libcublas", 9)) return 0;
    const char *so = strstr(base, ".so.");
    int m = so ? atoi(so + 4) : 0;
    return m == 12 || m == 13 ? m : 0;
}

/* Resolved at the first call (PyTorch loads cuBLAS long after the
 * constructor); a miss is not cached, so a library loaded later is found. */
void *aoe_cb_resolve(int idx)
{
    int m = atomic_load_explicit(&g_major, memory_order_acquire);
    void *p = NULL;
    if (m) {
        p = atomic_load_explicit(&aoe_cb_route_ptr[m - 12][idx], memory_order_relaxed);
        if (!p || p == AOE_CB_NOT_LOADED) p = major_lookup(m, idx, 0);
    }
    if (!p) p = aoe_real_sym(&aoe_runtime_cublas, g_names[idx]);
    if (!p) return NULL;
    atomic_store_explicit(&aoe_cb_real_ptr[idx], p, memory_order_relaxed);
    int none = 0, found = m ? 0 : major_of(p);
    if (found) atomic_compare_exchange_strong(&g_major, &none, found);
    return p;
}

#define AOE_CB_WRAP(fn) (void *)&aoe_cbw_##fn,
static void *const g_wrappers[] = {AOE_CB_WRAPPED(AOE_CB_WRAP)};
#undef AOE_CB_WRAP
#define N_WRAPPED (sizeof g_wrappers / sizeof g_wrappers[0])

static int index_of(const char *name)
{
    for (size_t i = 0; i < N_WRAPPED; i++)
        if (!strcmp(g_names[i], name)) return (int)i;
    return -1;
}

void *aoe_cb_route_resolve(int major, int idx)
{
    return major_lookup(major, idx, 1);
}

void *aoe_cb_wrapper_for(const char *name)
{
    int i = index_of(name);
    return i < 0 ? NULL : g_wrappers[i];
}

void *aoe_cb_real_for(const char *name)
{
    int i = index_of(name);
    return i < 0 ? NULL : aoe_cb_real(i);
}

void aoe_cb_atfork_child(void)
{
    aoe_cb_gate_atfork_child();
    aoe_cb_device_atfork_child();
    aoe_cb_handles_atfork_child();
    aoe_libcall_atfork_child();
}
