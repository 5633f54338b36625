/* Job files: the writer. Streams the JSON straight to the file (buffers are
 * base64-encoded chunk by chunk), so a job with tens of MB of captured data
 * costs one pass and no second copy in memory. */
#include "jobs/job.h"

#include "core/base64.h"

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

static int put_arg(FILE *f, const aoe_job_arg *a)
{
    switch (a->kind) {
    case AOE_JOB_ARG_SCALAR:
        fprintf(f, "{\"kind\":\"scalar\",\"size\":%llu,\"data_b64\":", (unsigned long long)a->size);
        if (put_b64(f, a->data, a->size)) return -1;
        break;
    case AOE_JOB_ARG_BUFFER:
        fprintf(f, "{\"kind\":\"buffer\",\"size\":%llu,\"flags\":%llu,",
                (unsigned long long)a->size, (unsigned long long)a->flags);
        if (!a->data)
            fputs("\"synthetic\":true", f);
        else if (fputs("\"data_b64\":", f) < 0 || put_b64(f, a->data, a->size))
            return -1;
        break;
    case AOE_JOB_ARG_LOCAL:
        fprintf(f, "{\"kind\":\"local\",\"size\":%llu", (unsigned long long)a->size);
        break;
    default:
        fputs("{\"kind\":\"null\"", f);
        break;
    }
    fputc('}', f);
    return 0;
}

static int put_job(FILE *f, const aoe_job *job)
{
    char hex[33];
    fprintf(f, "{\"format\":%d,\n\"runtime\":", AOE_JOB_FORMAT);
    put_string(f, job->runtime ? job->runtime : "opencl");
    fputs(",\n\"fingerprint\":", f);
    put_string(f, job->fingerprint);
    fputs(",\n\"kernel_name\":", f);
    put_string(f, job->kernel_name);
    if (job->source) {
        fputs(",\n\"source\":", f);
        put_string(f, job->source);
    } else {
        fputs(",\n\"binary_b64\":", f);
        if (put_b64(f, job->binary, job->binary_size)) return -1;
    }
    fputs(",\n\"options\":", f);
    put_string(f, job->options ? job->options : "");
    fprintf(f, ",\n\"work_dim\":%u,\n\"global\":", job->work_dim);
    put_sizes(f, job->global, job->work_dim);
    fputs(",\n\"local\":", f);
    if (job->has_local)
        put_sizes(f, job->local, job->work_dim);
    else
        fputs("null", f);
    fputs(",\n\"args\":[", f);
    for (uint32_t i = 0; i < job->nargs; i++) {
        fputs(i ? ",\n" : "\n", f);
        if (put_arg(f, &job->args[i])) return -1;
    }
    snprintf(hex, sizeof hex, "%016llx%016llx", (unsigned long long)job->key.hi,
             (unsigned long long)job->key.lo);
    fprintf(f, "],\n\"key\":\"%s\",\n\"call_site\":", hex);
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

/* A job the reader would refuse for its shape must not be written at all. */
static int writable(const aoe_job *job)
{
    if (!job->fingerprint || !job->kernel_name || job->work_dim < 1 || job->work_dim > 3) return 0;
    if (!job->source && (!job->binary || !job->binary_size)) return 0;
    if (job->nargs && !job->args) return 0;
    for (uint32_t i = 0; i < job->nargs; i++)
        if (job->args[i].kind == AOE_JOB_ARG_SCALAR && !job->args[i].data) return 0;
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

int aoe_job_write_at(int dfd, const char *path, const aoe_job *job)
{
    if (!path || !job || !writable(job)) {
        errno = EINVAL;
        return -1;
    }
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
    int rc = put_job(f, job);
    int e = errno;
    if (fflush(f) || ferror(f)) rc = -1, e = errno ? errno : EIO;
    if (fclose(f)) rc = -1, e = errno;
    if (!rc && renameat(dfd, tmp, dfd, path)) rc = -1, e = errno;
    if (rc) unlinkat(dfd, tmp, 0);
    free(tmp);
    errno = rc ? e : 0;
    return rc;
}
