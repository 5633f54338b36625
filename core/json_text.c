#include "core/json_text.h"

#include <errno.h>

cJSON *aoe_json_parse(const char *text, size_t len, const char **end, bool *oom)
{
    *oom = false;
    if (!text) return NULL;
    errno = 0;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, end, 0);
    *oom = !root && errno == ENOMEM;
    return root;
}
