/* The wrapped module, library and function entry points: each calls the
 * real one with the caller's arguments and returns its result unchanged;
 * on success it records the new handle (cuda_track.c). Tracking is
 * skipped when the shim is off (bad configuration). */
#include "hooks/cuda_image.h"
#include "hooks/cuda_internal.h"

#define REAL(id, type) ((type)aoe_cu_real(AOE_CUF_##id))
/* A wrapper: exported under the driver's name (asm label), C name aoe_cu_w_ID. */
#define WRAPPER(id, name, params)                                                                  \
    AOE_CU_EXPORT CUresult aoe_cu_w_##id params __asm__(name);                                     \
    AOE_CU_EXPORT CUresult aoe_cu_w_##id params

static int tracking(void)
{
    return aoe_shim_init();
}

typedef CUresult (*mod_load_fn)(CUmodule *, const char *);
typedef CUresult (*mod_data_fn)(CUmodule *, const void *);
typedef CUresult (*mod_data_ex_fn)(CUmodule *, const void *, unsigned, CUjit_option *, void **);
typedef CUresult (*mod_unload_fn)(CUmodule);
typedef CUresult (*mod_get_fn)(CUfunction *, CUmodule, const char *);
typedef CUresult (*lib_data_fn)(CUlibrary *, const void *, CUjit_option *, void **, unsigned,
                                CUlibraryOption *, void **, unsigned);
typedef CUresult (*lib_file_fn)(CUlibrary *, const char *, CUjit_option *, void **, unsigned,
                                CUlibraryOption *, void **, unsigned);
typedef CUresult (*lib_unload_fn)(CUlibrary);
typedef CUresult (*lib_kernel_fn)(CUkernel *, CUlibrary, const char *);
typedef CUresult (*kernel_fn_fn)(CUfunction *, CUkernel);

WRAPPER(MOD_LOAD, "cuModuleLoad", (CUmodule * m, const char *path))
{
    mod_load_fn real = REAL(MOD_LOAD, mod_load_fn);
    if (!real) return CUDA_ERROR_NOT_INITIALIZED;
    CUresult r = real(m, path);
    if (r == CUDA_SUCCESS && m && tracking()) aoe_cu_track_module(*m, NULL, AOE_CU_IMAGE_FILE);
    return r;
}

WRAPPER(MOD_DATA, "cuModuleLoadData", (CUmodule * m, const void *image))
{
    mod_data_fn real = REAL(MOD_DATA, mod_data_fn);
    if (!real) return CUDA_ERROR_NOT_INITIALIZED;
    CUresult r = real(m, image);
    if (r == CUDA_SUCCESS && m && tracking()) aoe_cu_track_module(*m, image, 0);
    return r;
}

WRAPPER(MOD_DATA_EX, "cuModuleLoadDataEx",
        (CUmodule * m, const void *image, unsigned n, CUjit_option *opts, void **vals))
{
    mod_data_ex_fn real = REAL(MOD_DATA_EX, mod_data_ex_fn);
    if (!real) return CUDA_ERROR_NOT_INITIALIZED;
    CUresult r = real(m, image, n, opts, vals);
    if (r == CUDA_SUCCESS && m && tracking()) aoe_cu_track_module(*m, image, 0);
    return r;
}

WRAPPER(MOD_FATBIN, "cuModuleLoadFatBinary", (CUmodule * m, const void *fatbin))
{
    mod_data_fn real = REAL(MOD_FATBIN, mod_data_fn);
    if (!real) return CUDA_ERROR_NOT_INITIALIZED;
    CUresult r = real(m, fatbin);
    if (r == CUDA_SUCCESS && m && tracking()) aoe_cu_track_module(*m, fatbin, 0);
    return r;
}

WRAPPER(MOD_UNLOAD, "cuModuleUnload", (CUmodule m))
{
    mod_unload_fn real = REAL(MOD_UNLOAD, mod_unload_fn);
    if (!real) return CUDA_ERROR_NOT_INITIALIZED;
    /* forgotten first: the driver may hand the handle out again at once */
    if (m && aoe_shim_active) aoe_cu_untrack_module(m);
    return real(m);
}

WRAPPER(MOD_GET_FN, "cuModuleGetFunction", (CUfunction * f, CUmodule m, const char *name))
{
    mod_get_fn real = REAL(MOD_GET_FN, mod_get_fn);
    if (!real) return CUDA_ERROR_NOT_INITIALIZED;
    CUresult r = real(f, m, name);
    if (r == CUDA_SUCCESS && f && tracking()) aoe_cu_track_function(*f, m, 0);
    return r;
}

WRAPPER(LIB_DATA, "cuLibraryLoadData",
        (CUlibrary * l, const void *code, CUjit_option *jo, void **jv, unsigned nj,
         CUlibraryOption *lo, void **lv, unsigned nl))
{
    lib_data_fn real = REAL(LIB_DATA, lib_data_fn);
    if (!real) return CUDA_ERROR_NOT_INITIALIZED;
    CUresult r = real(l, code, jo, jv, nj, lo, lv, nl);
    if (r == CUDA_SUCCESS && l && tracking()) aoe_cu_track_module(*l, code, 0);
    return r;
}

WRAPPER(LIB_FILE, "cuLibraryLoadFromFile",
        (CUlibrary * l, const char *path, CUjit_option *jo, void **jv, unsigned nj,
         CUlibraryOption *lo, void **lv, unsigned nl))
{
    lib_file_fn real = REAL(LIB_FILE, lib_file_fn);
    if (!real) return CUDA_ERROR_NOT_INITIALIZED;
    CUresult r = real(l, path, jo, jv, nj, lo, lv, nl);
    if (r == CUDA_SUCCESS && l && tracking()) aoe_cu_track_module(*l, NULL, AOE_CU_IMAGE_FILE);
    return r;
}

WRAPPER(LIB_UNLOAD, "cuLibraryUnload", (CUlibrary l))
{
    lib_unload_fn real = REAL(LIB_UNLOAD, lib_unload_fn);
    if (!real) return CUDA_ERROR_NOT_INITIALIZED;
    if (l && aoe_shim_active) aoe_cu_untrack_module(l);
    return real(l);
}

WRAPPER(LIB_GET_KERNEL, "cuLibraryGetKernel", (CUkernel * k, CUlibrary l, const char *name))
{
    lib_kernel_fn real = REAL(LIB_GET_KERNEL, lib_kernel_fn);
    if (!real) return CUDA_ERROR_NOT_INITIALIZED;
    CUresult r = real(k, l, name);
    if (r == CUDA_SUCCESS && k && tracking()) aoe_cu_track_function(*k, l, 1);
    return r;
}

WRAPPER(KERNEL_GET_FN, "cuKernelGetFunction", (CUfunction * f, CUkernel k))
{
    kernel_fn_fn real = REAL(KERNEL_GET_FN, kernel_fn_fn);
    if (!real) return CUDA_ERROR_NOT_INITIALIZED;
    CUresult r = real(f, k);
    if (r == CUDA_SUCCESS && f && tracking()) aoe_cu_track_kernel_function(*f, k);
    return r;
}
