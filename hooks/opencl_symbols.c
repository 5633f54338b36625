/* Real OpenCL entry points and the name -> wrapper table used by the dlsym
 * wrapper (through the descriptor, hooks/opencl_runtime.c) and the
 * clGetExtensionFunctionAddress[ForPlatform] wrappers. */
#include "hooks/opencl_internal.h"

#include <string.h>

#define AOE_CL_NAME(fn) #fn,
static const char *const g_names[AOE_CLF_COUNT] = {AOE_CL_FUNCS(AOE_CL_NAME)
                                                       AOE_CL_CALLS(AOE_CL_NAME)};
#undef AOE_CL_NAME

_Atomic(void *) aoe_cl_real_ptr[AOE_CLF_COUNT];

void *aoe_cl_resolve(int idx)
{
    void *p = aoe_real_sym(&aoe_runtime_opencl, g_names[idx]);
    if (p) atomic_store_explicit(&aoe_cl_real_ptr[idx], p, memory_order_relaxed);
    return p;
}

/* Our exported wrappers, in AOE_CL_FUNCS order. */
#define AOE_CL_WRAP(fn) (void *)&fn,
static void *const g_wrappers[] = {AOE_CL_FUNCS(AOE_CL_WRAP)};
#undef AOE_CL_WRAP
#define N_WRAPPED (sizeof g_wrappers / sizeof g_wrappers[0])

static int index_of(const char *name)
{
    for (size_t i = 0; i < N_WRAPPED; i++)
        if (!strcmp(g_names[i], name)) return (int)i;
    return -1;
}

void *aoe_cl_wrapper_for(const char *name)
{
    int i = index_of(name);
    return i < 0 ? NULL : g_wrappers[i];
}

void *aoe_cl_real_for(const char *name)
{
    int i = index_of(name);
    return i < 0 ? NULL : aoe_cl_real(i);
}

/* Extension functions that are core functions under another name are not
 * wrapped (kernels of programs the shim did not see pass through untuned);
 * a core name asked for this way gets the wrapper. */
__attribute__((visibility("default"))) void *clGetExtensionFunctionAddress(const char *name)
{
    void *p =
        REAL(clGetExtensionFunctionAddress) ? REAL(clGetExtensionFunctionAddress)(name) : NULL;
    if (!p || !name) return p;
    void *w = aoe_cl_wrapper_for(name);
    return w ? w : p;
}

__attribute__((visibility("default"))) void *
clGetExtensionFunctionAddressForPlatform(cl_platform_id platform, const char *name)
{
    void *p = REAL(clGetExtensionFunctionAddressForPlatform)
                  ? REAL(clGetExtensionFunctionAddressForPlatform)(platform, name)
                  : NULL;
    if (!p || !name) return p;
    void *w = aoe_cl_wrapper_for(name);
    return w ? w : p;
}
