/* Where the spool lives; linked into the shim too, so no runtime calls here. */
#include "jobs/spool_protocol.h"

#include "core/fs_safe.h"

#include <stdio.h>

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

int aoe_spool_mkdir_err(const char *dir, char *err, size_t errlen)
{
    /* The spool holds jobs (code and data) and the tuner's log: it must be
     * ours alone; one we own with wider permissions is tightened to 0700. */
    return aoe_fs_private_dir(dir, AOE_FS_CREATE | AOE_FS_TIGHTEN, err, errlen);
}

int aoe_spool_mkdir(const char *dir)
{
    return aoe_spool_mkdir_err(dir, NULL, 0);
}
