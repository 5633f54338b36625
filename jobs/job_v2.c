/* Job format 2: the body under the neutral envelope. An operation ("op": a
 * kernel launch or a library call), for kernels a program (source, binary,
 * PTX or cubin; entry; options as a list) and a launch (global/local or
 * grid/block; dynamic shared memory), typed arguments, and "runtime_extra",
 * the fields only one runtime knows. Two of those map onto in-memory fields
 * (mem_flags onto args[].flags, options_text onto options); the rest is kept
 * verbatim in job->runtime_extra. */
#include "core/log.h"
#include "jobs/job_fields.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const prog_kinds[] = {"source", "binary", "ptx", "cubin"};

/* A library call's name: an ASCII identifier, as the library spells it. */
static int valid_call_name(const char *s)
{
    size_t n = strlen(s);
    if (n < 1 || n > AOE_JOB_MAX_CALL || (s[0] >= '0' && s[0] <= '9')) return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return 0;
    return 1;
}

static int parse_op(const cJSON *root, aoe_job *job, char *err, size_t errlen)
{
    static const char *const known[] = {"kind", "name", NULL};
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(root, "op");
    if (!op) return aoe_errf(err, errlen, "op: missing");
    if (!cJSON_IsObject(op)) return aoe_errf(err, errlen, "op: expected an object");
    if (aoe_jf_known(op, known, "op.", err, errlen)) return -1;
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(op, "kind");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(op, "name");
    const char *k = cJSON_IsString(kind) ? kind->valuestring : "";
    if (!strcmp(k, "kernel")) {
        job->op = AOE_OP_KERNEL;
        if (name) return aoe_errf(err, errlen, "op.name: a kernel is named by program.entry");
        return 0;
    }
    if (strcmp(k, "library_call"))
        return aoe_errf(err, errlen, "op.kind: expected \"kernel\" or \"library_call\"");
    job->op = AOE_OP_LIBRARY_CALL;
    if (!name) return aoe_errf(err, errlen, "op.name: missing (a library call needs its name)");
    if (!cJSON_IsString(name) || !valid_call_name(name->valuestring))
        return aoe_errf(err, errlen,
                        "op.name: expected an identifier of 1..%d characters (e.g. \"gemm\")",
                        AOE_JOB_MAX_CALL);
    if (!(job->kernel_name = strdup(name->valuestring)))
        return aoe_errf(err, errlen, "op.name: out of memory");
    return 0;
}

static int parse_option_list(const cJSON *prog, aoe_job *job, char *err, size_t errlen)
{
    const cJSON *opts = cJSON_GetObjectItemCaseSensitive(prog, "options");
    char field[48];
    if (opts && !cJSON_IsArray(opts))
        return aoe_errf(err, errlen, "program.options: expected an array of strings");
    int n = opts ? cJSON_GetArraySize(opts) : 0;
    if (n > AOE_JOB_MAX_OPTIONS)
        return aoe_errf(err, errlen, "program.options: more than %d entries", AOE_JOB_MAX_OPTIONS);
    if (n && !(job->option_list = calloc((size_t)n, sizeof *job->option_list)))
        return aoe_errf(err, errlen, "program.options: out of memory");
    uint32_t i = 0;
    for (const cJSON *o = opts ? opts->child : NULL; o; o = o->next, i++) {
        snprintf(field, sizeof field, "program.options[%u]", i);
        if (!cJSON_IsString(o) || !o->valuestring || !o->valuestring[0])
            return aoe_errf(err, errlen, "%s: expected a non-empty string", field);
        if (!(job->option_list[i] = strdup(o->valuestring)))
            return aoe_errf(err, errlen, "%s: out of memory", field);
        job->noptions = i + 1;
    }
    return 0;
}

static int parse_program(const cJSON *root, aoe_job *job, char *err, size_t errlen)
{
    static const char *const known[] = {"kind", "entry", "options", "source", "binary_b64", NULL};
    const cJSON *prog = cJSON_GetObjectItemCaseSensitive(root, "program");
    if (job->op == AOE_OP_LIBRARY_CALL) {
        if (prog) return aoe_errf(err, errlen, "program: a library call has no program");
        return 0;
    }
    if (!prog) return aoe_errf(err, errlen, "program: missing (a kernel needs its program)");
    if (!cJSON_IsObject(prog)) return aoe_errf(err, errlen, "program: expected an object");
    if (aoe_jf_known(prog, known, "program.", err, errlen)) return -1;
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(prog, "kind");
    const char *k = cJSON_IsString(kind) ? kind->valuestring : "";
    int kk = -1;
    for (int i = 0; i < 4; i++)
        if (!strcmp(k, prog_kinds[i])) kk = i;
    if (kk < 0)
        return aoe_errf(err, errlen,
                        "program.kind: expected \"source\", \"binary\", \"ptx\" or \"cubin\"");
    job->program_kind = (aoe_job_prog_kind)kk;
    if (aoe_jf_string(prog, "entry", "program.entry", 1, AOE_JOB_MAX_NAME, &job->kernel_name, err,
                      errlen))
        return -1;
    if (!job->kernel_name[0]) return aoe_errf(err, errlen, "program.entry: empty");
    if (parse_option_list(prog, job, err, errlen)) return -1;
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(prog, "source");
    const cJSON *bin = cJSON_GetObjectItemCaseSensitive(prog, "binary_b64");
    int text = kk == AOE_JOB_PROG_SOURCE || kk == AOE_JOB_PROG_PTX;
    if (text) {
        if (bin) return aoe_errf(err, errlen, "program.binary_b64: a %s program is text", k);
        if (!src) return aoe_errf(err, errlen, "program.source: missing (a %s program)", k);
        if (aoe_jf_string(prog, "source", "program.source", 1, 0, &job->source, err, errlen))
            return -1;
        if (!job->source[0]) return aoe_errf(err, errlen, "program.source: empty");
        return 0;
    }
    if (src) return aoe_errf(err, errlen, "program.source: a %s program is bytes", k);
    if (!bin) return aoe_errf(err, errlen, "program.binary_b64: missing (a %s program)", k);
    if (aoe_jf_b64(bin, "program.binary_b64", 0, &job->binary, &job->binary_size, err, errlen))
        return -1;
    if (!job->binary_size) return aoe_errf(err, errlen, "program.binary_b64: empty");
    return 0;
}

static int parse_launch(const cJSON *root, aoe_job *job, char *err, size_t errlen)
{
    static const char *const known[] = {
        "dims", "global", "local", "grid", "block", "dynamic_shared_bytes", NULL};
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(root, "launch");
    if (job->op == AOE_OP_LIBRARY_CALL) {
        if (l) return aoe_errf(err, errlen, "launch: a library call has no launch");
        return 0;
    }
    if (!l) return aoe_errf(err, errlen, "launch: missing (a kernel needs its launch)");
    if (!cJSON_IsObject(l)) return aoe_errf(err, errlen, "launch: expected an object");
    if (aoe_jf_known(l, known, "launch.", err, errlen)) return -1;
    uint64_t v = 0;
    const cJSON *dims = cJSON_GetObjectItemCaseSensitive(l, "dims");
    if (!dims) return aoe_errf(err, errlen, "launch.dims: missing");
    if (aoe_jf_uint(dims, "launch.dims", 1, 3, &v, err, errlen)) return -1;
    job->work_dim = (uint32_t)v;
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(l, "global");
    const cJSON *loc = cJSON_GetObjectItemCaseSensitive(l, "local");
    const cJSON *grid = cJSON_GetObjectItemCaseSensitive(l, "grid");
    const cJSON *block = cJSON_GetObjectItemCaseSensitive(l, "block");
    const cJSON *shared = cJSON_GetObjectItemCaseSensitive(l, "dynamic_shared_bytes");
    if ((g != NULL) == (grid != NULL))
        return aoe_errf(err, errlen,
                        "launch.global: a launch has either global or grid (exactly one)");
    if (shared && aoe_jf_uint(shared, "launch.dynamic_shared_bytes", 0, AOE_JOB_MAX_SHARED,
                              &job->dynamic_shared_bytes, err, errlen))
        return -1;
    if (grid) {
        job->launch_kind = AOE_LAUNCH_GRID_BLOCK;
        if (loc) return aoe_errf(err, errlen, "launch.local: a grid launch has block, not local");
        if (!block) return aoe_errf(err, errlen, "launch.block: missing (a grid launch needs it)");
        job->has_local = 1;
        return aoe_jf_sizes(grid, "launch.grid", job->work_dim, job->grid, err, errlen) ||
                       aoe_jf_sizes(block, "launch.block", job->work_dim, job->block, err, errlen)
                   ? -1
                   : 0;
    }
    job->launch_kind = AOE_LAUNCH_GLOBAL_LOCAL;
    if (block) return aoe_errf(err, errlen, "launch.block: a global launch has local, not block");
    if (aoe_jf_sizes(g, "launch.global", job->work_dim, job->global, err, errlen)) return -1;
    if (!loc || cJSON_IsNull(loc)) return 0;
    job->has_local = 1;
    return aoe_jf_sizes(loc, "launch.local", job->work_dim, job->local, err, errlen);
}

/* runtime_extra.mem_flags: one integer per argument, 0 for all but buffers
 * and images. */
static int map_mem_flags(const cJSON *mf, aoe_job *job, char *err, size_t errlen)
{
    char field[48];
    if (!cJSON_IsArray(mf) || (uint32_t)cJSON_GetArraySize(mf) != job->nargs)
        return aoe_errf(err, errlen,
                        "runtime_extra.mem_flags: expected an array of %u integers (one per "
                        "argument)",
                        job->nargs);
    uint32_t i = 0;
    for (const cJSON *c = mf->child; c; c = c->next, i++) {
        snprintf(field, sizeof field, "runtime_extra.mem_flags[%u]", i);
        if (aoe_jf_uint(c, field, 0, AOE_JOB_MAX_INT, &job->args[i].flags, err, errlen)) return -1;
        if (job->args[i].flags && !aoe_job_arg_has_memory(job->args[i].kind))
            return aoe_errf(err, errlen, "%s: only buffer and image arguments have memory flags",
                            field);
    }
    return 0;
}

/* runtime_extra.options_text: the options as the program passed them (one
 * string), kept when joining the list with single spaces does not give it. */
static int map_options_text(const cJSON *ot, aoe_job *job, char *err, size_t errlen)
{
    if (job->op != AOE_OP_KERNEL)
        return aoe_errf(err, errlen, "runtime_extra.options_text: a library call has no options");
    if (!cJSON_IsString(ot) || !ot->valuestring)
        return aoe_errf(err, errlen, "runtime_extra.options_text: expected a string");
    char **split = NULL;
    int n = aoe_job_options_split(ot->valuestring, &split);
    if (n < 0) return aoe_errf(err, errlen, "runtime_extra.options_text: out of memory");
    int same = (uint32_t)n == job->noptions;
    for (int i = 0; same && i < n; i++) same = !strcmp(split[i], job->option_list[i]);
    aoe_job_options_free(split, (uint32_t)n);
    if (!same)
        return aoe_errf(err, errlen,
                        "runtime_extra.options_text: does not split into program.options");
    if (!(job->options = strdup(ot->valuestring)))
        return aoe_errf(err, errlen, "runtime_extra.options_text: out of memory");
    return 0;
}

/* runtime_extra.settings: what the program that queued the job set
 * (aoe_job_settings). The bank is opened with the checks of any bank (the
 * user's own directory, no link followed), the tunables files parsed like
 * any tunables file. */
static int map_settings(const cJSON *o, aoe_job *job, char *err, size_t errlen)
{
    static const char *const known[] = {"bank",      "tunables",     "auto_defines",
                                        "max_evals", "time_limit_s", NULL};
    aoe_job_settings *s = &job->settings;
    const char *pre = "runtime_extra.settings.";
    if (!cJSON_IsObject(o))
        return aoe_errf(err, errlen, "runtime_extra.settings: expected an object");
    if (aoe_jf_known(o, known, pre, err, errlen) ||
        aoe_jf_string(o, "bank", "runtime_extra.settings.bank", 0, AOE_JOB_MAX_BANK, &s->bank, err,
                      errlen) ||
        aoe_jf_string(o, "tunables", "runtime_extra.settings.tunables", 1, AOE_JOB_MAX_TUNABLES,
                      &s->tunables, err, errlen))
        return -1;
    if (s->bank && s->bank[0] != '/')
        return aoe_errf(err, errlen, "runtime_extra.settings.bank: expected an absolute path");
    const cJSON *ad = cJSON_GetObjectItemCaseSensitive(o, "auto_defines");
    if (!cJSON_IsBool(ad))
        return aoe_errf(err, errlen, "runtime_extra.settings.auto_defines: expected true or false");
    s->auto_defines = cJSON_IsTrue(ad);
    const cJSON *me = cJSON_GetObjectItemCaseSensitive(o, "max_evals");
    const cJSON *tl = cJSON_GetObjectItemCaseSensitive(o, "time_limit_s");
    uint64_t v = 0;
    if (me && aoe_jf_uint(me, "runtime_extra.settings.max_evals", 0, 1e9, &v, err, errlen))
        return -1;
    s->max_evals = (uint32_t)v;
    if (tl) {
        if (!cJSON_IsNumber(tl) || !isfinite(tl->valuedouble) || tl->valuedouble < 0 ||
            tl->valuedouble > 1e9)
            return aoe_errf(err, errlen,
                            "runtime_extra.settings.time_limit_s: expected a number in 0..1e9 "
                            "seconds");
        s->time_limit_s = tl->valuedouble;
    }
    s->present = 1;
    return 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A name twice in runtime_extra: which one counts would be a guess. Sorted,
 * not compared pairwise: the object may have many members. */
static int twice(const cJSON *ex, char *err, size_t errlen)
{
    size_t n = 0, i = 0;
    for (const cJSON *c = ex->child; c; c = c->next) n++;
    if (n < 2) return 0;
    const char **names = malloc(n * sizeof *names);
    if (!names) return aoe_errf(err, errlen, "runtime_extra: out of memory");
    for (const cJSON *c = ex->child; c; c = c->next) names[i++] = c->string ? c->string : "";
    qsort(names, n, sizeof *names, cmp_names);
    int rc = 0;
    for (i = 1; i < n && !rc; i++)
        if (!strcmp(names[i - 1], names[i]))
            rc = aoe_errf(err, errlen, "runtime_extra.%s: appears twice", names[i]);
    free(names);
    return rc;
}

static int parse_extra(const cJSON *root, aoe_job *job, char *err, size_t errlen)
{
    const cJSON *ex = cJSON_GetObjectItemCaseSensitive(root, "runtime_extra");
    if (!ex || cJSON_IsNull(ex)) return 0;
    if (!cJSON_IsObject(ex)) return aoe_errf(err, errlen, "runtime_extra: expected an object");
    cJSON *copy = cJSON_Duplicate(ex, 1);
    if (!copy) return aoe_errf(err, errlen, "runtime_extra: out of memory");
    int rc = twice(copy, err, errlen);
    cJSON *mf = rc ? NULL : cJSON_DetachItemFromObjectCaseSensitive(copy, "mem_flags");
    cJSON *ot = rc ? NULL : cJSON_DetachItemFromObjectCaseSensitive(copy, "options_text");
    cJSON *st = rc ? NULL : cJSON_DetachItemFromObjectCaseSensitive(copy, "settings");
    if (!rc && mf) rc = map_mem_flags(mf, job, err, errlen);
    if (!rc && ot) rc = map_options_text(ot, job, err, errlen);
    if (!rc && st && !cJSON_IsNull(st)) rc = map_settings(st, job, err, errlen);
    cJSON_Delete(mf);
    cJSON_Delete(ot);
    cJSON_Delete(st);
    if (!rc && copy->child) {
        job->runtime_extra = cJSON_PrintUnformatted(copy);
        if (!job->runtime_extra)
            rc = aoe_errf(err, errlen, "runtime_extra: out of memory");
        else if (strlen(job->runtime_extra) > AOE_JOB_MAX_EXTRA)
            rc = aoe_errf(err, errlen, "runtime_extra: more than %d bytes", AOE_JOB_MAX_EXTRA);
    }
    cJSON_Delete(copy);
    return rc;
}

int aoe_job_parse_v2(const cJSON *root, aoe_job *job, char *err, size_t errlen)
{
    static const char *const known[] = {
        "format", "runtime", "fingerprint", "key",    "call_site", "repeat_tune",   "space",
        "budget", "op",      "program",     "launch", "args",      "runtime_extra", NULL};
    if (aoe_jf_known(root, known, "", err, errlen)) return -1;
    if (parse_op(root, job, err, errlen) || parse_program(root, job, err, errlen) ||
        parse_launch(root, job, err, errlen) || aoe_jf_args(root, job, 2, err, errlen))
        return -1;
    if (job->op == AOE_OP_LIBRARY_CALL)
        for (uint32_t i = 0; i < job->nargs; i++)
            if (job->args[i].kind != AOE_JOB_ARG_SCALAR && job->args[i].kind != AOE_JOB_ARG_BUFFER)
                return aoe_errf(err, errlen,
                                "args[%u].kind: a library call takes scalar and buffer arguments "
                                "only",
                                i);
    if (parse_extra(root, job, err, errlen)) return -1;
    if (!job->options && !(job->options = aoe_job_options_join(job->option_list, job->noptions)))
        return aoe_errf(err, errlen, "program.options: out of memory");
    return 0;
}
