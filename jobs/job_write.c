/* Job files: the writer. Streams the JSON straight to the file (buffers are
 * base64-encoded chunk by chunk), so a job with tens of MB of captured data
 * costs one pass and no second copy in memory. */
#include "jobs/job.h"

#include "core/base64.h"
#include "core/json_text.h"
#include "jobs/gemm.h"
#include "jobs/job_fields.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Writes s as a JSON string literal (bytes >= 0x80 pass through unchanged). */
static void put_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"':
            fputs("\\\"", f);
            break;
        case '\\':
            fputs("\\\\", f);
            break;
        case '\n':
            fputs("\\n", f);
            break;
        case '\r':
            fputs("\\r", f);
            break;
        case '\t':
            fputs("\\t", f);
            break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

static int put_b64(FILE *f, const uint8_t *data, uint64_t n)
{
    fputc('"', f);
    if (aoe_b64_write(f, data, (size_t)n)) return -1;
    fputc('"', f);
    return 0;
}

static void put_sizes(FILE *f, const uint64_t *v, uint32_t n)
{
    fputc('[', f);
    for (uint32_t d = 0; d < n; d++) fprintf(f, "%s%llu", d ? "," : "", (unsigned long long)v[d]);
    fputc(']', f);
}

/* What the writer derives before it opens the file: the option list (the
 * job's own, or `options` split) and the runtime_extra object with the fields
 * the reader maps back (mem_flags, options_text, settings). */
typedef struct {
    char **list; /* the job's list or `split` */
    uint32_t n;
    char **split; /* owned */
    int nsplit;
    char *extra; /* owned (cJSON_free), NULL: none */
} prepared;

static void put_image(FILE *f, const aoe_job_image *im)
{
    fprintf(f,
            ",\"image\":{\"type\":%u,\"order\":%u,\"data_type\":%u,\"pixel_bytes\":%u,"
            "\"width\":%llu,\"height\":%llu,\"depth\":%llu,\"array_size\":%llu}",
            im->type, im->order, im->data_type, im->pixel_bytes, (unsigned long long)im->width,
            (unsigned long long)im->height, (unsigned long long)im->depth,
            (unsigned long long)im->array_size);
}

static void put_arg(FILE *f, const aoe_job_arg *a, int *err)
{
    static const char *const kinds[] = {"scalar", "buffer", "local", "null", "image", "sampler"};
    fprintf(f, "{\"kind\":\"%s\"", kinds[a->kind]);
    if (a->kind == AOE_JOB_ARG_SAMPLER) {
        fprintf(f, ",\"sampler\":{\"normalized\":%s,\"addressing\":%u,\"filter\":%u}}",
                a->sampler.normalized ? "true" : "false", a->sampler.addressing, a->sampler.filter);
        return;
    }
    if (a->kind != AOE_JOB_ARG_NULLMEM)
        fprintf(f, ",\"type\":\"%s\",\"size\":%llu", aoe_elem_name(a->elem),
                (unsigned long long)a->size);
    if (a->kind == AOE_JOB_ARG_IMAGE) put_image(f, &a->image);
    if (a->kind == AOE_JOB_ARG_SCALAR || (aoe_job_arg_has_memory(a->kind) && a->data)) {
        fputs(",\"data_b64\":", f);
        if (put_b64(f, a->data, a->size)) *err = 1;
    } else if (aoe_job_arg_has_memory(a->kind)) {
        fputs(",\"synthetic\":true", f);
    }
    fputc('}', f);
}

static int put_program(FILE *f, const aoe_job *job, const prepared *pr)
{
    static const char *const kinds[] = {"source", "binary", "ptx", "cubin"};
    aoe_job_prog_kind pk = aoe_job_program_kind(job);
    fprintf(f, ",\n\"program\":{\"kind\":\"%s\",\"entry\":", kinds[pk]);
    put_string(f, job->kernel_name);
    fputs(",\"options\":[", f);
    for (uint32_t i = 0; i < pr->n; i++) {
        if (i) fputc(',', f);
        put_string(f, pr->list[i]);
    }
    fputc(']', f);
    if (pk == AOE_JOB_PROG_SOURCE || pk == AOE_JOB_PROG_PTX) {
        fputs(",\n \"source\":", f);
        put_string(f, job->source);
    } else {
        fputs(",\n \"binary_b64\":", f);
        if (put_b64(f, job->binary, job->binary_size)) return -1;
    }
    fputc('}', f);
    return 0;
}

static void put_launch(FILE *f, const aoe_job *job)
{
    int grid = job->launch_kind == AOE_LAUNCH_GRID_BLOCK;
    fprintf(f, ",\n\"launch\":{\"dims\":%u,\"%s\":", job->work_dim, grid ? "grid" : "global");
    put_sizes(f, job->global, job->work_dim);
    fprintf(f, ",\"%s\":", grid ? "block" : "local");
    if (job->has_local)
        put_sizes(f, job->local, job->work_dim);
    else
        fputs("null", f);
    fprintf(f, ",\"dynamic_shared_bytes\":%llu}", (unsigned long long)job->dynamic_shared_bytes);
}

static int put_job(FILE *f, const aoe_job *job, const prepared *pr)
{
    char hex[33];
    int err = 0;
    fprintf(f, "{\"format\":%d,\n\"runtime\":", AOE_JOB_FORMAT);
    put_string(f, job->runtime ? job->runtime : "opencl");
    fputs(",\n\"fingerprint\":", f);
    put_string(f, job->fingerprint);
    if (job->op == AOE_OP_LIBRARY_CALL) {
        fputs(",\n\"op\":{\"kind\":\"library_call\",\"name\":", f);
        put_string(f, job->kernel_name);
        fputc('}', f);
    } else {
        fputs(",\n\"op\":{\"kind\":\"kernel\"}", f);
        if (put_program(f, job, pr)) return -1;
        put_launch(f, job);
    }
    fputs(",\n\"args\":[", f);
    for (uint32_t i = 0; i < job->nargs && !err; i++) {
        fputs(i ? ",\n" : "\n", f);
        put_arg(f, &job->args[i], &err);
    }
    if (err) return -1;
    fputc(']', f);
    if (pr->extra) fprintf(f, ",\n\"runtime_extra\":%s", pr->extra);
    snprintf(hex, sizeof hex, "%016llx%016llx", (unsigned long long)job->key.hi,
             (unsigned long long)job->key.lo);
    fprintf(f, ",\n\"key\":\"%s\",\n\"call_site\":", hex);
    if (job->call_site)
        put_string(f, job->call_site);
    else
        fputs("null", f);
    fprintf(f, ",\n\"repeat_tune\":%s", job->repeat_tune ? "true" : "false");

    if (job->space_json) {
        fputs(",\n\"space\":", f);
        fputs(job->space_json, f);
    }
    fprintf(f, ",\n\"budget\":{\"max_evals\":%u,\"time_limit_s\":%.17g}}\n", job->max_evals,
            job->time_limit_s);
    return 0;
}

/* 1..max characters; with `identifier`, ASCII letters, digits and '_', not
 * starting with a digit (the reader's rule for library calls and runtimes). */
static int valid_name(const char *s, size_t max, int identifier)
{
    size_t n = s ? strlen(s) : 0;
    if (n < 1 || n > max) return 0;
    for (size_t i = 0; identifier && i < n; i++) {
        char c = s[i];
        int digit = c >= '0' && c <= '9';
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || digit || c == '_') ||
            (!i && digit))
            return 0;
    }
    return 1;
}

static int runtime_ok(const char *r)
{
    if (!r) return 1; /* written as "opencl" */
    if (!valid_name(r, AOE_JOB_MAX_RUNTIME, 1) || r[0] < 'a' || r[0] > 'z') return 0;
    for (const char *p = r; *p; p++)
        if (*p >= 'A' && *p <= 'Z') return 0;
    return 1;
}

/* An image as the reader checks it: descriptor in range, size its packed bytes. */
static int image_ok(const aoe_job_arg *a)
{
    const aoe_job_image *im = &a->image;
    uint64_t ext[4] = {im->width, im->height, im->depth, im->array_size};
    if (!im->width || !im->pixel_bytes || im->pixel_bytes > AOE_JOB_MAX_PIXEL) return 0;
    for (int d = 0; d < 4; d++)
        if ((double)ext[d] > AOE_JOB_MAX_IMAGE_EXTENT) return 0;
    return a->size && a->size == aoe_job_image_bytes(im);
}

static int args_ok(const aoe_job *job)
{
    if (job->nargs > AOE_JOB_MAX_ARGS || (job->nargs && !job->args)) return 0;
    for (uint32_t i = 0; i < job->nargs; i++) {
        const aoe_job_arg *a = &job->args[i];
        if ((unsigned)a->elem >= AOE_ELEM_COUNT || (double)a->flags > 9007199254740992.0) return 0;
        if (a->kind == AOE_JOB_ARG_NULLMEM) {
            if (a->elem != AOE_ELEM_BYTES) return 0;
            continue;
        }
        if (a->kind == AOE_JOB_ARG_SAMPLER) {
            if (a->elem != AOE_ELEM_BYTES || a->size || a->data || a->sampler.normalized > 1 ||
                job->op == AOE_OP_LIBRARY_CALL)
                return 0;
            continue;
        }
        if ((unsigned)a->kind > AOE_JOB_ARG_IMAGE || a->size % aoe_elem_size(a->elem)) return 0;
        if (a->kind == AOE_JOB_ARG_IMAGE && (!image_ok(a) || job->op == AOE_OP_LIBRARY_CALL))
            return 0;
        if (a->kind == AOE_JOB_ARG_SCALAR && (!a->data || a->size > AOE_JOB_MAX_SCALAR)) return 0;
        if (job->op == AOE_OP_LIBRARY_CALL && a->kind == AOE_JOB_ARG_LOCAL) return 0;
    }
    return 1;
}

static int program_ok(const aoe_job *job, const prepared *pr)
{
    if (job->op == AOE_OP_LIBRARY_CALL)
        return valid_name(job->kernel_name, AOE_JOB_MAX_CALL, 1) && !job->source && !job->binary &&
               !job->work_dim && !pr->n && (!job->options || !job->options[0]);
    if ((unsigned)job->op > AOE_OP_LIBRARY_CALL ||
        !valid_name(job->kernel_name, AOE_JOB_MAX_NAME, 0))
        return 0;
    if (job->work_dim < 1 || job->work_dim > 3 ||
        (unsigned)job->launch_kind > AOE_LAUNCH_GRID_BLOCK)
        return 0;
    if (job->launch_kind == AOE_LAUNCH_GRID_BLOCK && !job->has_local) return 0;
    if ((double)job->dynamic_shared_bytes > AOE_JOB_MAX_SHARED) return 0;
    aoe_job_prog_kind pk = aoe_job_program_kind(job);
    if ((unsigned)pk > AOE_JOB_PROG_CUBIN) return 0;
    if (pk == AOE_JOB_PROG_SOURCE || pk == AOE_JOB_PROG_PTX) return job->source && job->source[0];
    return job->binary && job->binary_size;
}

/* runtime_extra.settings (aoe_job_settings): 0, or -1 when out of memory. */
static int add_settings(cJSON *o, const aoe_job_settings *st)
{
    cJSON *s = cJSON_AddObjectToObject(o, "settings");
    int ok =
        s && (!st->bank || cJSON_AddStringToObject(s, "bank", st->bank)) &&
        cJSON_AddStringToObject(s, "tunables", st->tunables ? st->tunables : "") &&
        cJSON_AddBoolToObject(s, "auto_defines", st->auto_defines != 0) &&
        (!st->max_evals || cJSON_AddNumberToObject(s, "max_evals", st->max_evals)) &&
        (!(st->time_limit_s > 0) || cJSON_AddNumberToObject(s, "time_limit_s", st->time_limit_s));
    return ok ? 0 : -1;
}

/* The option list and the runtime_extra text; -1 when the job cannot be
 * written as it is (EINVAL) or memory ran out. */
static int prepare(const aoe_job *job, prepared *pr)
{
    memset(pr, 0, sizeof *pr);
    if (job->option_list || job->noptions) {
        pr->list = job->option_list;
        pr->n = job->noptions;
    } else if (job->options && job->op == AOE_OP_KERNEL) {
        if ((pr->nsplit = aoe_job_options_split(job->options, &pr->split)) < 0) return -1;
        pr->list = pr->split;
        pr->n = (uint32_t)pr->nsplit;
    }
    if (pr->n > AOE_JOB_MAX_OPTIONS || (pr->n && !pr->list)) return errno = EINVAL, -1;
    for (uint32_t i = 0; i < pr->n; i++)
        if (!pr->list[i] || !pr->list[i][0]) return errno = EINVAL, -1;
    const char *extra = job->runtime_extra;
    bool oom = false;
    cJSON *o = extra ? aoe_json_parse(extra, strlen(extra), NULL, &oom) : cJSON_CreateObject();
    if (!cJSON_IsObject(o)) { /* memory, or runtime_extra is not a JSON object */
        oom = oom || (!o && !extra);
        cJSON_Delete(o);
        return errno = oom ? ENOMEM : EINVAL, -1;
    }
    while (cJSON_GetObjectItemCaseSensitive(o, "mem_flags"))
        cJSON_DeleteItemFromObjectCaseSensitive(o, "mem_flags");
    while (cJSON_GetObjectItemCaseSensitive(o, "options_text"))
        cJSON_DeleteItemFromObjectCaseSensitive(o, "options_text");
    while (cJSON_GetObjectItemCaseSensitive(o, "settings"))
        cJSON_DeleteItemFromObjectCaseSensitive(o, "settings");
    int rc = 0, any = 0;
    if (o->child) { /* the reader's limit applies to what it keeps verbatim */
        char *kept = cJSON_PrintUnformatted(o);
        if (!kept || strlen(kept) > AOE_JOB_MAX_EXTRA) rc = -1, errno = kept ? EINVAL : ENOMEM;
        if (kept) cJSON_free(kept);
    }
    for (uint32_t i = 0; i < job->nargs; i++)
        any |= aoe_job_arg_has_memory(job->args[i].kind) && job->args[i].flags;
    cJSON *mf = any ? cJSON_AddArrayToObject(o, "mem_flags") : NULL;
    for (uint32_t i = 0; mf && i < job->nargs; i++) {
        const aoe_job_arg *a = &job->args[i];
        cJSON *v = cJSON_CreateNumber(aoe_job_arg_has_memory(a->kind) ? (double)a->flags : 0);
        if (!v || !cJSON_AddItemToArray(mf, v)) rc = -1;
    }
    if (any && !mf) rc = -1;
    if (!rc && job->options && job->op == AOE_OP_KERNEL) {
        char *joined = aoe_job_options_join(pr->list, pr->n);
        if (!joined) {
            rc = -1;
        } else if (strcmp(joined, job->options)) {
            /* the reader checks that it splits into the list: refuse a job whose
             * list and string disagree rather than write one it would refuse */
            char **check = NULL;
            int n = aoe_job_options_split(job->options, &check);
            int same = n >= 0 && (uint32_t)n == pr->n;
            for (int i = 0; same && i < n; i++) same = !strcmp(check[i], pr->list[i]);
            if (n >= 0) aoe_job_options_free(check, (uint32_t)n);
            if (!same)
                rc = -1, errno = n < 0 ? ENOMEM : EINVAL;
            else if (!cJSON_AddStringToObject(o, "options_text", job->options))
                rc = -1;
        }
        free(joined);
    }
    if (!rc && job->settings.present && add_settings(o, &job->settings)) rc = -1;
    if (!rc && o->child && !(pr->extra = cJSON_PrintUnformatted(o))) rc = -1;
    cJSON_Delete(o);
    return rc;
}

static void prepared_free(prepared *pr)
{
    if (pr->nsplit > 0) aoe_job_options_free(pr->split, (uint32_t)pr->nsplit);
    if (pr->extra) cJSON_free(pr->extra);
    memset(pr, 0, sizeof *pr);
}

/* A job the reader would refuse for its shape must not be written at all. */
static int writable(const aoe_job *job, const prepared *pr)
{
    if (!job->fingerprint || !job->fingerprint[0] ||
        strlen(job->fingerprint) >= AOE_FINGERPRINT_LEN || !runtime_ok(job->runtime))
        return 0;
    if (!program_ok(job, pr) || !args_ok(job)) return 0;
    const aoe_job_settings *st = &job->settings;
    if (st->bank && (st->bank[0] != '/' || strlen(st->bank) > AOE_JOB_MAX_BANK)) return 0;
    if (st->tunables && strlen(st->tunables) > AOE_JOB_MAX_TUNABLES) return 0;
    if ((double)st->max_evals > 1e9 || !(st->time_limit_s >= 0 && st->time_limit_s <= 1e9))
        return 0;
    aoe_gemm_desc gemm; /* a GEMM job's description and arguments as the reader checks them */
    if (aoe_job_is_gemm(job) && aoe_gemm_from_job(job, &gemm, NULL, 0)) return 0;
    if (job->space_json) {
        cJSON *sp = cJSON_Parse(job->space_json);
        int ok = cJSON_IsObject(sp);
        cJSON_Delete(sp);
        if (!ok) return 0;
    }
    return 1;
}

int aoe_job_write(const char *path, const aoe_job *job)
{
    return aoe_job_write_at(AT_FDCWD, path, job);
}

static int write_file(int dfd, const char *path, const aoe_job *job, const prepared *pr)
{
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 32);
    if (!tmp) return -1;
    snprintf(tmp, plen + 32, "%s.tmp%ld", path, (long)getpid());
    /* O_EXCL|O_NOFOLLOW: never through a planted link */
    int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
    int fd = openat(dfd, tmp, flags, 0600);
    if (fd < 0 && errno == EEXIST) { /* left by a dead process with our pid */
        unlinkat(dfd, tmp, 0);
        fd = openat(dfd, tmp, flags, 0600);
    }
    if (fd < 0) {
        int e = errno;
        free(tmp);
        errno = e;
        return -1;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int e = errno;
        close(fd);
        unlinkat(dfd, tmp, 0);
        free(tmp);
        errno = e;
        return -1;
    }
    int rc = put_job(f, job, pr);
    int e = errno;
    if (fflush(f) || ferror(f)) rc = -1, e = errno ? errno : EIO;
    if (fclose(f)) rc = -1, e = errno;
    if (!rc && renameat(dfd, tmp, dfd, path)) rc = -1, e = errno;
    if (rc) unlinkat(dfd, tmp, 0);
    free(tmp);
    errno = rc ? e : 0;
    return rc;
}

int aoe_job_write_at(int dfd, const char *path, const aoe_job *job)
{
    if (!path || !job) {
        errno = EINVAL;
        return -1;
    }
    prepared pr;
    errno = ENOMEM;
    int rc = prepare(job, &pr);
    if (!rc && !writable(job, &pr)) rc = -1, errno = EINVAL;
    if (!rc) rc = write_file(dfd, path, job, &pr);
    int e = errno;
    prepared_free(&pr);
    errno = e;
    return rc;
}
