/* `aoe tune` summary: a table for people, JSON for scripts. */
#include "tuner/cli_tune.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *put_name(int put, int dry_run)
{
    if (dry_run) return "dry run";
    switch (put) {
    case AOE_PUT_ADDED:
        return "added";
    case AOE_PUT_UPDATED:
        return "updated";
    case AOE_PUT_RESERVED:
        return "kept existing";
    case AOE_PUT_ERROR:
        return "error";
    default:
        return "not written";
    }
}

void aoe_tune_print_header(FILE *out)
{
    fprintf(out, "%-24s %12s %12s %9s %6s %-14s %s\n", "kernel", "default us", "best us",
            "speed-up", "evals", "bank", "failed variants");
}

void aoe_tune_print_row(FILE *out, const aoe_tune_row *row, int dry_run)
{
    const aoe_tune_result *r = &row->r;
    if (!r->ok && r->status == AOE_EXEC_NOTHING_TO_TUNE) { /* its words say so: not a failure */
        fprintf(out, "%-24.24s %s\n", r->kernel, r->error);
        return;
    }
    if (!r->ok) {
        fprintf(out, "%-24.24s %s: %s\n", r->kernel, row->will_retry ? "RETRY LATER" : "FAILED",
                r->error);
        return;
    }
    char fails[512] = "-";
    size_t at = 0;
    for (unsigned k = 0; k < r->nreasons && at < sizeof fails; k++)
        at += (size_t)snprintf(fails + at, sizeof fails - at, "%s%s %u", k ? ", " : "",
                               r->reasons[k].category, r->reasons[k].count);
    double speedup = r->best_us > 0 ? r->default_us / r->best_us : 0;
    fprintf(out, "%-24.24s %12.1f %12.1f %8.2fx %6zu %-14s %s\n", r->kernel, r->default_us,
            r->best_us, speedup, r->evaluations, put_name(r->put, dry_run), fails);
}

static cJSON *policy_json(const aoe_policy *p)
{
    cJSON *o = cJSON_CreateObject(), *params = cJSON_AddObjectToObject(o, "params");
    for (uint32_t i = 0; i < p->n_params && i < AOE_MAX_PARAMS; i++)
        cJSON_AddNumberToObject(params, p->params[i].name, (double)p->params[i].value);
    cJSON *g = cJSON_AddArrayToObject(o, "global"), *l = cJSON_AddArrayToObject(o, "local");
    for (uint32_t d = 0; d < p->work_dim && d < 3; d++) {
        cJSON_AddItemToArray(g, cJSON_CreateNumber((double)p->global[d]));
        cJSON_AddItemToArray(l, cJSON_CreateNumber((double)p->local[d]));
    }
    return o;
}

void aoe_tune_print_json(FILE *out, const aoe_tune_row *rows, size_t n, int dry_run)
{
    cJSON *root = cJSON_CreateObject(), *jobs = cJSON_AddArrayToObject(root, "jobs");
    for (size_t i = 0; i < n; i++) {
        const aoe_tune_result *r = &rows[i].r;
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "file", rows[i].file);
        cJSON_AddStringToObject(j, "kernel", r->kernel);
        cJSON_AddStringToObject(j, "key", r->key_hex);
        cJSON_AddBoolToObject(j, "ok", r->ok);
        cJSON_AddBoolToObject(j, "nothing_to_tune",
                              !r->ok && r->status == AOE_EXEC_NOTHING_TO_TUNE);
        cJSON_AddBoolToObject(j, "will_retry", rows[i].will_retry);
        if (r->ok)
            cJSON_AddNullToObject(j, "error");
        else
            cJSON_AddStringToObject(j, "error", r->error);
        cJSON_AddStringToObject(j, "space", r->space);
        cJSON_AddNumberToObject(j, "space_size", (double)r->space_size);
        cJSON_AddNumberToObject(j, "default_us", r->default_us);
        cJSON_AddNumberToObject(j, "default_spread_us", r->default_spread_us);
        cJSON_AddNumberToObject(j, "best_us", r->best_us);
        cJSON_AddNumberToObject(j, "best_spread_us", r->best_spread_us);
        cJSON_AddNumberToObject(j, "speedup", r->best_us > 0 ? r->default_us / r->best_us : 0);
        cJSON_AddBoolToObject(j, "improved", r->improved);
        cJSON_AddNumberToObject(j, "evaluations", (double)r->evaluations);
        cJSON_AddNumberToObject(j, "failures", (double)r->failures);
        cJSON_AddNumberToObject(j, "abandoned", (double)r->abandoned);
        cJSON_AddNumberToObject(j, "seconds", r->seconds);
        cJSON_AddNumberToObject(j, "waited_for_cpu_s", r->waited_s);
        cJSON_AddBoolToObject(j, "timed_starved", r->timed_starved);
        cJSON_AddStringToObject(j, "bank", put_name(r->put, dry_run));
        if (r->replay[0])
            cJSON_AddStringToObject(j, "replay", r->replay);
        else
            cJSON_AddNullToObject(j, "replay");
        if (r->protocol[0]) /* a slow kernel only: fast kernels' output is unchanged */
            cJSON_AddStringToObject(j, "protocol", r->protocol);
        cJSON_AddItemToObject(j, "policy", policy_json(&r->best));
        cJSON *f = cJSON_AddObjectToObject(j, "failed_by_reason");
        for (unsigned k = 0; k < r->nreasons; k++) {
            cJSON *e = cJSON_AddObjectToObject(f, r->reasons[k].category);
            cJSON_AddNumberToObject(e, "count", r->reasons[k].count);
            cJSON_AddStringToObject(e, "example", r->reasons[k].example);
        }
        cJSON_AddItemToArray(jobs, j);
    }
    char *s = cJSON_Print(root);
    if (s) fprintf(out, "%s\n", s);
    cJSON_free(s);
    cJSON_Delete(root);
}
