/* Job assembly at an operator's first sight: the program, the launch's sizes
 * and every argument (scalars by value, buffers through the runtime's
 * callback, images and samplers too, local-memory sizes), written into the spool once per key. */
#include "launch/host.h"
#include "launch/sight.h"

#include "core/log.h"
#include "core/not_tuned_reasons.h"

#include <stdlib.h>
#include <string.h>

static void fill_arg(aoe_job_arg *ja, const aoe_launch_desc *d, uint32_t i, uint64_t limit)
{
    const aoe_arg_shape *a = &d->shapes[i];
    memset(ja, 0, sizeof *ja);
    switch (a->kind) {
    case AOE_ARGK_SCALAR:
        ja->kind = AOE_JOB_ARG_SCALAR;
        ja->size = a->size;
        ja->data = malloc(a->size ? a->size : 1);
        if (ja->data && a->size) memcpy(ja->data, a->bytes, a->size);
        break;
    case AOE_ARGK_BUFFER:
        ja->kind = AOE_JOB_ARG_BUFFER;
        ja->size = a->extent;
        if (d->rt && d->rt->buffer) d->rt->buffer(d, i, ja, limit);
        break;
    case AOE_ARGK_IMAGE: /* the hook sets the descriptor and the size */
    case AOE_ARGK_SAMPLER:
        ja->kind = a->kind == AOE_ARGK_IMAGE ? AOE_JOB_ARG_IMAGE : AOE_JOB_ARG_SAMPLER;
        if (d->rt && d->rt->buffer) d->rt->buffer(d, i, ja, limit);
        break;
    case AOE_ARGK_LOCAL:
        ja->kind = AOE_JOB_ARG_LOCAL;
        ja->size = a->extent;
        break;
    default:
        ja->kind = AOE_JOB_ARG_NULLMEM;
        ja->size = sizeof(void *); /* a NULL memory object or pointer */
        break;
    }
}

int aoe_launch_job(const aoe_launch_desc *d, const aoe_key *key, const char *call_site, int repeat,
                   uint64_t limit, aoe_job *job)
{
    memset(job, 0, sizeof *job);
    job->format = AOE_JOB_FORMAT;
    job->runtime = (char *)d->runtime;
    job->fingerprint = (char *)d->fingerprint;
    if (d->source) {
        job->source = (char *)d->source;
    } else {
        job->binary = (unsigned char *)d->binary;
        job->binary_size = d->binary_len;
    }
    job->options = (char *)d->options;
    job->kernel_name = (char *)d->kernel_name;
    job->work_dim = d->dim;
    for (uint32_t i = 0; i < d->dim; i++) {
        job->global[i] = d->global[i];
        job->local[i] = d->local ? d->local[i] : 0;
    }
    job->has_local = d->local != NULL;
    job->launch_kind = (aoe_job_launch_kind)d->launch_kind;
    job->dynamic_shared_bytes = d->dynamic_shared_bytes;
    job->option_list = (char **)d->option_list;
    job->noptions = d->option_list ? d->noptions : 0;
    job->runtime_extra = (char *)d->runtime_extra;
    job->nargs = d->nargs;
    job->key = *key;
    job->call_site = (char *)call_site;
    job->repeat_tune = repeat;
    job->args = calloc(d->nargs ? d->nargs : 1, sizeof *job->args);
    if (!job->args) return -1;
    for (uint32_t i = 0; i < d->nargs; i++) {
        fill_arg(&job->args[i], d, i, limit);
        if (d->rt && d->rt->elem) job->args[i].elem = d->rt->elem(d, i, &job->args[i]);
    }
    return 0;
}

void aoe_launch_job_free(aoe_job *job)
{
    for (uint32_t i = 0; job->args && i < job->nargs; i++) free(job->args[i].data);
    free(job->args);
    job->args = NULL;
}

void aoe_launch_capture(const aoe_launch_desc *d, aoe_op *op, const aoe_key *key)
{
    const aoe_launch_host *h = aoe_launch_get_host();
    if (h->spool_has && h->spool_has(key)) {  /* queued, running or failed in another process */
        if (h->tuner_spawn) h->tuner_spawn(); /* a job left by an offline run gets tuned now */
        return;
    }
    if (h->spool_full &&
        h->spool_full()) { /* no buffer read back for a job that cannot be written */
        op->not_tuned = AOE_NT_SPOOL_FULL;
        if (h->not_tuned) h->not_tuned(d->kernel_name, AOE_NT_SPOOL_FULL, "");
        return;
    }
    aoe_job job;
    if (aoe_launch_job(d, key, op->call_site, h->repeat, h->capture_limit, &job)) return;
    int rc = h->spool_submit ? h->spool_submit(&job) : 0;
    aoe_launch_job_free(&job);
    if (rc == 1) {
        op->job_written = 1;
        op->repeat_job = h->repeat;
        char hex[33];
        aoe_key_to_hex(key, hex);
        AOE_DEBUG("captured %s (%s) as %s/%s.job", d->kernel_name, op->call_site,
                  h->spool_dir ? h->spool_dir : "", hex);
        if (h->tuner_spawn) h->tuner_spawn();
    }
}
