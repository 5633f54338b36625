#include "core/layout.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Set by CMake from the install directories; the defaults are the build tree. */
#ifndef AOE_BIN_TO_LIB
#define AOE_BIN_TO_LIB "../lib"
#endif
#ifndef AOE_LIB_TO_BIN
#define AOE_LIB_TO_BIN "../bin"
#endif
#ifndef AOE_BIN_TO_DATA
#define AOE_BIN_TO_DATA "../share/aoe"
#endif
#ifndef AOE_LIB_TO_DATA
#define AOE_LIB_TO_DATA "../share/aoe"
#endif

int aoe_layout_exe_dir(char *out, size_t len)
{
    if (len < 2) return -1;
    ssize_t n = readlink("/proc/self/exe", out, len - 1);
    if (n <= 0 || (size_t)n >= len - 1) return -1; /* error, or possibly truncated */
    out[n] = '\0';
    char *slash = strrchr(out, '/');
    if (!slash) return -1;
    *slash = '\0';
    return 0;
}

int aoe_layout_find(const char *dir, aoe_layout_from from, aoe_layout_what what, char *out,
                    size_t len)
{
    const char *installed, *build, *name;
    switch (what) {
    case AOE_LAYOUT_CLI:
        installed = from == AOE_FROM_BIN ? "." : AOE_LIB_TO_BIN;
        build = from == AOE_FROM_BIN ? "." : "../bin";
        name = "aoe";
        break;
    case AOE_LAYOUT_SHIM:
        installed = from == AOE_FROM_LIB ? "." : AOE_BIN_TO_LIB;
        build = from == AOE_FROM_LIB ? "." : "../lib";
        name = "libaoe_hook.so";
        break;
    default:
        installed = from == AOE_FROM_BIN ? AOE_BIN_TO_DATA : AOE_LIB_TO_DATA;
        build = "../share/aoe";
        name = "tunables";
        break;
    }
    /* The installed layout first; the build tree's only when it differs
     * (a LIBDIR such as lib64 or lib/<multiarch>). */
    const char *cand[] = {installed, build};
    size_t ncand = strcmp(installed, build) ? 2 : 1;
    for (size_t i = 0; i < ncand; i++) {
        int w = snprintf(out, len, "%s/%s/%s", dir, cand[i], name);
        if (w < 0 || (size_t)w >= len) continue;
        struct stat st;
        if (stat(out, &st)) continue;
        if (what == AOE_LAYOUT_TUNABLES ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode)) return 0;
    }
    snprintf(out, len, "%s/%s/%s", dir, installed, name);
    return -1;
}
