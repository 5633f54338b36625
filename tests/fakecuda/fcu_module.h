/* Module and function objects of the fake driver, shared by fcu_module.c
 * (loading, look-ups, names) and fcu_launch.c (launches). */
#ifndef FCU_MODULE_H
#define FCU_MODULE_H

#include "fake_image.h"
#include "fakecuda.h"
#include "fcu_internal.h"

#define FCU_TAG_MODULE 0x4d4f4455u   /* "MODU" */
#define FCU_TAG_FUNCTION 0x46554e43u /* "FUNC" */
#define FCU_TAG_KERNEL 0x4b45524eu   /* "KERN": a CUkernel */
#define FCU_MAX_FUNCS 128

typedef void (*fcu_kernel_fn)(const fakecuda_launch *);

struct CUfunc_st {
    unsigned tag;
    struct CUmod_st *mod;
    char name[FAKE_IMAGE_MAX_NAME + 1];
    fcu_kernel_fn host;            /* NULL: no host code (launch does nothing) */
    const fakecuda_params *params; /* NULL: cuFuncGetParamInfo not supported */
};

struct CUmod_st {
    unsigned tag;
    struct CUmod_st *next_loaded; /* cuModuleLoad* modules: freed with their context */
    int fake;                     /* 1: a fake image with host kernels; 0: any other image */
    CUcontext ctx;                /* current on the loading thread (NULL: a library) */
    unsigned long loaded_by;      /* the loading thread (pthread_self) */
    char arch[FAKE_IMAGE_MAX_NAME + 1];
    int ndefines, nkernels, nfuncs;
    struct {
        char name[FAKE_IMAGE_MAX_NAME + 1];
        long long value;
    } defines[FAKE_IMAGE_MAX_DEFINES];
    char kernels[FAKE_IMAGE_MAX_KERNELS][FAKE_IMAGE_MAX_NAME + 1];
    struct CUfunc_st *funcs[FCU_MAX_FUNCS];
};

/* The value of define name in module image (a struct CUmod_st), or dflt. */
long long fcu_define(const void *image, const char *name, long long dflt);

/* Destroys the modules loaded into ctx, as the real driver's cuCtxDestroy
 * does without a cuModuleUnload; the next load (and its functions) is handed
 * their handle values, as a real driver's allocator may. */
void fcu_modules_destroyed_with(CUcontext ctx);

/* The function object behind a CUfunction or a CUkernel cast to one, or NULL. */
struct CUfunc_st *fcu_function(CUfunction f);

#endif
