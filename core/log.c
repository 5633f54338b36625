#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int g_level = AOE_LOG_INFO;

void aoe_log_set_level(int level)
{
    g_level = level;
}

void aoe_log(int level, const char *fmt, ...)
{
    if (level > g_level) return;
    /* One write() per line so lines from several processes do not interleave. */
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "aoe: ");
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (m < 0) return;
    size_t len = strlen(buf);
    if (len == 0 || buf[len - 1] != '\n') buf[len++] = '\n';
    ssize_t w = write(STDERR_FILENO, buf, len);
    (void)w;
}

int aoe_errf(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}
