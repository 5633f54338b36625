/* libFuzzer harness: the job reader on arbitrary bytes (format 1 and format 2,
 * GEMM library calls with their description included, image and sampler
 * arguments with their descriptors).
 * Whatever it accepts must survive write (format 2) -> read unchanged: the same
 * key, sizes, argument bytes and types, program, options, launch, op and
 * runtime_extra.
 * fuzz-sources: jobs/job.c jobs/job_fields.c jobs/job_image.c jobs/job_v1.c jobs/job_v2.c
 * fuzz-sources: jobs/job_options.c
 * fuzz-sources: jobs/job_write.c core/base64.c core/elem_type.c store/opkey.c
 * fuzz-sources: core/log.c jobs/gemm.c jobs/gemm_job.c store/record_check.c
 * fuzz-sources: core/json_text.c */
#include "jobs/job.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int same_str(const char *a, const char *b)
{
    return (a == NULL) == (b == NULL) && (!a || !strcmp(a, b));
}

static void check_same(const aoe_job *a, const aoe_job *b)
{
    if (a->key.hi != b->key.hi || a->key.lo != b->key.lo || a->nargs != b->nargs ||
        a->work_dim != b->work_dim || strcmp(a->kernel_name, b->kernel_name) ||
        strcmp(a->options, b->options) || a->has_local != b->has_local || a->op != b->op ||
        a->program_kind != b->program_kind || a->launch_kind != b->launch_kind ||
        a->dynamic_shared_bytes != b->dynamic_shared_bytes || a->noptions != b->noptions ||
        strcmp(a->runtime, b->runtime) || strcmp(a->fingerprint, b->fingerprint) ||
        !same_str(a->source, b->source) || a->binary_size != b->binary_size ||
        (a->binary && memcmp(a->binary, b->binary, a->binary_size)) ||
        !same_str(a->runtime_extra, b->runtime_extra) ||
        a->settings.present != b->settings.present ||
        !same_str(a->settings.bank, b->settings.bank) ||
        !same_str(a->settings.tunables, b->settings.tunables) ||
        a->settings.auto_defines != b->settings.auto_defines ||
        a->settings.max_evals != b->settings.max_evals ||
        a->settings.time_limit_s != b->settings.time_limit_s)
        abort();
    for (uint32_t d = 0; d < a->work_dim; d++)
        if (a->global[d] != b->global[d] || (a->has_local && a->local[d] != b->local[d])) abort();
    for (uint32_t i = 0; i < a->noptions; i++)
        if (strcmp(a->option_list[i], b->option_list[i])) abort();
    for (uint32_t i = 0; i < a->nargs; i++) {
        const aoe_job_arg *x = &a->args[i], *y = &b->args[i];
        if (x->kind != y->kind || x->size != y->size || x->elem != y->elem ||
            x->flags != y->flags || (x->data == NULL) != (y->data == NULL) ||
            (x->data && memcmp(x->data, y->data, x->size)))
            abort();
        if (memcmp(&x->image, &y->image, sizeof x->image) ||
            memcmp(&x->sampler, &y->sampler, sizeof x->sampler))
            abort();
    }
}

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
    if (again.format != AOE_JOB_FORMAT) abort();
    check_same(&job, &again);
    aoe_job_free(&job);
    aoe_job_free(&again);
    return 0;
}
