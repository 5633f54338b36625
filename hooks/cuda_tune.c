/* The tuning decision at a CUDA function's first sight: a kernel of an
 * NVRTC program with a tunables declaration for runtime "cuda" (or, with
 * AOE_AUTO_DEFINES, #ifndef defaults), launched the plain way, whose
 * parameters the shim understands (kinds from the source's signature,
 * layout from cuFuncGetParamInfo, else the cubin's .nv.info, else the
 * signature's sizes), gets an aoe_cu_tunable; any other keeps its reason.
 * Never on the launch path. */
#include "hooks/cuda_tune.h"

#include "core/log.h"
#include "core/not_tuned_reasons.h"
#include "hooks/cuda_image.h"
#include "hooks/cuda_job_device.h"
#include "launch/host.h"
#include "space/autodefine.h"
#include "store/opkey.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REAL(id, type) ((type)aoe_cu_real(AOE_CUF_##id))

typedef CUresult (*param_info_fn)(CUfunction, size_t, size_t *, size_t *);
typedef CUresult (*ctx_current_fn)(CUcontext *);

/* The layout from the driver (CUDA 12.4 and up): n parameters, or -1. */
static int layout_from_driver(const void *fn, aoe_cu_param *out, int n)
{
    param_info_fn info = REAL(FUNC_PARAM_INFO, param_info_fn);
    size_t off = 0, size = 0;
    if (!info) return -1;
    for (int i = 0; i < n; i++) {
        if (info((CUfunction)fn, (size_t)i, &off, &size) != CUDA_SUCCESS) return -1;
        out[i].offset = (uint32_t)off, out[i].size = (uint32_t)size;
    }
    /* one more must not exist: the source and the driver agree on the count */
    return info((CUfunction)fn, (size_t)n, &off, &size) == CUDA_SUCCESS ? -1 : n;
}

/* The layout from the signature's sizes (each aligned to its size, at most 8). */
static int layout_from_sizes(const aoe_cu_sig_param *sig, aoe_cu_param *out, int n)
{
    uint32_t off = 0;
    for (int i = 0; i < n; i++) {
        uint32_t s = sig[i].size, a = s >= 8 ? 8 : s;
        if (!s) return -1;
        off = (off + a - 1) / a * a;
        out[i].offset = off, out[i].size = s;
        off += s;
    }
    return n;
}

/* {"headers": [...], "image": ..., "nvrtc_library": ..., "device": ...}:
 * malloc'ed, or NULL. */
static char *runtime_extra(const aoe_nvrtc_program *p, int image_kind, const char *fp)
{
    cJSON *o = cJSON_CreateObject(), *h = o ? cJSON_AddArrayToObject(o, "headers") : NULL;
    int ok = h != NULL;
    for (int i = 0; ok && i < p->num_headers; i++) {
        cJSON *e = cJSON_CreateObject();
        ok = e && cJSON_AddItemToArray(h, e) &&
             cJSON_AddStringToObject(
                 e, "name", p->include_names && p->include_names[i] ? p->include_names[i] : "") &&
             cJSON_AddStringToObject(e, "source", p->headers && p->headers[i] ? p->headers[i] : "");
    }
    const char *lib = aoe_nvrtc_program_library(p);
    ok = ok &&
         cJSON_AddStringToObject(o, "image", image_kind == AOE_NVRTC_IMAGE_PTX ? "ptx" : "cubin");
    if (ok && lib) ok = cJSON_AddStringToObject(o, "nvrtc_library", lib) != NULL;
    ok = ok && !aoe_cu_job_device_add(o, fp);
    char *text = ok ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    return text;
}

/* Whether the kernel is declared (or has #ifndef defaults with
 * AOE_AUTO_DEFINES: the rule the launch core and the tuner apply). */
static int declared(const char *name, const char *source, const char *options, aoe_hash128 hash)
{
    const aoe_launch_host *h = aoe_launch_get_host();
    if (h->tunables && h->tunables("cuda", name, source, hash)) return 1;
    return h->auto_defines && aoe_autodefine_any(source, options);
}

/* Pointers and scalars of L from its signature and layout: 0, or -1 when
 * the scalars are too many bytes for a shape. */
static int index_params(aoe_cu_tuned *L)
{
    uint32_t word = 0;
    for (uint32_t i = 0; i < L->nparams; i++) {
        if (L->sig[i].pointer) {
            L->ptr_param[L->nptrs++] = (uint8_t)i;
            continue;
        }
        uint32_t size = L->layout[i].size, words = (size + 7) / 8;
        if (!size || word + words > AOE_CU_TUNE_MAX_WORDS) return -1;
        L->scalar[L->nscalars].param = (uint8_t)i;
        L->scalar[L->nscalars].word = (uint8_t)word;
        L->scalar[L->nscalars].size = (uint16_t)size;
        L->nscalars++;
        word += words;
    }
    return 0;
}

int aoe_cu_tune_decide(aoe_cu_func *r, const void *fn, const char *name, const aoe_cu_launch *l,
                       char *why, size_t whylen)
{
    why[0] = '\0';
    const aoe_cu_module *m = r->mod;
    if (!m || !m->program) return AOE_NT_PRECOMPILED;
    const aoe_nvrtc_program *p = m->program;
    for (int i = 0; i < p->num_options; i++)
        if (!p->options || !p->options[i]) return AOE_NT_NO_TUNABLES; /* NVRTC refused it anyway */
    char *options = aoe_job_options_join((char *const *)p->options, (uint32_t)p->num_options);
    if (!options) return AOE_NT_NO_TUNABLES; /* out of memory */
    int why_not = 0;
    aoe_cu_tuned *L = NULL;
    aoe_cu_tunable *t = NULL;
    aoe_hash128 hash = aoe_program_hash(p->source, strlen(p->source));
    if (!declared(name, p->source, options, hash)) {
        why_not = AOE_NT_NO_TUNABLES;
        goto out;
    }
    if (l->kind != AOE_CU_LAUNCH_PLAIN) {
        why_not = l->kind == AOE_CU_LAUNCH_COOP     ? AOE_NT_COOPERATIVE
                  : l->kind == AOE_CU_LAUNCH_PACKED ? AOE_NT_PACKED_ARGS
                                                    : AOE_NT_LAUNCH_ATTRS;
        goto out;
    }
    if (!(L = calloc(1, sizeof *L)) || !(t = calloc(1, sizeof *t))) {
        why_not = AOE_NT_PARAMS_UNKNOWN;
        snprintf(why, whylen, "out of memory");
        goto out;
    }
    int n = aoe_cu_signature(p->source, name, L->sig, AOE_CU_TUNE_MAX_PARAMS);
    if (n < 0) {
        why_not = AOE_NT_PARAMS_UNKNOWN;
        snprintf(why, whylen, "%s", aoe_cu_signature_error(n));
        goto out;
    }
    const char *from = "cuFuncGetParamInfo";
    int got = layout_from_driver(fn, L->layout, n);
    if (got < 0 && m->nvinfo) {
        from = ".nv.info";
        aoe_cu_param tmp[AOE_CU_TUNE_MAX_PARAMS];
        got = aoe_cu_nvinfo_find(m->nvinfo, name, tmp, AOE_CU_TUNE_MAX_PARAMS);
        if (got == n)
            memcpy(L->layout, tmp, sizeof(aoe_cu_param) * (size_t)n);
        else
            got = -1;
    }
    if (got < 0) from = "the signature's sizes", got = layout_from_sizes(L->sig, L->layout, n);
    int bad = got < 0;
    for (int i = 0; !bad && i < n; i++)
        bad = (L->sig[i].pointer && L->layout[i].size != sizeof(void *)) ||
              (L->sig[i].size && L->layout[i].size != L->sig[i].size);
    L->nparams = (uint32_t)n;
    if (bad || index_params(L)) {
        why_not = AOE_NT_PARAMS_UNKNOWN;
        snprintf(why, whylen,
                 got < 0 ? "no parameter layout"
                         : "the layout (%s) disagrees with "
                           "the source, or scalars over %d bytes",
                 from, 8 * AOE_CU_TUNE_MAX_WORDS);
        goto out;
    }
    ctx_current_fn current = REAL(CTX_CURRENT, ctx_current_fn);
    if (!current || current(&t->ctx) != CUDA_SUCCESS || !t->ctx ||
        !(L->fingerprint = aoe_cu_current_fingerprint()) ||
        !(L->runtime_extra = runtime_extra(p, m->image_kind, L->fingerprint))) {
        why_not = AOE_NT_PARAMS_UNKNOWN;
        snprintf(why, whylen, "no current context or device");
        goto out;
    }
    L->options = options;
    L->source = p->source;
    L->program_hash = hash;
    t->program = p;
    t->image_kind = m->image_kind;
    snprintf(t->name, sizeof t->name, "%s", name);
    t->launch = L;
    AOE_DEBUG("CUDA kernel %s of NVRTC program %s: tuned (%u parameters, layout from %s)", name,
              p->name ? p->name : "?", L->nparams, from);
    atomic_store_explicit(&r->tunable, t, memory_order_release);
    /* for later runs that load its image from a cache without NVRTC */
    aoe_nvrtc_program_remember(p, m->image_kind);
    return 0;
out:
    if (L && L->runtime_extra) cJSON_free(L->runtime_extra);
    free(L);
    free(t);
    free(options);
    return why_not;
}
