/* The CUDA driver API runtime's descriptor (preload/runtime.h), named by
 * preload/runtime_list.h when the build has the CUDA headers: the driver's
 * soname, the names the dlsym wrapper passes to it ("cu" and a capital:
 * cublas* is cuBLAS', whose longer prefix wins, and cuda* is the CUDA
 * runtime's, never the driver's), and the table of wrapped and called
 * entry points. Nothing here calls CUDA: dlsym may ask at any time. */
#include "hooks/cuda_internal.h"
#include "hooks/cuda_variant.h"

#include <stddef.h>
#include <string.h>

/* PyTorch, CuPy and cudart dlopen it (RTLD_LOCAL): found by soname when
 * RTLD_NEXT misses. */
static const char *const sonames[] = {"libcuda.so.1", NULL};
static const aoe_runtime_prefix prefixes[] = {{"cu", 1}, {NULL, 0}};
/* The driver's own frames (cudart's, cuBLAS' internal launches) are never
 * the program's call site. */
static const char *const skip_objects[] = {"libcuda.so", "libcudart.so", NULL};

const aoe_runtime aoe_runtime_cuda = {
    .version = AOE_RUNTIME_VERSION,
    .name = "cuda",
    .sonames = sonames,
    .prefixes = prefixes,
    .skip_objects = skip_objects,
    .wrapper_for = aoe_cu_wrapper_for,
    .wrapper_for_version = NULL, /* cuGetProcAddress is wrapped itself (cuda_procaddr.c) */
    .real_for = aoe_cu_real_for,
    .build_variants = aoe_cu_build_variants, /* the poller thread (cuda_variant.c) */
    .flush_counts = aoe_cu_flush_counts,
    .atfork_child = aoe_cu_atfork_child,
};

#define AOE_CU_NAME(id, name, base) name,
static const char *const g_names[AOE_CUF_COUNT] = {AOE_CU_WRAPPED(AOE_CU_NAME)
                                                       AOE_CU_CALLED(AOE_CU_NAME)};
#undef AOE_CU_NAME

_Atomic(void *) aoe_cu_real_ptr[AOE_CUF_COUNT];

/* Resolved at the first use (the program loads the driver after the
 * constructor); a miss is not cached, so a driver loaded later is found. */
void *aoe_cu_resolve(int idx)
{
    void *p = aoe_real_sym(&aoe_runtime_cuda, g_names[idx]);
    if (p) atomic_store_explicit(&aoe_cu_real_ptr[idx], p, memory_order_relaxed);
    return p;
}

/* The wrappers, by their C names (cuda_procaddr.c, cuda_module.c,
 * cuda_launch.c define them with the asm labels of the real names). */
#define AOE_CU_DECL(id, name, base) void aoe_cu_w_##id(void) __asm__(name);
AOE_CU_WRAPPED(AOE_CU_DECL)
#undef AOE_CU_DECL
#define AOE_CU_WRAP(id, name, base) (void *)aoe_cu_w_##id,
static void *const g_wrappers[AOE_CUF_N_WRAPPED] = {AOE_CU_WRAPPED(AOE_CU_WRAP)};
#undef AOE_CU_WRAP

void *aoe_cu_wrapper(int idx)
{
    return idx >= 0 && idx < AOE_CUF_N_WRAPPED ? g_wrappers[idx] : NULL;
}

const char *aoe_cu_name(int idx)
{
    return idx >= 0 && idx < AOE_CUF_COUNT ? g_names[idx] : "?";
}

static int index_of(const char *name)
{
    for (int i = 0; i < AOE_CUF_N_WRAPPED; i++)
        if (!strcmp(g_names[i], name)) return i;
    return -1;
}

void *aoe_cu_wrapper_for(const char *name)
{
    int i = index_of(name);
    return i < 0 ? NULL : g_wrappers[i];
}

void *aoe_cu_real_for(const char *name)
{
    int i = index_of(name);
    return i < 0 ? NULL : aoe_cu_real(i);
}

void aoe_cu_atfork_child(void)
{
    aoe_cu_device_atfork_child();
    aoe_cu_track_atfork_child();
    aoe_cu_launch_atfork_child();
    aoe_cu_variant_atfork_child();
}
