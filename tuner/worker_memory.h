/* The tuner worker's host memory for one job, estimated before the device is
 * opened, so a job that would not fit is skipped with a reason instead of
 * pushing the machine into the OOM killer. */
#ifndef AOE_WORKER_MEMORY_H
#define AOE_WORKER_MEMORY_H

#include "jobs/job.h"

#include <stddef.h>
#include <stdint.h>

/* Runtime and compiler resident before any buffer (PoCL with LLVM: ~140 MiB). */
#define AOE_WORKER_BASE_BYTES (192ull << 20)

/* Upper estimate of the worker's peak resident bytes for job (see the
 * copies listed in worker_memory.c). */
uint64_t aoe_worker_peak_estimate(const aoe_job *job);

/* The bound in bytes: max_mb MiB, or with 0 half of MemAvailable (0 when
 * /proc/meminfo cannot be read: no bound). */
uint64_t aoe_worker_bound(long max_mb);

/* 0 when the job fits; -1 with the reason in why otherwise. */
int aoe_worker_memory_check(const aoe_job *job, long max_mb, char *why, size_t len);

#endif
