/* What the fake libcuda.so.1 exports beyond the real driver API (README.md):
 * a simulated clock other test doubles (a fake kernel launch) may advance,
 * and the device memory in use. dlsym on the loaded library finds them; the
 * real driver has none. */
#ifndef FAKECUDA_H
#define FAKECUDA_H

#include <stddef.h>

/* Adds us microseconds to the fake driver's own clock (events stamp it). */
void fakecuda_clock_advance_us(double us);
/* The host spends us microseconds before issuing its next device work (a
 * library choosing its algorithm): the device idles that long, less what
 * device work issued asynchronously and not yet waited for still keeps it
 * busy (the asynchronous memsets queue theirs; every synchronize drains it). */
void fakecuda_host_us(double us);
/* What a cuEventRecord now would stamp, in microseconds. */
double fakecuda_clock_us(void);
/* Bytes currently allocated with cuMemAlloc. */
size_t fakecuda_mem_used(void);

/* ---- kernels (README.md, "Modules and launches") ----
 * A kernel NAME of a fake image (fake_image.h) runs the test program's
 * exported host function `void fakecuda_kernel_NAME(const fakecuda_launch *)`
 * (found with dlsym(RTLD_DEFAULT): link the program with -rdynamic, or load
 * the library holding it RTLD_GLOBAL). It may export
 * `const fakecuda_params fakecuda_params_NAME` (its parameter sizes, for
 * cuFuncGetParamInfo). */
typedef struct {
    unsigned grid[3], block[3];
    unsigned shared_bytes;
    void *stream;        /* the CUstream launched on */
    void **params;       /* kernelParams as passed */
    void **extra;        /* extra as passed */
    const void *image;   /* the image's define list: fakecuda_define */
    const char *variant; /* the entry point called, e.g. "cuLaunchKernel_ptsz" */
    /* the driver's define lookup (a kernel library need not link the driver) */
    long long (*define)(const void *image, const char *name, long long dflt);
    /* the driver's clock and fault (fcu_fault.c): see fakecuda_advance / fakecuda_fault */
    void (*advance_us)(double us);
    void (*fault)(int cuda_error);
} fakecuda_launch;

typedef struct {
    unsigned count;
    size_t size[32];
} fakecuda_params;

/* The value of -DNAME in the image the launched kernel came from, or dflt. */
static inline long long fakecuda_define(const fakecuda_launch *l, const char *name, long long dflt)
{
    return l && l->define ? l->define(l->image, name, dflt) : dflt;
}
/* The kernel "takes" us microseconds: events recorded around it see them. */
static inline void fakecuda_advance(const fakecuda_launch *l, double us)
{
    if (l && l->advance_us) l->advance_us(us);
}
/* The kernel faults with a sticky error (CUDA_ERROR_ILLEGAL_ADDRESS, ...):
 * its launch still returns CUDA_SUCCESS (launches are asynchronous on a real
 * GPU), then every call that needs the context answers that error, as the
 * real driver does for a context it cannot use any more. */
static inline void fakecuda_fault(const fakecuda_launch *l, int cuda_error)
{
    if (l && l->fault) l->fault(cuda_error);
}
/* The driver entry point the last launch on this thread went through
 * ("cuLaunchKernel", "cuLaunchKernelEx_ptsz", ...; "" before any). */
const char *fakecuda_last_launch(void);
/* Launches that went through entry point variant (as above) in this process. */
unsigned long fakecuda_launches(const char *variant);
/* The context that was current when the module of function fn (a
 * CUfunction or CUkernel) was loaded (NULL for a library), and the thread
 * that loaded it (pthread_self): where a module was made. */
void *fakecuda_module_context(void *fn);
unsigned long fakecuda_module_loader(void *fn);

#endif
