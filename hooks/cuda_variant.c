/* See cuda_variant.h. PLACEHOLDER until the variant builder lands: no
 * variant is ever ready, so every tuned kernel launches its own code. */
#include "hooks/cuda_variant.h"

CUfunction aoe_cu_variant_function(aoe_cu_tunable *t, const char *defines)
{
    (void)t;
    (void)defines;
    return NULL;
}

void aoe_cu_build_variants(void) {}

void aoe_cu_variant_atfork_child(void) {}
