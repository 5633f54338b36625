// Probe (not part of the project): logs how a program reaches the CUDA driver and NVRTC.
#define _GNU_SOURCE
#include <cuda.h>
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
typedef void *(*dlsym_fn)(void *, const char *);
static dlsym_fn real_dlsym_p;
static dlsym_fn real_dlsym(void)
{
    if (!real_dlsym_p) real_dlsym_p = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (!real_dlsym_p) real_dlsym_p = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    return real_dlsym_p;
}
static const char *who(void *ra)
{
    Dl_info i;
    if (dladdr(ra, &i) && i.dli_fname) {
        const char *s = strrchr(i.dli_fname, '/');
        return s ? s + 1 : i.dli_fname;
    }
    return "?";
}
static atomic_int n;
#define LOG(...)                                                                                   \
    do {                                                                                           \
        if (atomic_fetch_add(&n, 1) < 20000) fprintf(stderr, "DRV " __VA_ARGS__);                  \
    } while (0)
typedef CUresult (*gpa2_fn)(const char *, void **, int, cuuint64_t,
                            CUdriverProcAddressQueryResult *);
typedef CUresult (*gpa1_fn)(const char *, void **, int, cuuint64_t);
static gpa2_fn real_gpa2;
static gpa1_fn real_gpa1;
static CUresult my_gpa2(const char *sym, void **pfn, int ver, cuuint64_t flags,
                        CUdriverProcAddressQueryResult *st);
static CUresult my_gpa1(const char *sym, void **pfn, int ver, cuuint64_t flags);
static CUresult my_gpa2(const char *sym, void **pfn, int ver, cuuint64_t flags,
                        CUdriverProcAddressQueryResult *st)
{
    CUresult r = real_gpa2(sym, pfn, ver, flags, st);
    Dl_info i;
    const char *nm = (pfn && *pfn && dladdr(*pfn, &i) && i.dli_sname) ? i.dli_sname : "?";
    LOG("gpa2 %s ver=%d flags=%llu -> %d status=%d real=%s from %s\n", sym, ver,
        (unsigned long long)flags, r, st ? (int)*st : -1, nm, who(__builtin_return_address(0)));
    if (r == 0 && sym && !strcmp(sym, "cuGetProcAddress"))
        *pfn = ver >= 12000 ? (void *)my_gpa2 : (void *)my_gpa1;
    return r;
}
static CUresult my_gpa1(const char *sym, void **pfn, int ver, cuuint64_t flags)
{
    CUresult r = real_gpa1(sym, pfn, ver, flags);
    Dl_info i;
    const char *nm = (pfn && *pfn && dladdr(*pfn, &i) && i.dli_sname) ? i.dli_sname : "?";
    LOG("gpa1 %s ver=%d flags=%llu -> %d real=%s from %s\n", sym, ver, (unsigned long long)flags, r,
        nm, who(__builtin_return_address(0)));
    if (r == 0 && sym && !strcmp(sym, "cuGetProcAddress"))
        *pfn = ver >= 12000 ? (void *)my_gpa2 : (void *)my_gpa1;
    return r;
}
__attribute__((visibility("default"))) void *dlsym(void *h, const char *name)
{
    void *p = real_dlsym()(h, name);
    if (name && (!strncmp(name, "cu", 2) || !strncmp(name, "nvrtc", 5))) {
        LOG("dlsym %s -> %p from %s\n", name, p, who(__builtin_return_address(0)));
        if (p && !strcmp(name, "cuGetProcAddress_v2")) {
            real_gpa2 = p;
            return (void *)my_gpa2;
        }
        if (p && !strcmp(name, "cuGetProcAddress")) {
            real_gpa1 = p;
            return (void *)my_gpa1;
        }
    }
    return p;
}
