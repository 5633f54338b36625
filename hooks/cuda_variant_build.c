/* Building one variant of a tuned CUDA kernel (the poller thread, see
 * cuda_variant.h): its NVRTC program compiled again through the real NVRTC
 * (never the shim's wrappers: the shim's own compiles are not user programs
 * and are not tracked) with the policy's -D values added, one option each,
 * then loaded with t's context pushed current on this thread through the
 * real driver, and the kernel looked up by its lowered name. */
#include "hooks/cuda_variant.h"
#include "hooks/nvrtc_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CU_REAL(id, fn) ((__typeof__(&fn))aoe_cu_real(AOE_CUF_##id))
/* The NVRTC entry point fn of the table f (aoe_nv_real_table). */
#define NV_FN(f, fn) ((__typeof__(&fn))(f)[AOE_NVF_##fn])

/* A log larger than this is not read for its first line. */
#define MAX_LOG ((size_t)16 << 20)

static const char *nv_error(void *const *f, nvrtcResult r)
{
    __typeof__(&nvrtcGetErrorString) str = NV_FN(f, nvrtcGetErrorString);
    const char *s = str ? str(r) : NULL;
    return s ? s : "NVRTC error";
}

static void cu_error(CUresult r, char *out, size_t len)
{
    __typeof__(&cuGetErrorName) name = CU_REAL(ERROR_NAME, cuGetErrorName);
    const char *s = NULL;
    if (name && name(r, &s) == CUDA_SUCCESS && s)
        snprintf(out, len, "%s", s);
    else
        snprintf(out, len, "CUDA error %d", (int)r);
}

/* The first non-blank line of prog's log into out ("" when there is none). */
static void first_log_line(void *const *f, nvrtcProgram prog, char *out, size_t len)
{
    __typeof__(&nvrtcGetProgramLogSize) size_of = NV_FN(f, nvrtcGetProgramLogSize);
    __typeof__(&nvrtcGetProgramLog) get = NV_FN(f, nvrtcGetProgramLog);
    size_t n = 0;
    out[0] = '\0';
    if (!size_of || !get || size_of(prog, &n) != NVRTC_SUCCESS || n == 0 || n > MAX_LOG) return;
    char *log = malloc(n + 1);
    if (!log) return;
    if (get(prog, log) == NVRTC_SUCCESS) {
        log[n] = '\0';
        for (const char *p = log; *p;) {
            size_t l = strcspn(p, "\r\n");
            const char *q = p, *end = p + l;
            while (q < end && isspace((unsigned char)*q)) q++;
            if (q < end) {
                snprintf(out, len, "%.*s", (int)(end - q), q);
                break;
            }
            p = end + (*end != '\0');
        }
    }
    free(log);
}

/* The program's options as it gave them, then each -D of defines as its own
 * option: one allocation (the array, then a copy of defines it points into). */
static char **variant_options(const aoe_nvrtc_program *p, const char *defines, int *n)
{
    size_t dlen = strlen(defines);
    int nd = 0;
    for (const char *d = defines; *d;) {
        d += strspn(d, " ");
        if (*d) nd++;
        d += strcspn(d, " ");
    }
    size_t slots = (size_t)p->num_options + (size_t)nd + 1;
    char **opts = malloc(slots * sizeof *opts + dlen + 1);
    if (!opts) return NULL;
    char *copy = (char *)(opts + slots);
    memcpy(copy, defines, dlen + 1);
    int k = 0;
    for (int i = 0; i < p->num_options; i++) opts[k++] = (char *)p->options[i];
    char *save = NULL;
    for (char *tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
        opts[k++] = tok;
    opts[k] = NULL;
    *n = k;
    return opts;
}

/* The program's output (t's image kind) into a new allocation, or NULL. */
static char *output(void *const *f, const aoe_cu_tunable *t, nvrtcProgram prog, char *why,
                    size_t wlen)
{
    int cubin = t->image_kind == AOE_NVRTC_IMAGE_CUBIN;
    nvrtcResult (*size_of)(nvrtcProgram, size_t *) =
        cubin ? NV_FN(f, nvrtcGetCUBINSize) : NV_FN(f, nvrtcGetPTXSize);
    nvrtcResult (*get)(nvrtcProgram, char *) =
        cubin ? NV_FN(f, nvrtcGetCUBIN) : NV_FN(f, nvrtcGetPTX);
    size_t size = 0;
    nvrtcResult r = size_of && get ? size_of(prog, &size) : NVRTC_ERROR_INTERNAL_ERROR;
    if (r != NVRTC_SUCCESS || size == 0) {
        snprintf(why, wlen, "gave no %s (%s)", cubin ? "cubin" : "PTX",
                 r != NVRTC_SUCCESS ? nv_error(f, r) : "empty");
        return NULL;
    }
    char *image = malloc(size + 1);
    if (!image) {
        snprintf(why, wlen, "out of memory");
        return NULL;
    }
    image[size] = '\0'; /* a PTX image counts its NUL already; a cubin is not text */
    if ((r = get(prog, image)) != NVRTC_SUCCESS) {
        snprintf(why, wlen, "gave no %s (%s)", cubin ? "cubin" : "PTX", nv_error(f, r));
        free(image);
        return NULL;
    }
    return image;
}

/* t's program compiled with defines: its output, or NULL and why. */
static char *compile(const aoe_cu_tunable *t, const char *defines, char *why, size_t wlen)
{
    const aoe_nvrtc_program *p = t->program;
    void *f[AOE_NVF_COUNT];
    char lib_why[4400];
    if (aoe_nv_real_table(p->nvrtc_library, f, lib_why, sizeof lib_why)) {
        snprintf(why, wlen, "was not compiled: %s", lib_why);
        return NULL;
    }
    __typeof__(&nvrtcCreateProgram) create = NV_FN(f, nvrtcCreateProgram);
    __typeof__(&nvrtcAddNameExpression) add_name = NV_FN(f, nvrtcAddNameExpression);
    __typeof__(&nvrtcCompileProgram) build = NV_FN(f, nvrtcCompileProgram);
    __typeof__(&nvrtcDestroyProgram) destroy = NV_FN(f, nvrtcDestroyProgram);
    if (!create || !add_name || !build || !destroy) {
        snprintf(why, wlen, "was not compiled: no NVRTC library is loaded");
        return NULL;
    }
    nvrtcProgram prog = NULL;
    nvrtcResult r = create(&prog, p->source, p->name, p->num_headers, p->headers, p->include_names);
    if (r != NVRTC_SUCCESS) {
        snprintf(why, wlen, "was not compiled: nvrtcCreateProgram: %s", nv_error(f, r));
        return NULL;
    }
    /* Template instantiations exist only when named (their lowered names too). */
    for (int i = 0; i < p->num_name_expressions && r == NVRTC_SUCCESS; i++)
        r = add_name(prog, p->name_expressions[i]);
    int n = 0;
    char **opts = r == NVRTC_SUCCESS ? variant_options(p, defines, &n) : NULL;
    if (opts) r = build(prog, n, (const char *const *)opts);
    char *image = NULL;
    if (!opts && r == NVRTC_SUCCESS) {
        snprintf(why, wlen, "was not compiled: out of memory");
    } else if (r != NVRTC_SUCCESS) {
        char line[256];
        first_log_line(f, prog, line, sizeof line);
        snprintf(why, wlen, "did not compile: %s", line[0] ? line : nv_error(f, r));
    } else {
        image = output(f, t, prog, why, wlen);
    }
    free(opts);
    destroy(&prog);
    return image;
}

/* image loaded as a module in t's context (pushed current on this thread
 * for the calls) and t's kernel found in it; 0, or -1 and why. */
static int load(const aoe_cu_tunable *t, const char *image, CUmodule *mod, CUfunction *fn,
                char *why, size_t wlen)
{
    __typeof__(&cuCtxPushCurrent) push = CU_REAL(CTX_PUSH, cuCtxPushCurrent);
    __typeof__(&cuCtxPopCurrent) pop = CU_REAL(CTX_POP, cuCtxPopCurrent);
    __typeof__(&cuModuleLoadData) load_data = CU_REAL(MOD_DATA, cuModuleLoadData);
    __typeof__(&cuModuleGetFunction) get = CU_REAL(MOD_GET_FN, cuModuleGetFunction);
    __typeof__(&cuModuleUnload) unload = CU_REAL(MOD_UNLOAD, cuModuleUnload);
    if (!push || !pop || !load_data || !get || !unload) {
        snprintf(why, wlen, "was not loaded: the CUDA driver is not loaded");
        return -1;
    }
    char err[64];
    CUresult r = push(t->ctx);
    if (r != CUDA_SUCCESS) {
        cu_error(r, err, sizeof err);
        snprintf(why, wlen, "was not loaded: cuCtxPushCurrent: %s", err);
        return -1;
    }
    const char *step = "was not loaded: cuModuleLoadData";
    int mode = aoe_cu_capture_mode_relaxed();
    r = load_data(mod, image);
    if (r == CUDA_SUCCESS) {
        step = "has no such function: cuModuleGetFunction";
        if ((r = get(fn, *mod, t->name)) != CUDA_SUCCESS) unload(*mod);
    }
    aoe_cu_capture_mode_restore(mode);
    CUcontext popped = NULL;
    pop(&popped);
    if (r != CUDA_SUCCESS) {
        cu_error(r, err, sizeof err);
        snprintf(why, wlen, "%s: %s", step, err);
        return -1;
    }
    return 0;
}

int aoe_cu_variant_build(const aoe_cu_tunable *t, const char *defines, CUmodule *mod,
                         CUfunction *fn, char *why, size_t wlen)
{
    char *image = compile(t, defines, why, wlen);
    if (!image) return -1;
    int rc = load(t, image, mod, fn, why, wlen);
    free(image);
    return rc;
}
