/* libFuzzer harness: the CUDA kernel signature scan (hooks/cuda_signature.c)
 * on arbitrary source text, asked for a plain and a lowered name taken from
 * the input itself; what it answers must be within bounds.
 * fuzz-sources: hooks/cuda_signature.c core/elem_type.c core/elem_type_name.c */
#include "hooks/cuda_signature.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *src = malloc(size + 1);
    if (!src) return 0;
    memcpy(src, data, size);
    src[size] = '\0';
    /* the name: the first line (at most 64 bytes), the source: all of it */
    char name[65];
    size_t n = strcspn(src, "\n");
    if (n > 64) n = 64;
    memcpy(name, src, n);
    name[n] = '\0';
    aoe_cu_sig_param p[8];
    const char *names[] = {name, "k", "_Z1kPfPKfS1_i"};
    for (int i = 0; i < 3; i++) {
        int r = aoe_cu_signature(src, names[i], p, 8);
        if (r > 8 || r < AOE_CU_SIG_TOO_MANY) abort();
        for (int j = 0; j < r; j++)
            if ((unsigned)p[j].elem >= AOE_ELEM_COUNT || p[j].size > 16) abort();
    }
    free(src);
    return 0;
}
