#include "core/elem_type.h"

#include <string.h>

#define AOE_ELEM_NAME(sfx, name, size) name,
#define AOE_ELEM_SIZE(sfx, name, size) size,
static const char *const elem_names[] = {AOE_ELEM_TYPES(AOE_ELEM_NAME)};
static const unsigned char elem_sizes[] = {AOE_ELEM_TYPES(AOE_ELEM_SIZE)};

const char *aoe_elem_name(aoe_elem_type t)
{
    return (unsigned)t < AOE_ELEM_COUNT ? elem_names[t] : "?";
}

size_t aoe_elem_size(aoe_elem_type t)
{
    return (unsigned)t < AOE_ELEM_COUNT ? elem_sizes[t] : 0;
}

int aoe_elem_parse(const char *name, aoe_elem_type *out)
{
    for (unsigned i = 0; name && i < AOE_ELEM_COUNT; i++)
        if (!strcmp(name, elem_names[i])) {
            *out = (aoe_elem_type)i;
            return 0;
        }
    return -1;
}

int aoe_elem_is_float(aoe_elem_type t)
{
    return t == AOE_ELEM_F32 || t == AOE_ELEM_F16 || t == AOE_ELEM_BF16 || t == AOE_ELEM_F64;
}
