#include "hooks/cuda_job_device.h"

#include "hooks/cuda_fingerprint.h"
#include "jobs/job_device.h"

#include <stdlib.h>
#include <string.h>

int aoe_cu_job_device_add(cJSON *o, const char *fp)
{
    char uuid[33], boot[64];
    cJSON *d = cJSON_AddObjectToObject(o, "device"),
          *env = d ? cJSON_AddObjectToObject(d, "env") : NULL;
    if (!env) return -1;
    if (!aoe_cuda_fingerprint_uuid(fp, uuid) && !cJSON_AddStringToObject(d, "uuid", uuid))
        return -1;
    /* what the tuner compares: jobs queued on this machine since it booted */
    if (!aoe_job_boot_id(boot) && !cJSON_AddStringToObject(d, "boot_id", boot)) return -1;
    for (int i = 0; i < AOE_JOB_VIEW_VARS; i++) { /* absent: unset in the program */
        const char *v = getenv(aoe_job_view_vars[i]);
        if (v && strlen(v) <= 4096 && !cJSON_AddStringToObject(env, aoe_job_view_vars[i], v))
            return -1;
    }
    return 0;
}

int aoe_cu_job_device_add_text(char **text, const char *fp)
{
    cJSON *o = *text ? cJSON_Parse(*text) : NULL;
    char *out = o && !aoe_cu_job_device_add(o, fp) ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    if (!out) return -1;
    cJSON_free(*text);
    *text = out;
    return 0;
}
