/* The NVRTC runtime's descriptor (preload/runtime.h), named by
 * preload/runtime_list.h when the build has the CUDA headers: the libraries
 * its real symbols live in, the names the dlsym wrapper passes to it, and
 * its fork entry point. NVRTC only compiles: the runtime tracks programs
 * (nvrtc_programs.c) for the module-loading hooks and tunes nothing itself. */
#include "hooks/nvrtc_internal.h"

#include "preload/shim.h"

#include <stddef.h>
#include <string.h>

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

void aoe_nv_atfork_child(void)
{
    aoe_nv_programs_atfork_child();
}
