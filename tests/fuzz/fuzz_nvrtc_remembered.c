/* libFuzzer harness: a remembered NVRTC program's reader (hooks/
 * nvrtc_remembered_json.c) on arbitrary file text, for the image the
 * input's first 8 bytes name (so a corpus entry can match it); what it
 * accepts must be complete and bounded, and must format again.
 * fuzz-sources: hooks/nvrtc_remembered_json.c */
#include "hooks/nvrtc_remembered.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t hash = 0;
    if (size >= 8) memcpy(&hash, data, 8);
    const char *text = (const char *)data + (size >= 8 ? 8 : size);
    size_t len = size - (size >= 8 ? 8 : size);
    /* not NUL-terminated: the reader must keep to len */
    char *copy = malloc(len ? len : 1);
    if (!copy) return 0;
    memcpy(copy, text, len);
    aoe_nvrtc_remembered r;
    char why[256];
    for (size_t image = 0; image < 2; image++) {
        if (aoe_nvrtc_remembered_parse(copy, len, hash, image ? 119 : 0, &r, why, sizeof why))
            continue;
        if (!r.name || !r.source || r.num_headers < 0 || r.num_options < 0 ||
            r.num_name_expressions < 0 || r.num_headers > AOE_NVRTC_REMEMBERED_MAX_ITEMS ||
            r.num_options > AOE_NVRTC_REMEMBERED_MAX_ITEMS ||
            r.num_name_expressions > AOE_NVRTC_REMEMBERED_MAX_ITEMS ||
            (r.image_kind != AOE_NVRTC_IMAGE_CUBIN && r.image_kind != AOE_NVRTC_IMAGE_PTX) ||
            (r.nvrtc_library && r.nvrtc_library[0] != '/'))
            abort();
        for (int i = 0; i < r.num_options; i++)
            if (!r.options[i]) abort();
        for (int i = 0; i < r.num_name_expressions; i++)
            if (!r.name_expressions[i]) abort();
        aoe_nvrtc_program p = {
            r.name,
            r.source,
            r.num_headers,
            (const char *const *)r.headers,
            (const char *const *)r.include_names,
            r.num_options,
            (const char *const *)r.options,
            r.num_name_expressions,
            (const char *const *)r.name_expressions,
            (const char *const *)r.lowered_names,
            r.nvrtc_library,
        };
        char *again = aoe_nvrtc_remembered_format(&p, r.image_kind, hash, image ? 119 : 0,
                                                  r.nvrtc_library, why, sizeof why);
        if (!again) abort(); /* what was read is within the bounds */
        free(again);
        aoe_nvrtc_remembered_free(&r);
    }
    free(copy);
    return 0;
}
