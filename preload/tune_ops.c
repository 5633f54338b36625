#include "preload/tune_ops.h"

#include "core/log.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PATTERNS 256

static char *g_patterns[MAX_PATTERNS];
static int g_count;
static bool g_filter; /* a file was given: unlisted kernels are not tuned */

int aoe_tune_ops_load(const char *path)
{
    if (!path || !*path) return 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        aoe_log(AOE_LOG_ERROR, "AOE_TUNE_OPS=\"%s\": %s; AOE is disabled for this run", path,
                strerror(errno));
        return -1;
    }
    g_filter = true;
    char line[512];
    while (fgets(line, sizeof line, f) && g_count < MAX_PATTERNS) {
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char *s = line;
        while (*s == ' ' || *s == '\t') s++;
        size_t n = strlen(s);
        while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
            s[--n] = '\0';
        if (!n) continue;
        g_patterns[g_count] = strdup(s);
        if (g_patterns[g_count]) g_count++;
    }
    fclose(f);
    return 0;
}

bool aoe_tune_ops_allows(const char *kernel_name)
{
    if (!g_filter) return true;
    for (int i = 0; i < g_count; i++)
        if (fnmatch(g_patterns[i], kernel_name, 0) == 0) return true;
    return false;
}
