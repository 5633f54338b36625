/* Capturing a tuning job at the first sight of an operator: the program,
 * the launch's sizes and every argument, with buffer contents read on the
 * launch queue before the launch (blocking), up to AOE_CAPTURE_LIMIT_MB per
 * buffer; larger or unreadable buffers are replayed with synthetic data.
 * A buffer the program never initialised (opencl_mem.h) is captured as
 * zeros: its stale bytes never reach a job. */
#include "hooks/opencl_elem.h"
#include "hooks/opencl_internal.h"
#include "hooks/opencl_mem.h"

#include "core/log.h"
#include "preload/spool_write.h"
#include "jobs/job.h"

#include <stdlib.h>
#include <string.h>

static void fill_arg(aoe_job_arg *ja, const aoe_cl_arg *a, cl_command_queue q, uint64_t limit)
{
    memset(ja, 0, sizeof *ja);
    switch (a->shape.kind) {
    case AOE_ARGK_SCALAR:
        ja->kind = AOE_JOB_ARG_SCALAR;
        ja->size = a->size;
        ja->data = malloc(a->size ? a->size : 1);
        if (ja->data) memcpy(ja->data, a->value, a->size);
        break;
    case AOE_ARGK_BUFFER: {
        ja->kind = AOE_JOB_ARG_BUFFER;
        ja->size = a->shape.extent;
        cl_mem_flags flags = 0;
        if (REAL(clGetMemObjectInfo)(a->mem, CL_MEM_FLAGS, sizeof flags, &flags, NULL) ==
            CL_SUCCESS)
            ja->flags = flags;
        /* Never written by the program: what it holds is stale process
         * memory and the kernel cannot depend on it, so the job carries
         * zeros (no read-back; replayed like a captured buffer). */
        if (!aoe_cl_mem_initialised(a->mem)) {
            if (ja->size && ja->size <= limit) ja->data = calloc(1, ja->size);
            break;
        }
        if (ja->size && ja->size <= limit && (ja->data = malloc(ja->size)) &&
            REAL(clEnqueueReadBuffer)(q, a->mem, CL_TRUE, 0, ja->size, ja->data, 0, NULL, NULL) !=
                CL_SUCCESS) {
            free(ja->data); /* e.g. CL_MEM_HOST_NO_ACCESS: synthetic data */
            ja->data = NULL;
        }
        break;
    }
    case AOE_ARGK_LOCAL:
        ja->kind = AOE_JOB_ARG_LOCAL;
        ja->size = a->shape.extent;
        break;
    default:
        ja->kind = AOE_JOB_ARG_NULLMEM;
        ja->size = sizeof(cl_mem);
        break;
    }
}

/* What argument i holds, from its OpenCL type name (BYTES when the
 * implementation gives no argument info). */
static aoe_elem_type arg_elem(cl_kernel k, cl_uint i, const aoe_job_arg *ja)
{
    char type[64] = "";
    if (ja->kind == AOE_JOB_ARG_NULLMEM ||
        REAL(clGetKernelArgInfo)(k, i, CL_KERNEL_ARG_TYPE_NAME, sizeof type - 1, type, NULL) !=
            CL_SUCCESS)
        return AOE_ELEM_BYTES;
    return aoe_cl_elem_of_type_name(type, ja->size);
}

void aoe_cl_capture(aoe_cl_kernel *kr, aoe_op *op, cl_command_queue q, cl_uint dim,
                    const size_t *gws, const size_t *lws, const aoe_key *key)
{
    if (aoe_spool_has(key)) { /* queued, running or failed in another process */
        aoe_tuner_spawn();    /* a job left by an offline run gets tuned now */
        return;
    }
    if (aoe_spool_full()) { /* no buffer read back for a job that cannot be written */
        op->not_tuned = AOE_NT_SPOOL_FULL;
        aoe_not_tuned_note(kr->name, AOE_NT_SPOOL_FULL, "");
        return;
    }
    aoe_cl_program *p = kr->prog;
    aoe_job job;
    memset(&job, 0, sizeof job);
    job.format = AOE_JOB_FORMAT;
    job.runtime = "opencl";
    job.fingerprint = (char *)kr->fingerprint;
    if (p->kind == AOE_PROG_SOURCE) {
        job.source = p->source;
    } else {
        job.binary = p->binary;
        job.binary_size = p->binary_len;
    }
    job.options = p->options;
    job.kernel_name = kr->name;
    job.work_dim = dim;
    for (cl_uint d = 0; d < dim; d++) {
        job.global[d] = gws[d];
        job.local[d] = lws ? lws[d] : 0;
    }
    job.has_local = lws != NULL;
    job.nargs = kr->nargs;
    job.key = *key;
    job.call_site = op->call_site;
    job.repeat_tune = aoe_shim.repeat;
    job.args = calloc(kr->nargs ? kr->nargs : 1, sizeof *job.args);
    if (!job.args) return;
    uint64_t limit = (uint64_t)aoe_shim.cfg.num[AOE_CFG_CAPTURE_LIMIT_MB] << 20;
    for (cl_uint i = 0; i < kr->nargs; i++) {
        fill_arg(&job.args[i], &kr->args[i], q, limit);
        job.args[i].elem = arg_elem(kr->k, i, &job.args[i]);
    }
    int rc = aoe_spool_submit(&job);
    for (cl_uint i = 0; i < kr->nargs; i++) free(job.args[i].data);
    free(job.args);
    if (rc == 1) {
        op->job_written = 1;
        op->repeat_job = aoe_shim.repeat;
        char hex[33];
        aoe_key_to_hex(key, hex);
        AOE_DEBUG("captured %s (%s) as %s/%s.job", kr->name, op->call_site, aoe_shim.spool_dir,
                  hex);
        aoe_tuner_spawn();
    }
}
