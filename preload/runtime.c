/* The runtime registry: the descriptors named by preload/runtime_list.h, in
 * list order, and look-ups over them for the rest of preload/. */
#include "preload/runtime.h"

#include "preload/runtime_list.h"

#include <stddef.h>

#define AOE_RUNTIME_DECLARE(rt) extern const aoe_runtime aoe_runtime_##rt;
AOE_RUNTIMES(AOE_RUNTIME_DECLARE)
AOE_EXTRA_RUNTIMES(AOE_RUNTIME_DECLARE)
#undef AOE_RUNTIME_DECLARE

#define AOE_RUNTIME_ADDRESS(rt) &aoe_runtime_##rt,
const aoe_runtime *const aoe_runtimes[] = {AOE_RUNTIMES(AOE_RUNTIME_ADDRESS)
                                               AOE_EXTRA_RUNTIMES(AOE_RUNTIME_ADDRESS) NULL};
#undef AOE_RUNTIME_ADDRESS

AOE_UNINSTRUMENTED const aoe_runtime *aoe_runtime_for_symbol(const char *name)
{
    return aoe_runtime_match_symbol(aoe_runtimes, name);
}

const aoe_runtime *aoe_runtime_by_name(const char *name)
{
    return aoe_runtime_match_name(aoe_runtimes, name);
}

void aoe_runtime_each(void (*fn)(const aoe_runtime *rt, void *ctx), void *ctx)
{
    for (const aoe_runtime *const *rt = aoe_runtimes; *rt; rt++) fn(*rt, ctx);
}

int aoe_runtime_skips_object(const char *path)
{
    return aoe_runtime_match_object(aoe_runtimes, path);
}
