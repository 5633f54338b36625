/* Parsing JSON text with cJSON, and why it failed. */
#ifndef AOE_CORE_JSON_TEXT_H
#define AOE_CORE_JSON_TEXT_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

/* cJSON_ParseWithLengthOpts(text, len, end, 0) (NULL for a NULL text). On a
 * failure *oom says whether memory ran out rather than the text being bad,
 * which cJSON does not tell: errno, cleared first, is ENOMEM then (and stays
 * so for the caller). */
cJSON *aoe_json_parse(const char *text, size_t len, const char **end, bool *oom);

#endif
