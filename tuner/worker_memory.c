/* Worker memory estimate. Per buffer (or image) of s bytes the worker holds:
 *   device: the guarded allocation and the pristine copy (2s; on a CPU device
 *           both are host memory),
 *   host:   the read-back copy (s) and the initial contents (s: the job's own
 *           captured bytes, or generated synthetic ones),
 *   reference (buffers the program may write): the plain, poisoned-1 and
 *           poisoned-2 outputs and the written-bytes mask (4s), for a
 *           read-only buffer only the plain output (s).
 * So 8s per writable buffer, 5s per read-only one, plus the runtime. An
 * image may also need the poison it is filled with written from the host (an
 * image has no fill of arbitrary bytes): one more s. */
#include "tuner/worker_memory.h"
#include "tuner/exec.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

uint64_t aoe_worker_peak_estimate(const aoe_job *job)
{
    uint64_t total = AOE_WORKER_BASE_BYTES;
    const aoe_exec_ops *ex = aoe_exec_find(job->runtime);
    for (uint32_t i = 0; i < job->nargs; i++) {
        const aoe_job_arg *a = &job->args[i];
        if (!aoe_job_arg_has_memory(a->kind)) continue;
        uint64_t copies = ex && ex->job_read_only && ex->job_read_only(job, i) ? 5 : 8;
        copies += a->kind == AOE_JOB_ARG_IMAGE;
        uint64_t s = a->size ? a->size : 1;
        total += s > UINT64_MAX / 16 ? UINT64_MAX / 16 : s * copies;
        if (total > UINT64_MAX / 2) return UINT64_MAX / 2;
    }
    return total;
}

static uint64_t mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "re");
    char line[256];
    uint64_t kb = 0;
    if (!f) return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %" SCNu64 " kB", &kb) == 1) break;
    fclose(f);
    return kb << 10;
}

uint64_t aoe_worker_bound(long max_mb)
{
    if (max_mb > 0) return (uint64_t)max_mb << 20;
    return mem_available() / 2;
}

int aoe_worker_memory_check(const aoe_job *job, long max_mb, char *why, size_t len)
{
    uint64_t bound = aoe_worker_bound(max_mb), need = aoe_worker_peak_estimate(job);
    if (!bound || need <= bound) return 0;
    snprintf(why, len,
             "skipped: the worker would need about %" PRIu64 " MiB for this job's buffers, above "
             "its bound of %" PRIu64 " MiB (%s; set AOE_TUNER_MAX_MB to change it)",
             need >> 20, bound >> 20, max_mb > 0 ? "AOE_TUNER_MAX_MB" : "half of MemAvailable");
    return -1;
}
