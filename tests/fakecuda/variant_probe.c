/* Test build of the shim only (libaoe_hook_cudaprobe.so): asks for a tuned
 * kernel's variants the way the launch path does (hooks/cuda_variant.h), so
 * a test client can check what the builder makes. The tunable is made as
 * the launch path makes one: the NVRTC program that produced the loaded
 * image (hooks/nvrtc_programs.h), the image's kind, the function's name as
 * the driver gives it, the context its module was loaded into. Production
 * exports nothing of the kind. */
#include "hooks/cuda_variant.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef CUresult (*name_fn)(const char **, CUfunction);

/* The tunables made, reachable for good (as the launch path's are from its
 * function records). */
static aoe_cu_tunable *g_made[256];
static atomic_int g_nmade;

/* A tunable for fn (loaded from image, size bytes as NVRTC counted them,
 * into ctx), or NULL when no tracked program made the image. Never freed,
 * as the launch path's. */
AOE_CU_EXPORT void *aoe_cu_probe_tunable(CUfunction fn, CUcontext ctx, const void *image,
                                         size_t size)
{
    int kind = 0;
    const aoe_nvrtc_program *p =
        aoe_nvrtc_program_for_image(aoe_nvrtc_image_hash(image, size), size, &kind);
    if (!p) return NULL;
    name_fn fname = (name_fn)aoe_cu_real(AOE_CUF_FUNC_NAME);
    const char *name = NULL;
    int slot = atomic_fetch_add(&g_nmade, 1);
    aoe_cu_tunable *t = slot < 256 ? calloc(1, sizeof *t) : NULL;
    if (!t || !fname || fname(&name, fn) != CUDA_SUCCESS || !name) {
        free(t);
        aoe_nvrtc_program_release(p);
        return NULL;
    }
    t->program = p; /* held for good */
    t->image_kind = kind;
    snprintf(t->name, sizeof t->name, "%s", name);
    t->ctx = ctx;
    g_made[slot] = t;
    return t;
}

/* Asks for the variant with defines until it is ready, failed, or wait_ms
 * passed: its function, or NULL with *state AOE_VAR_FAILED, AOE_VAR_PENDING
 * (still building) or -1 (no variant recorded: past the bound, or the exit
 * has begun). */
AOE_CU_EXPORT CUfunction aoe_cu_probe_variant(void *tunable, const char *defines, int wait_ms,
                                              int *state)
{
    aoe_cu_tunable *t = tunable;
    for (int waited = 0;; waited++) {
        CUfunction f = aoe_cu_variant_function(t, defines);
        aoe_variant *v = aoe_variant_find(&t->variants, defines);
        int st = f ? AOE_VAR_READY : v ? atomic_load(&v->state) : -1;
        /* ready between the two reads: ask again for its function */
        if (!f && st == AOE_VAR_READY) st = AOE_VAR_PENDING;
        if (f || st != AOE_VAR_PENDING || waited >= wait_ms) {
            *state = st;
            return f;
        }
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
}
