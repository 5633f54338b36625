/* The device a job's program ran on (a CUDA job's runtime_extra.device,
 * docs/formats.md): the pieces the shim writes and the tuner reads back,
 * defined once for both. No runtime header here. */
#ifndef AOE_JOB_DEVICE_H
#define AOE_JOB_DEVICE_H

/* The program's view of the GPUs: the variables a job carries and a tuner's
 * worker sets (or unsets) as the program had them; nothing else. */
#define AOE_JOB_VIEW_VARS 2
extern const char *const aoe_job_view_vars[AOE_JOB_VIEW_VARS];

/* A device UUID's 16 bytes as 32 lowercase hex digits (+NUL). */
void aoe_job_uuid_hex(const void *bytes, char out[33]);

/* This boot of this machine (/proc/sys/kernel/random/boot_id): 0, or -1
 * when it cannot be read. A job from another boot names GPUs that may not
 * be this machine's. */
int aoe_job_boot_id(char out[64]);

#endif
