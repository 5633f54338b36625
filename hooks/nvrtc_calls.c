/* The NVRTC entry points the shim exports: each calls the real function
 * of the caller's own libnvrtc (hooks/nvrtc_caller.c: two versions may be
 * loaded) with the caller's arguments, returns its result unchanged, and
 * (when it succeeded and AOE is active) tells the program tracker what it
 * saw. */
#include "hooks/nvrtc_internal.h"

#include "core/log.h"
#include "preload/shim.h"

#define NV_EXPORT __attribute__((visibility("default")))
/* The caller's libnvrtc: noinline wrappers, so that the return address is
 * the calling object's. */
#define CALLER_LIB() aoe_nv_lib_of(__builtin_return_address(0))

static atomic_int g_missing_said;

/* No real NVRTC in the process (a program resolving the shim's symbol
 * without loading the library): said once, the call fails as NVRTC's
 * would without a working library. */
static nvrtcResult missing(const char *fn)
{
    aoe_shim_log_once(&g_missing_said, AOE_LOG_ERROR, "%s called but no NVRTC library is loaded",
                      fn);
    return NVRTC_ERROR_INTERNAL_ERROR;
}

NV_EXPORT __attribute__((noinline)) nvrtcResult
nvrtcCreateProgram(nvrtcProgram *prog, const char *src, const char *name, int numHeaders,
                   const char *const *headers, const char *const *includeNames)
{
    const aoe_nv_lib *lib = CALLER_LIB();
    __typeof__(&nvrtcCreateProgram) real = NV_LIB_FN(lib, nvrtcCreateProgram);
    if (!real) return missing(__func__);
    nvrtcResult r = real(prog, src, name, numHeaders, headers, includeNames);
    if (r == NVRTC_SUCCESS && prog && src && aoe_shim_init())
        aoe_nv_track_create(lib, *prog, src, name, numHeaders, headers, includeNames);
    return r;
}

NV_EXPORT __attribute__((noinline)) nvrtcResult nvrtcDestroyProgram(nvrtcProgram *prog)
{
    const aoe_nv_lib *lib = CALLER_LIB();
    __typeof__(&nvrtcDestroyProgram) real = NV_LIB_FN(lib, nvrtcDestroyProgram);
    if (!real) return missing(__func__);
    nvrtcProgram p = prog ? *prog : NULL;
    nvrtcResult r = real(prog);
    /* The handle may be reused by the next program: forgotten here. */
    if (r == NVRTC_SUCCESS && p) aoe_nv_track_destroy(p);
    return r;
}

NV_EXPORT __attribute__((noinline)) nvrtcResult
nvrtcAddNameExpression(nvrtcProgram prog, const char *const name_expression)
{
    const aoe_nv_lib *lib = CALLER_LIB();
    __typeof__(&nvrtcAddNameExpression) real = NV_LIB_FN(lib, nvrtcAddNameExpression);
    if (!real) return missing(__func__);
    nvrtcResult r = real(prog, name_expression);
    if (r == NVRTC_SUCCESS && name_expression) aoe_nv_track_name_expression(prog, name_expression);
    return r;
}

NV_EXPORT __attribute__((noinline)) nvrtcResult
nvrtcCompileProgram(nvrtcProgram prog, int numOptions, const char *const *options)
{
    const aoe_nv_lib *lib = CALLER_LIB();
    __typeof__(&nvrtcCompileProgram) real = NV_LIB_FN(lib, nvrtcCompileProgram);
    if (!real) return missing(__func__);
    nvrtcResult r = real(prog, numOptions, options);
    /* Failed compilations too (said at debug): they produce no image. */
    aoe_nv_track_compile(lib, prog, numOptions, options, r);
    return r;
}

/* An output handed out: its size asked from NVRTC (the program asked before
 * and allocated that much). */
static void output(const aoe_nv_lib *lib, nvrtcProgram prog, int kind, const char *image)
{
    size_t size = 0;
    nvrtcResult (*size_of)(nvrtcProgram, size_t *) = kind == AOE_NVRTC_IMAGE_CUBIN
                                                         ? NV_LIB_FN(lib, nvrtcGetCUBINSize)
                                                         : NV_LIB_FN(lib, nvrtcGetPTXSize);
    if (size_of && size_of(prog, &size) == NVRTC_SUCCESS && size > 0)
        aoe_nv_track_output(prog, kind, image, size);
}

NV_EXPORT __attribute__((noinline)) nvrtcResult nvrtcGetCUBIN(nvrtcProgram prog, char *cubin)
{
    const aoe_nv_lib *lib = CALLER_LIB();
    __typeof__(&nvrtcGetCUBIN) real = NV_LIB_FN(lib, nvrtcGetCUBIN);
    if (!real) return missing(__func__);
    nvrtcResult r = real(prog, cubin);
    if (r == NVRTC_SUCCESS && cubin) output(lib, prog, AOE_NVRTC_IMAGE_CUBIN, cubin);
    return r;
}

NV_EXPORT __attribute__((noinline)) nvrtcResult nvrtcGetPTX(nvrtcProgram prog, char *ptx)
{
    const aoe_nv_lib *lib = CALLER_LIB();
    __typeof__(&nvrtcGetPTX) real = NV_LIB_FN(lib, nvrtcGetPTX);
    if (!real) return missing(__func__);
    nvrtcResult r = real(prog, ptx);
    if (r == NVRTC_SUCCESS && ptx) output(lib, prog, AOE_NVRTC_IMAGE_PTX, ptx);
    return r;
}
