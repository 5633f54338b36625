/* Loads the OpenCL ICD loader on demand (see exec_opencl_api.h). Only the
 * worker process that opens a job calls this; the library stays loaded for
 * the process's life (runtimes do not survive being unloaded). */
#include "tuner/exec_opencl_api.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define AOE_CL_LIBRARY "libOpenCL.so.1"
#define AOE_CL_HINT "(install ocl-icd-libopencl1 and a driver such as pocl-opencl-icd)"

_Static_assert(sizeof(void *) == sizeof(cl_api_clFinish), "dlsym results must fit");

aoe_cl_api aoe_cl;
aoe_cl_optional_api aoe_cl_opt;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int load_rc;
static char load_err[512];

static void load(void)
{
    void *h = dlopen(AOE_CL_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        snprintf(load_err, sizeof load_err, "OpenCL runtime not available: %s %s",
                 why ? why : AOE_CL_LIBRARY, AOE_CL_HINT);
        load_rc = -1;
        return;
    }
    aoe_cl_api api;
    /* dlsym returns void *; memcpy turns it into a function pointer without
     * the cast ISO C leaves undefined. */
#define AOE_CL_RESOLVE(name)                                                                       \
    do {                                                                                           \
        void *sym = dlsym(h, #name);                                                               \
        if (!sym) {                                                                                \
            snprintf(load_err, sizeof load_err,                                                    \
                     "OpenCL runtime not available: %s has no %s (too old?) %s", AOE_CL_LIBRARY,   \
                     #name, AOE_CL_HINT);                                                          \
            load_rc = -1;                                                                          \
            dlclose(h);                                                                            \
            return;                                                                                \
        }                                                                                          \
        memcpy(&api.name, &sym, sizeof api.name);                                                  \
    } while (0);
    AOE_CL_FUNCTIONS(AOE_CL_RESOLVE)
#undef AOE_CL_RESOLVE
    aoe_cl_optional_api opt;
#define AOE_CL_RESOLVE_OPTIONAL(name)                                                              \
    do {                                                                                           \
        void *sym = dlsym(h, #name);                                                               \
        memcpy(&opt.name, &sym, sizeof opt.name);                                                  \
    } while (0);
    AOE_CL_OPTIONAL(AOE_CL_RESOLVE_OPTIONAL)
#undef AOE_CL_RESOLVE_OPTIONAL
    aoe_cl = api;
    aoe_cl_opt = opt;
    load_rc = 0;
}

int aoe_cl_api_load(char *err, size_t errlen)
{
    pthread_once(&once, load);
    if (load_rc && err && errlen) snprintf(err, errlen, "%s", load_err);
    return load_rc;
}
