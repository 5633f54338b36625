/* Shared by the driver-API clients: the fake image they load (fake_image.h
 * format: kernels vadd and fill of libfakecuda_kernels.so, SCALE=2) and a
 * few checks. Output lines starting with "owner " name the library an entry
 * point lies in (the shim or the driver): the tests compare everything else
 * with and without the shim. */
#ifndef CUDA_DRIVER_COMMON_H
#define CUDA_DRIVER_COMMON_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char fake_image[] = "AOEFAKECUBIN 1\n"
                                 "arch sm_90\n"
                                 "define SCALE 2\n"
                                 "kernel vadd\n"
                                 "kernel fill\n"
                                 "hash 00000000000000aa\n";

#define CHECK(call)                                                                                \
    do {                                                                                           \
        int rc_ = (int)(call);                                                                     \
        if (rc_) {                                                                                 \
            fprintf(stderr, "%s:%d: %s = %d\n", __FILE__, __LINE__, #call, rc_);                   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* "owner NAME: libfoo.so" for an entry point p. */
static __attribute__((unused)) void print_owner(const char *what, const void *p)
{
    Dl_info info;
    const char *lib = p && dladdr(p, &info) && info.dli_fname ? info.dli_fname : "?";
    const char *slash = strrchr(lib, '/');
    printf("owner %s: %s\n", what, slash ? slash + 1 : lib);
}

#endif
