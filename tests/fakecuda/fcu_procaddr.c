/* cuGetProcAddress (the 4-argument 11.3 ABI) and cuGetProcAddress_v2 (5
 * arguments, 12.0) of the fake driver, with the real semantics
 * (cuda.h, cuGetProcAddress):
 *  - the entry for (symbol, cudaVersion) is the one introduced last at or
 *    before cudaVersion: cuGetProcAddress at 11030 is the 4-argument
 *    function, at 12000 the 5-argument _v2;
 *  - CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM returns the per-thread
 *    (_ptsz/_ptds) variant where one exists, else the legacy one; DEFAULT and
 *    LEGACY_STREAM the legacy one;
 *  - an unknown (or empty) symbol: CUDA_SUCCESS, *pfn NULL, status
 *    CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND; a symbol introduced after
 *    cudaVersion: CUDA_SUCCESS, NULL, VERSION_NOT_SUFFICIENT; a cudaVersion
 *    above the driver's: CUDA_ERROR_INVALID_VALUE.
 * Names outside the table are looked up in the fake itself (highest _vN
 * first), as versions the fake does not model. The fake is linked
 * -Bsymbolic-functions, so the pointers here are its own functions even
 * when a preloaded shim defines the same names. */
#include "fcu_internal.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#undef cuGetProcAddress
CUresult cuGetProcAddress(const char *symbol, void **pfn, int version, cuuint64_t flags);
/* Entry points without a declaration in cuda.h (per-thread forms). */
CUresult cuLaunchKernel_ptsz();
CUresult cuLaunchKernelEx_ptsz();
CUresult cuLaunchCooperativeKernel_ptsz();
CUresult cuStreamBeginCapture_v2_ptsz();
CUresult cuStreamEndCapture_ptsz();
CUresult cuStreamIsCapturing_ptsz();
CUresult cuStreamGetCaptureInfo_v3_ptsz();
CUresult cuGraphLaunch_ptsz();
CUresult cuGraphInstantiateWithParams_ptsz();

#define ENTRIES(X)                                                                                 \
    X("cuGetProcAddress", 11030, cuGetProcAddress, NULL, 0)                                        \
    X("cuGetProcAddress", 12000, cuGetProcAddress_v2, NULL, 0)                                     \
    X("cuInit", 2000, cuInit, NULL, 0)                                                             \
    X("cuDriverGetVersion", 2020, cuDriverGetVersion, NULL, 0)                                     \
    X("cuLaunchKernel", 4000, cuLaunchKernel, cuLaunchKernel_ptsz, 7000)                           \
    X("cuLaunchKernelEx", 11060, cuLaunchKernelEx, cuLaunchKernelEx_ptsz, 11060)                   \
    X("cuLaunchCooperativeKernel", 9000, cuLaunchCooperativeKernel,                                \
      cuLaunchCooperativeKernel_ptsz, 9000)                                                        \
    X("cuModuleLoad", 2000, cuModuleLoad, NULL, 0)                                                 \
    X("cuModuleLoadData", 2000, cuModuleLoadData, NULL, 0)                                         \
    X("cuModuleLoadDataEx", 2010, cuModuleLoadDataEx, NULL, 0)                                     \
    X("cuModuleLoadFatBinary", 2000, cuModuleLoadFatBinary, NULL, 0)                               \
    X("cuModuleUnload", 2000, cuModuleUnload, NULL, 0)                                             \
    X("cuModuleGetFunction", 2000, cuModuleGetFunction, NULL, 0)                                   \
    X("cuLibraryLoadData", 12000, cuLibraryLoadData, NULL, 0)                                      \
    X("cuLibraryUnload", 12000, cuLibraryUnload, NULL, 0)                                          \
    X("cuLibraryGetKernel", 12000, cuLibraryGetKernel, NULL, 0)                                    \
    X("cuKernelGetFunction", 12000, cuKernelGetFunction, NULL, 0)                                  \
    X("cuFuncGetName", 12030, cuFuncGetName, NULL, 0)                                              \
    X("cuKernelGetName", 12030, cuKernelGetName, NULL, 0)                                          \
    X("cuFuncGetParamInfo", 12040, cuFuncGetParamInfo, NULL, 0)                                    \
    X("cuStreamBeginCapture", 10010, cuStreamBeginCapture_v2, cuStreamBeginCapture_v2_ptsz, 10010) \
    X("cuStreamEndCapture", 10000, cuStreamEndCapture, cuStreamEndCapture_ptsz, 10000)             \
    X("cuStreamIsCapturing", 10000, cuStreamIsCapturing, cuStreamIsCapturing_ptsz, 10000)          \
    X("cuStreamGetCaptureInfo", 12030, cuStreamGetCaptureInfo_v3, cuStreamGetCaptureInfo_v3_ptsz,  \
      12030)                                                                                       \
    X("cuGraphInstantiate", 12000, cuGraphInstantiateWithFlags, NULL, 0)                           \
    X("cuGraphInstantiateWithFlags", 11040, cuGraphInstantiateWithFlags, NULL, 0)                  \
    X("cuGraphInstantiateWithParams", 12000, cuGraphInstantiateWithParams,                         \
      cuGraphInstantiateWithParams_ptsz, 12000)                                                    \
    X("cuGraphLaunch", 10000, cuGraphLaunch, cuGraphLaunch_ptsz, 10000)                            \
    X("cuGraphExecDestroy", 10000, cuGraphExecDestroy, NULL, 0)                                    \
    X("cuGraphDestroy", 10000, cuGraphDestroy, NULL, 0)                                            \
    X("cuMemAlloc", 3020, cuMemAlloc_v2, NULL, 0)                                                  \
    X("cuMemFree", 3020, cuMemFree_v2, NULL, 0)                                                    \
    X("cuMemcpyHtoD", 3020, cuMemcpyHtoD_v2, NULL, 0)                                              \
    X("cuMemcpyDtoH", 3020, cuMemcpyDtoH_v2, NULL, 0)                                              \
    X("cuCtxSynchronize", 2000, cuCtxSynchronize, NULL, 0)                                         \
    X("cuStreamCreate", 2000, cuStreamCreate, NULL, 0)                                             \
    X("cuStreamSynchronize", 2000, cuStreamSynchronize, NULL, 0)

static const struct entry {
    const char *symbol;
    int version;
    void *legacy, *per_thread;
    int per_thread_version;
} g_entries[] = {
#define ROW(s, v, leg, pt, pv) {s, v, (void *)leg, (void *)pt, pv},
    ENTRIES(ROW)
#undef ROW
};
#define N_ENTRIES (sizeof g_entries / sizeof g_entries[0])

/* A name the table does not model: the fake's own export, highest _vN first. */
static void *own_symbol(const char *symbol)
{
    Dl_info info;
    if (!dladdr((void *)&own_symbol, &info)) return NULL;
    void *h = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    if (!h) return NULL;
    void *p = NULL;
    char name[300];
    for (int v = 4; !p && v >= 1; v--) {
        if (v > 1)
            snprintf(name, sizeof name, "%s_v%d", symbol, v);
        else
            snprintf(name, sizeof name, "%s", symbol);
        p = dlsym(h, name);
    }
    dlclose(h);
    return p;
}

/* FAKECUDA_PRIVATE_LAUNCH=1: the legacy cuLaunchKernel is handed out as an
 * internal function (same ABI, not exported), as a driver may do; a shim
 * comparing addresses must then pass it through. */
static CUresult private_launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                               unsigned by, unsigned bz, unsigned shared, CUstream s, void **params,
                               void **extra)
{
    return cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shared, s, params, extra);
}

static int private_launch_on(void)
{
    const char *v = getenv("FAKECUDA_PRIVATE_LAUNCH");
    return v && !strcmp(v, "1");
}

static CUresult lookup(const char *symbol, void **pfn, int version, cuuint64_t flags,
                       CUdriverProcAddressQueryResult *status)
{
    if (!symbol || !pfn) return CUDA_ERROR_INVALID_VALUE;
    if (version > fcu_dev()->driver) return CUDA_ERROR_INVALID_VALUE;
    const struct entry *best = NULL;
    int known = 0;
    for (size_t i = 0; i < N_ENTRIES; i++) {
        if (strcmp(g_entries[i].symbol, symbol)) continue;
        known = 1;
        if (g_entries[i].version <= version && (!best || g_entries[i].version > best->version))
            best = &g_entries[i];
    }
    void *p = NULL;
    if (best) {
        p = best->legacy;
        if ((flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) && best->per_thread &&
            best->per_thread_version <= version)
            p = best->per_thread;
    } else if (!known && *symbol && version >= 2000) {
        p = own_symbol(symbol);
    }
    if (p == (void *)cuLaunchKernel && private_launch_on()) p = (void *)private_launch;
    *pfn = p;
    if (status)
        *status = p       ? CU_GET_PROC_ADDRESS_SUCCESS
                  : known ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
                          : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version,
                                        cuuint64_t flags, CUdriverProcAddressQueryResult *status)
{
    return lookup(symbol, pfn, version, flags, status);
}

FCU_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int version, cuuint64_t flags)
{
    return lookup(symbol, pfn, version, flags, NULL);
}

/* cudart asks for it right after cuInit; the fake has no private tables. */
FCU_EXPORT CUresult cuGetExportTable(const void **table, const CUuuid *id)
{
    (void)id;
    if (table) *table = NULL;
    return CUDA_ERROR_NOT_SUPPORTED;
}
