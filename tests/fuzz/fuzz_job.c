/* libFuzzer harness: the job reader on arbitrary bytes. Whatever it accepts
 * must survive write -> read unchanged (same key, sizes and argument bytes).
 * fuzz-sources: jobs/job.c jobs/job_write.c core/base64.c store/opkey.c core/log.c */
#include "jobs/job.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    aoe_job job, again;
    char err[512], path[64];
    if (aoe_job_parse((const char *)data, size, &job, err, sizeof err)) {
        if (!err[0]) abort(); /* every rejection says why */
        return 0;
    }
    snprintf(path, sizeof path, "/tmp/aoe_fuzz_job.%ld", (long)getpid());
    if (aoe_job_write(path, &job)) abort();
    if (aoe_job_read(path, &again, err, sizeof err)) {
        fprintf(stderr, "re-read failed: %s\n", err);
        abort();
    }
    unlink(path);
    if (again.key.hi != job.key.hi || again.key.lo != job.key.lo || again.nargs != job.nargs ||
        again.work_dim != job.work_dim || strcmp(again.kernel_name, job.kernel_name) ||
        strcmp(again.options, job.options) || again.has_local != job.has_local)
        abort();
    for (uint32_t i = 0; i < job.nargs; i++) {
        const aoe_job_arg *a = &job.args[i], *b = &again.args[i];
        if (a->kind != b->kind || a->size != b->size || (a->data == NULL) != (b->data == NULL) ||
            (a->data && memcmp(a->data, b->data, a->size)))
            abort();
    }
    aoe_job_free(&job);
    aoe_job_free(&again);
    return 0;
}
