/* Where the spool lives; linked into the shim too, so no runtime calls here. */
#include "tuner/spool.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int aoe_spool_dir(const aoe_config *cfg, char *out, size_t outlen)
{
    const char *work = cfg->text[AOE_CFG_WORK_PATH];
    char bank[4096];
    int n;
    if (work && *work) {
        n = snprintf(out, outlen, "%s/spool", work);
    } else {
        if (aoe_config_bank_path(cfg, bank, sizeof bank)) return -1;
        n = snprintf(out, outlen, "%s/spool", bank);
    }
    return n < 0 || (size_t)n >= outlen ? -1 : 0;
}

int aoe_spool_mkdir(const char *dir)
{
    char tmp[4096];
    size_t len = strlen(dir);
    if (len == 0 || len >= sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(tmp, dir, len + 1);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(tmp, 0700) && errno != EEXIST) return -1;
        *p = '/';
    }
    if (mkdir(tmp, 0700) && errno != EEXIST) return -1;
    struct stat st;
    if (stat(tmp, &st) || !S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}
