#include "jobs/job_device.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char *const aoe_job_view_vars[AOE_JOB_VIEW_VARS] = {"CUDA_VISIBLE_DEVICES",
                                                          "CUDA_DEVICE_ORDER"};

void aoe_job_uuid_hex(const void *bytes, char out[33])
{
    const unsigned char *b = bytes;
    for (int i = 0; i < 16; i++) snprintf(out + 2 * i, 3, "%02x", b[i]);
}

int aoe_job_boot_id(char out[64])
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
