#include "core/log_memo.h"

#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>

void aoe_log_changed(aoe_log_memo *memo, int level, const char *fmt, ...)
{
    char buf[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    uint64_t h = 1469598103934665603ull; /* FNV-1a; 0 stays "nothing logged" */
    for (const char *p = buf; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
    h |= 1;
    if (atomic_exchange(memo, h) != h) aoe_log(level, "%s", buf);
}
