/* The device a CUDA job's program ran on, for the tuner that takes the job
 * (runtime_extra.device, docs/formats.md): its UUID, the program's own view
 * of the GPUs (CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER) and the boot it was
 * seen in. One background tuner serves every program of a spool, started in
 * the environment of one of them: with these it tunes each job on its own
 * program's GPU. Shared by the driver and the cuBLAS hooks; capture only. */
#ifndef AOE_CUDA_JOB_DEVICE_H
#define AOE_CUDA_JOB_DEVICE_H

#include <cjson/cJSON.h>

/* Adds "device" to the runtime_extra object o for the device whose interned
 * fingerprint is fp. 0, or -1 when out of memory. */
int aoe_cu_job_device_add(cJSON *o, const char *fp);
/* The same on runtime_extra as text (*text replaced, cJSON_free'd). */
int aoe_cu_job_device_add_text(char **text, const char *fp);

#endif
