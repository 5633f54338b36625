/* Job format 1 (written until issue 13; still read): an OpenCL-shaped body
 * (kernel_name, source or binary_b64, one options string, work_dim/global/
 * local, memory flags on buffer arguments), mapped onto the same in-memory job
 * as format 2: a kernel launch with global/local sizes, element types BYTES,
 * the option list split from the string. */
#include "core/log.h"
#include "jobs/job_fields.h"

#include <stdlib.h>
#include <string.h>

static int parse_program(const cJSON *root, aoe_job *job, char *err, size_t errlen)
{
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(root, "source");
    const cJSON *bin = cJSON_GetObjectItemCaseSensitive(root, "binary_b64");
    if (cJSON_IsNull(src)) src = NULL;
    if (cJSON_IsNull(bin)) bin = NULL;
    if ((src != NULL) == (bin != NULL))
        return aoe_errf(err, errlen,
                        "source: a job needs either source or binary_b64 (exactly one)");
    if (src) {
        job->program_kind = AOE_JOB_PROG_SOURCE;
        if (aoe_jf_string(root, "source", "source", 1, 0, &job->source, err, errlen)) return -1;
        if (!job->source[0]) return aoe_errf(err, errlen, "source: empty");
        return 0;
    }
    job->program_kind = AOE_JOB_PROG_BINARY;
    if (aoe_jf_b64(bin, "binary_b64", 0, &job->binary, &job->binary_size, err, errlen)) return -1;
    if (!job->binary_size) return aoe_errf(err, errlen, "binary_b64: empty");
    return 0;
}

static int parse_options(const cJSON *root, aoe_job *job, char *err, size_t errlen)
{
    if (aoe_jf_string(root, "options", "options", 0, 0, &job->options, err, errlen)) return -1;
    if (!job->options && !(job->options = strdup("")))
        return aoe_errf(err, errlen, "options: out of memory");
    int n = aoe_job_options_split(job->options, &job->option_list);
    if (n < 0) return aoe_errf(err, errlen, "options: out of memory");
    job->noptions = (uint32_t)n;
    if (n > AOE_JOB_MAX_OPTIONS)
        return aoe_errf(err, errlen, "options: more than %d entries", AOE_JOB_MAX_OPTIONS);
    return 0;
}

static int parse_sizes(const cJSON *root, aoe_job *job, char *err, size_t errlen)
{
    uint64_t v = 0;
    if (aoe_jf_uint(cJSON_GetObjectItemCaseSensitive(root, "work_dim"), "work_dim", 1, 3, &v, err,
                    errlen))
        return -1;
    job->work_dim = (uint32_t)v;
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(root, "global");
    if (!g) return aoe_errf(err, errlen, "global: missing");
    if (aoe_jf_sizes(g, "global", job->work_dim, job->global, err, errlen)) return -1;
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(root, "local");
    if (!l || cJSON_IsNull(l)) return 0;
    if (aoe_jf_sizes(l, "local", job->work_dim, job->local, err, errlen)) return -1;
    job->has_local = 1;
    return 0;
}

int aoe_job_parse_v1(const cJSON *root, aoe_job *job, char *err, size_t errlen)
{
    static const char *const known[] = {
        "format",    "runtime",     "fingerprint", "kernel_name", "source", "binary_b64",
        "options",   "work_dim",    "global",      "local",       "args",   "key",
        "call_site", "repeat_tune", "space",       "budget",      NULL};
    if (aoe_jf_known(root, known, "", err, errlen)) return -1;
    job->op = AOE_OP_KERNEL;
    job->launch_kind = AOE_LAUNCH_GLOBAL_LOCAL;
    if (aoe_jf_string(root, "kernel_name", "kernel_name", 1, AOE_JOB_MAX_NAME, &job->kernel_name,
                      err, errlen))
        return -1;
    if (!job->kernel_name[0]) return aoe_errf(err, errlen, "kernel_name: empty");
    if (parse_program(root, job, err, errlen) || parse_options(root, job, err, errlen)) return -1;
    return parse_sizes(root, job, err, errlen) || aoe_jf_args(root, job, 1, err, errlen) ? -1 : 0;
}
