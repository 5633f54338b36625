/* Test build of the shim only (libaoe_hook_nvrtcprobe.so): exports the
 * lookup the module-loading hooks use (hooks/nvrtc_programs.h), so a test
 * client can ask, for an output NVRTC handed it, which tracked program made
 * it. Production exports nothing of the kind. */
#include "hooks/nvrtc_programs.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void put(char *out, size_t len, size_t *used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void put(char *out, size_t len, size_t *used, const char *fmt, ...)
{
    if (*used >= len) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out + *used, len - *used, fmt, ap);
    va_end(ap);
    if (n > 0) *used += (size_t)n;
}

/* 1 and "name=... kind=... source_bytes=... options=[...] headers=[...]
 * names=[expr->lowered ...]" in out when a tracked program produced the
 * image; 0 otherwise. */
__attribute__((visibility("default"))) int aoe_nvrtc_probe(const void *image, size_t size,
                                                           char *out, size_t len)
{
    int kind = 0;
    const aoe_nvrtc_program *p =
        aoe_nvrtc_program_for_image(aoe_nvrtc_image_hash(image, size), size, &kind);
    if (!p) return 0;
    size_t used = 0;
    out[0] = '\0';
    put(out, len, &used, "name=%s kind=%s source_bytes=%zu options=[", p->name,
        kind == AOE_NVRTC_IMAGE_CUBIN ? "cubin" : "ptx", strlen(p->source));
    for (int i = 0; i < p->num_options; i++)
        put(out, len, &used, "%s%s", i ? " " : "", p->options[i]);
    put(out, len, &used, "] headers=[");
    for (int i = 0; i < p->num_headers; i++)
        put(out, len, &used, "%s%s:%zu", i ? " " : "",
            p->include_names[i] ? p->include_names[i] : "(null)",
            p->headers[i] ? strlen(p->headers[i]) : 0);
    put(out, len, &used, "] names=[");
    for (int i = 0; i < p->num_name_expressions; i++)
        put(out, len, &used, "%s%s->%s", i ? " " : "", p->name_expressions[i],
            p->lowered_names[i] ? p->lowered_names[i] : "(none)");
    put(out, len, &used, "]");
    aoe_nvrtc_program_release(p);
    return 1;
}

/* The program that made the image, held (a reference) for later, or NULL:
 * the test keeps it across the tracker forgetting it. */
__attribute__((visibility("default"))) const void *aoe_nvrtc_probe_hold(const void *image,
                                                                        size_t size)
{
    return aoe_nvrtc_program_for_image(aoe_nvrtc_image_hash(image, size), size, NULL);
}

/* The held program's name into out, then the reference given back. */
__attribute__((visibility("default"))) void aoe_nvrtc_probe_name_release(const void *held,
                                                                         char *out, size_t len)
{
    const aoe_nvrtc_program *p = held;
    snprintf(out, len, "%s", p->name);
    aoe_nvrtc_program_release(p);
}
