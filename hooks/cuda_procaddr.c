/* cuGetProcAddress (the 4-argument 11.3 ABI) and cuGetProcAddress_v2 (5
 * arguments, 12.0), the way the CUDA runtime, nvFuser and NCCL take every
 * driver function. The real resolver answers first, with the caller's
 * symbol, version and flags; its status and symbolStatus are returned as
 * they are. Only when it returned a function that is exactly one the shim
 * wraps (compared by address with the real entry points of that base name:
 * legacy or _ptsz, cuGetProcAddress or _v2) is that entry point's wrapper
 * handed back, so the caller gets the variant and the ABI it asked for.
 * Anything else (unknown names, the empty-symbol probe, functions the shim
 * does not wrap, an address it cannot name) passes through untouched. */
#include "hooks/cuda_internal.h"

#include "core/log.h"

#include <string.h>

typedef CUresult (*gpa4_fn)(const char *, void **, int, cuuint64_t);
typedef CUresult (*gpa5_fn)(const char *, void **, int, cuuint64_t,
                            CUdriverProcAddressQueryResult *);

#define AOE_CU_BASE(id, name, base) base,
static const char *const g_bases[AOE_CUF_N_WRAPPED] = {AOE_CU_WRAPPED(AOE_CU_BASE)};
#undef AOE_CU_BASE

/* The wrapper for the real function p the resolver gave for (symbol,
 * version, flags), or p. */
static atomic_int g_said_unnamed;

static void *substitute(const char *symbol, int version, cuuint64_t flags, void *p)
{
    if (!p || !symbol || symbol[0] != 'c' || symbol[1] != 'u') return p;
    int wrapped_base = 0;
    for (int i = 0; i < AOE_CUF_N_WRAPPED; i++) {
        if (strcmp(g_bases[i], symbol)) continue;
        wrapped_base = 1;
        if (aoe_cu_real(i) == p) {
            AOE_DEBUG("cuGetProcAddress(%s, %d, flags %llu): the driver's %s, wrapped", symbol,
                      version, (unsigned long long)flags, aoe_cu_name(i));
            return aoe_cu_wrapper(i);
        }
    }
    /* A function the shim wraps, at an address that is none of the driver's
     * exported variants: which ABI it has is unknown, so it passes (and its
     * calls go unobserved). Said once: a driver doing this hides launches. */
    if (wrapped_base)
        aoe_shim_log_once(&g_said_unnamed, AOE_LOG_INFO,
                          "cuGetProcAddress(%s, %d, flags %llu) returned an address that is not "
                          "one of the driver's exported entry points: passed through, such calls "
                          "are not observed",
                          symbol, version, (unsigned long long)flags);
    return p;
}

AOE_CU_EXPORT CUresult aoe_cu_w_GPA4(const char *symbol, void **pfn, int version,
                                     cuuint64_t flags) __asm__("cuGetProcAddress");
AOE_CU_EXPORT CUresult aoe_cu_w_GPA4(const char *symbol, void **pfn, int version, cuuint64_t flags)
{
    gpa4_fn real = (gpa4_fn)aoe_cu_real(AOE_CUF_GPA4);
    if (!real) return CUDA_ERROR_NOT_INITIALIZED;
    CUresult r = real(symbol, pfn, version, flags);
    if (r == CUDA_SUCCESS && pfn) *pfn = substitute(symbol, version, flags, *pfn);
    return r;
}

AOE_CU_EXPORT CUresult
aoe_cu_w_GPA5(const char *symbol, void **pfn, int version, cuuint64_t flags,
              CUdriverProcAddressQueryResult *status) __asm__("cuGetProcAddress_v2");
AOE_CU_EXPORT CUresult aoe_cu_w_GPA5(const char *symbol, void **pfn, int version, cuuint64_t flags,
                                     CUdriverProcAddressQueryResult *status)
{
    gpa5_fn real = (gpa5_fn)aoe_cu_real(AOE_CUF_GPA5);
    if (!real) return CUDA_ERROR_NOT_INITIALIZED;
    CUresult r = real(symbol, pfn, version, flags, status);
    if (r == CUDA_SUCCESS && pfn) *pfn = substitute(symbol, version, flags, *pfn);
    return r;
}
