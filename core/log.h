/* Logging on stderr with an "aoe: " prefix, filtered by AOE_LOG_LEVEL. */
#ifndef AOE_LOG_H
#define AOE_LOG_H

#include "core/config.h"

#include <stddef.h>

void aoe_log_set_level(int level);
void aoe_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Formats a message into err (when given) and returns -1: the common tail of
 * a validating parser that names the field at fault. */
int aoe_errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#define AOE_ERROR(...) aoe_log(AOE_LOG_ERROR, __VA_ARGS__)
#define AOE_WARN(...) aoe_log(AOE_LOG_WARN, __VA_ARGS__)
#define AOE_INFO(...) aoe_log(AOE_LOG_INFO, __VA_ARGS__)
#define AOE_DEBUG(...) aoe_log(AOE_LOG_DEBUG, __VA_ARGS__)

#endif
