/* The driver hooks' hook point (hooks/cuda_image.h, aoe_nvrtc_image_program):
 * which NVRTC program an image loaded as a module came from, answered from
 * the NVRTC program tracker (hooks/nvrtc_programs.h) by its own hash over the
 * image's bytes. A text image (PTX, the test doubles' cubins) is hashed with
 * its final NUL, as nvrtcGetPTXSize counts it; the driver measures it
 * without. Called at module load only. Also: the path of the libnvrtc the
 * program used (a tuning job's runtime_extra.nvrtc_library). */
#include "hooks/cuda_image.h"
#include "hooks/nvrtc_internal.h"
#include "hooks/nvrtc_programs.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const aoe_nvrtc_program *aoe_nvrtc_image_program(const void *image, size_t len, uint64_t hash,
                                                 int *kind)
{
    (void)hash; /* the driver's FNV-1a; the tracker keys by its own */
    const void *start = NULL;
    size_t measured = 0;
    if (!image || !len) return NULL;
    int what = aoe_cu_image_measure(image, &start, &measured);
    if (what == AOE_CU_IMAGE_TEXT) len = measured + 1;
    uint64_t h = aoe_nvrtc_image_hash(image, len);
    const aoe_nvrtc_program *p = aoe_nvrtc_program_for_image(h, len, kind);
    /* Not compiled in this process: a warm run may load a cached image of
     * a program tuned in an earlier run (NVRTC's output is only a cubin or
     * PTX: a fatbin is never looked for). */
    aoe_nvrtc_remembered r;
    if (!p && (what == AOE_CU_IMAGE_ELF || what == AOE_CU_IMAGE_TEXT) &&
        !aoe_nvrtc_recall(h, len, &r)) {
        int k = r.image_kind;
        if ((p = aoe_nv_track_remembered(&r, h, len)) && kind) *kind = k;
    }
    return p;
}

const char *aoe_nvrtc_program_library(const aoe_nvrtc_program *p)
{
    return p->nvrtc_library ? p->nvrtc_library : aoe_nvrtc_library_path();
}

const char *aoe_nvrtc_library_path(void)
{
    static char path[4096];
    static atomic_int state; /* 0: not asked, 1: asking, 2: answered */
    int expect = 0;
    if (atomic_compare_exchange_strong(&state, &expect, 1)) {
        void *fn = aoe_nv_real(AOE_NVF_nvrtcCompileProgram);
        Dl_info info;
        char resolved[PATH_MAX];
        if (fn && dladdr(fn, &info) && info.dli_fname) {
            const char *p = realpath(info.dli_fname, resolved) ? resolved : info.dli_fname;
            if (p[0] == '/') snprintf(path, sizeof path, "%s", p);
        }
        atomic_store(&state, 2);
    }
    return atomic_load(&state) == 2 && path[0] ? path : NULL;
}
