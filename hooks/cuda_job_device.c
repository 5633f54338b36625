#include "hooks/cuda_job_device.h"

#include "hooks/cuda_fingerprint.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What the tuner compares: jobs queued on this machine since it booted. */
static int boot_id(char out[64])
{
    int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, out, 63);
    close(fd);
    if (n <= 0) return -1;
    out[n] = 0;
    out[strcspn(out, "\n")] = 0;
    return out[0] ? 0 : -1;
}

int aoe_cu_job_device_add(cJSON *o, const char *fp)
{
    static const char *const vars[] = {"CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER"};
    char uuid[33], boot[64];
    cJSON *d = cJSON_AddObjectToObject(o, "device"),
          *env = d ? cJSON_AddObjectToObject(d, "env") : NULL;
    if (!env) return -1;
    if (!aoe_cuda_fingerprint_uuid(fp, uuid) && !cJSON_AddStringToObject(d, "uuid", uuid))
        return -1;
    if (!boot_id(boot) && !cJSON_AddStringToObject(d, "boot_id", boot)) return -1;
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) { /* absent: unset in the program */
        const char *v = getenv(vars[i]);
        if (v && strlen(v) <= 4096 && !cJSON_AddStringToObject(env, vars[i], v)) return -1;
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
