/* Loading the CUDA driver, cuBLASLt and cuBLAS for the GEMM executor. A job is
 * untrusted input: it chooses only the major version number, never a path. */
#include "tuner/exec_cublas_api.h"

#include "core/fs_safe.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* lib_dir is usable: absolute, a real directory, not writable by group or
 * others, its parents not open to another user's renames (else anyone could
 * plant a library the tuner runs). */
static int dir_ok(const char *dir, const char *name, char *err, size_t errlen)
{
    struct stat st;
    if (dir[0] != '/') return snprintf(err, errlen, "%s%s: not an absolute path", name, dir), -1;
    if (lstat(dir, &st) || !S_ISDIR(st.st_mode))
        return snprintf(err, errlen, "%s%s: not a directory", name, dir), -1;
    if (st.st_mode & 022)
        return snprintf(err, errlen, "%s%s: writable by group or others; not used", name, dir), -1;
    if (st.st_uid != geteuid() && st.st_uid != 0)
        return snprintf(err, errlen, "%s%s: owned by another user; not used", name, dir), -1;
    /* and its parents: one another user can rename entries in could swap it */
    char why[512];
    if (aoe_fs_private_dir(dir, AOE_FS_ROOT_OK, why, sizeof why))
        return snprintf(err, errlen, "%s%s: %s; not used", name, dir, why), -1;
    return 0;
}

/* soname from lib_dir (when the file is there and safe), else by name. */
static void *open_lib(const char *soname, const char *lib_dir, char *err, size_t errlen)
{
    char path[4200];
    struct stat st;
    if (lib_dir) {
        snprintf(path, sizeof path, "%s/%s", lib_dir, soname);
        if (!stat(path, &st)) {
            if (!S_ISREG(st.st_mode) || (st.st_mode & 022)) {
                snprintf(err, errlen, "%s: not a regular file only its owner can write", path);
                return NULL;
            }
            void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
            if (!h) snprintf(err, errlen, "%s: %s", path, dlerror());
            return h;
        }
    }
    void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!h) snprintf(err, errlen, "cannot load %s: %s", soname, dlerror());
    return h;
}

int aoe_cublas_api_load(aoe_cublas_api *api, unsigned major, int want_blas, const char *lib_dir,
                        const char *dir_name, char *err, size_t errlen)
{
    char soname[64];
    memset(api, 0, sizeof *api);
    if (lib_dir && !*lib_dir) lib_dir = NULL;
    if (lib_dir && dir_ok(lib_dir, dir_name, err, errlen)) return -1;
    if (aoe_cuda_driver_load(&api->cu, err, errlen)) return -1;
    snprintf(soname, sizeof soname, "libcublasLt.so.%u", major);
    if (!(api->lt = open_lib(soname, lib_dir, err, errlen))) return -1;
#define AOE_API_LOAD(h, label, f)                                                                  \
    if (!(*(void **)&api->f = dlsym(api->h, AOE_CU_NAME(f)))) {                                    \
        snprintf(err, errlen, "%s has no %s", label, AOE_CU_NAME(f));                              \
        return -1;                                                                                 \
    }
#define AOE_LOAD_LT(f) AOE_API_LOAD(lt, soname, f)
    AOE_CUBLASLT_FUNCS(AOE_LOAD_LT)
#undef AOE_LOAD_LT
    if (want_blas) {
        snprintf(soname, sizeof soname, "libcublas.so.%u", major);
        if (!(api->blas = open_lib(soname, lib_dir, err, errlen))) return -1;
        cublasStatus_t (*prop)(libraryPropertyType, int *) =
            (cublasStatus_t(*)(libraryPropertyType, int *))dlsym(api->blas, "cublasGetProperty");
        int v[3] = {0, 0, 0};
        if (!prop || prop(MAJOR_VERSION, &v[0]) || prop(MINOR_VERSION, &v[1]) ||
            prop(PATCH_LEVEL, &v[2])) {
            snprintf(err, errlen, "%s: cublasGetProperty failed", soname);
            return -1;
        }
        api->blas_version = (size_t)v[0] * 10000 + (size_t)v[1] * 100 + (size_t)v[2];
#define AOE_LOAD_BLAS(f) AOE_API_LOAD(blas, soname, f)
#define AOE_LOAD_BLAS_64(f) *(void **)&api->f = dlsym(api->blas, AOE_CU_NAME(f));
        AOE_CUBLAS_FUNCS(AOE_LOAD_BLAS)
        AOE_CUBLAS_FUNCS_64(AOE_LOAD_BLAS_64)
#undef AOE_LOAD_BLAS
#undef AOE_LOAD_BLAS_64
    }
#undef AOE_API_LOAD
    return 0;
}

void aoe_cublas_api_unload(aoe_cublas_api *api)
{
    /* the libraries before the driver they call */
    if (api->blas) dlclose(api->blas);
    if (api->lt) dlclose(api->lt);
    aoe_cuda_driver_unload(&api->cu);
    memset(api, 0, sizeof *api);
}

const char *aoe_cublas_status_name(const aoe_cublas_api *api, cublasStatus_t s)
{
    const char *n = api->cublasLtGetStatusName ? api->cublasLtGetStatusName(s) : NULL;
    return n ? n : "an unknown cuBLAS status";
}
