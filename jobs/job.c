/* Job files: reading, validation, the operator key. Every rejection names the
 * field at fault, because a job may come from another machine or a hand edit
 * and the person reading the message has only the file. */
#include "core/log.h"
#include "jobs/job.h"

#include "store/opkey.h"
#include "core/base64.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Integers are JSON numbers (doubles): beyond 2^53 they are not exact. */
#define JOB_MAX_INT 9007199254740992.0

/* Reads an integer field in [min, max]. Returns 0, or -1 with a message. */
static int get_uint(const cJSON *it, const char *field, double min, double max, uint64_t *out,
                    char *err, size_t errlen)
{
    if (!cJSON_IsNumber(it) || it->valuedouble != floor(it->valuedouble) || it->valuedouble < min ||
        it->valuedouble > max)
        return aoe_errf(err, errlen, "%s: expected an integer in %.0f..%.0f", field, min, max);
    *out = (uint64_t)it->valuedouble;
    return 0;
}

/* Copies a string field. Required: missing is an error; optional: *out = NULL. */
static int get_string(const cJSON *obj, const char *name, int required, size_t maxlen, char **out,
                      char *err, size_t errlen)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, name);
    *out = NULL;
    if (!it || (cJSON_IsNull(it) && !required)) {
        if (required) return aoe_errf(err, errlen, "%s: missing", name);
        return 0;
    }
    if (!cJSON_IsString(it) || !it->valuestring)
        return aoe_errf(err, errlen, "%s: expected a string", name);
    if (maxlen && strlen(it->valuestring) > maxlen)
        return aoe_errf(err, errlen, "%s: longer than %zu characters", name, maxlen);
    *out = strdup(it->valuestring);
    if (!*out) return aoe_errf(err, errlen, "%s: out of memory", name);
    return 0;
}

/* Decodes a base64 string item of exactly `expect` bytes (0 = any). */
static int get_b64(const cJSON *it, const char *field, uint64_t expect, uint8_t **out,
                   uint64_t *outlen, char *err, size_t errlen)
{
    if (!cJSON_IsString(it) || !it->valuestring)
        return aoe_errf(err, errlen, "%s: expected a base64 string", field);
    size_t n = 0;
    *out = aoe_b64_decode(it->valuestring, strlen(it->valuestring), &n);
    if (!*out) return aoe_errf(err, errlen, "%s: not valid base64", field);
    if (expect && n != expect) {
        free(*out);
        *out = NULL;
        return aoe_errf(err, errlen, "%s: holds %zu bytes but size is %llu", field, n,
                        (unsigned long long)expect);
    }
    if (outlen) *outlen = n;
    return 0;
}

/* Rejects fields this format does not define: a typo must not pass silently. */
static int check_fields(const cJSON *obj, const char *const *known, const char *prefix, char *err,
                        size_t errlen)
{
    for (const cJSON *c = obj->child; c; c = c->next) {
        int ok = 0;
        for (const char *const *k = known; *k && !ok; k++) ok = c->string && !strcmp(c->string, *k);
        if (!ok)
            return aoe_errf(err, errlen, "%s%s: unknown field", prefix,
                            c->string ? c->string : "?");
    }
    return 0;
}

static int parse_sizes(const cJSON *it, const char *name, uint32_t work_dim, uint64_t out[3],
                       char *err, size_t errlen)
{
    char field[32];
    if (!cJSON_IsArray(it)) return aoe_errf(err, errlen, "%s: expected an array of integers", name);
    if ((uint32_t)cJSON_GetArraySize(it) != work_dim)
        return aoe_errf(err, errlen, "%s: expected %u entries (work_dim), found %d", name, work_dim,
                        cJSON_GetArraySize(it));
    for (uint32_t d = 0; d < work_dim; d++) {
        snprintf(field, sizeof field, "%s[%u]", name, d);
        if (get_uint(cJSON_GetArrayItem(it, (int)d), field, 1, JOB_MAX_INT, &out[d], err, errlen))
            return -1;
    }
    return 0;
}

static int parse_arg(const cJSON *a, uint32_t i, aoe_job_arg *arg, char *err, size_t errlen)
{
    static const char *const known[] = {"kind", "size", "flags", "data_b64", "synthetic", NULL};
    char field[48], prefix[24];
    snprintf(prefix, sizeof prefix, "args[%u].", i);
    if (!cJSON_IsObject(a)) return aoe_errf(err, errlen, "args[%u]: expected an object", i);
    if (check_fields(a, known, prefix, err, errlen)) return -1;
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(a, "kind");
    const cJSON *size = cJSON_GetObjectItemCaseSensitive(a, "size");
    const cJSON *flags = cJSON_GetObjectItemCaseSensitive(a, "flags");
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(a, "data_b64");
    const cJSON *synth = cJSON_GetObjectItemCaseSensitive(a, "synthetic");
    const char *k = cJSON_IsString(kind) ? kind->valuestring : NULL;
    if (!k)
        return aoe_errf(err, errlen,
                        "args[%u].kind: expected \"scalar\", \"buffer\", \"local\" or \"null\"", i);
    snprintf(field, sizeof field, "args[%u].size", i);
    if (!strcmp(k, "scalar")) {
        arg->kind = AOE_JOB_ARG_SCALAR;
        if (get_uint(size, field, 1, AOE_JOB_MAX_SCALAR, &arg->size, err, errlen)) return -1;
        snprintf(field, sizeof field, "args[%u].data_b64", i);
        if (!data) return aoe_errf(err, errlen, "%s: missing (a scalar needs its bytes)", field);
        return get_b64(data, field, arg->size, &arg->data, NULL, err, errlen);
    }
    if (!strcmp(k, "buffer")) {
        arg->kind = AOE_JOB_ARG_BUFFER;
        if (get_uint(size, field, 1, JOB_MAX_INT, &arg->size, err, errlen)) return -1;
        snprintf(field, sizeof field, "args[%u].flags", i);
        if (flags && get_uint(flags, field, 0, JOB_MAX_INT, &arg->flags, err, errlen)) return -1;
        int synthetic = cJSON_IsTrue(synth);
        if (synth && !cJSON_IsBool(synth))
            return aoe_errf(err, errlen, "args[%u].synthetic: expected true or false", i);
        if (synthetic == (data != NULL))
            return aoe_errf(err, errlen,
                            "args[%u].data_b64: a buffer needs either data_b64 or "
                            "\"synthetic\": true (exactly one)",
                            i);
        if (synthetic) return 0;
        snprintf(field, sizeof field, "args[%u].data_b64", i);
        return get_b64(data, field, arg->size, &arg->data, NULL, err, errlen);
    }
    if (strcmp(k, "local") && strcmp(k, "null"))
        return aoe_errf(
            err, errlen,
            "args[%u].kind: unknown kind \"%s\" (expected scalar, buffer, local or null)", i, k);
    if (flags || data || synth) {
        const char *extra = flags ? "flags" : data ? "data_b64" : "synthetic";
        return aoe_errf(err, errlen, "args[%u].%s: only buffer arguments have this field", i,
                        extra);
    }
    if (!strcmp(k, "local")) {
        arg->kind = AOE_JOB_ARG_LOCAL;
        return get_uint(size, field, 1, JOB_MAX_INT, &arg->size, err, errlen);
    }
    arg->kind = AOE_JOB_ARG_NULLMEM; /* "null": the only kind left */
    if (size) return aoe_errf(err, errlen, "%s: a null argument has no size", field);
    return 0;
}

static int parse_args(const cJSON *root, aoe_job *job, char *err, size_t errlen)
{
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(root, "args");
    if (!args) return aoe_errf(err, errlen, "args: missing");
    if (!cJSON_IsArray(args)) return aoe_errf(err, errlen, "args: expected an array");
    int n = cJSON_GetArraySize(args);
    if (n > AOE_JOB_MAX_ARGS)
        return aoe_errf(err, errlen, "args: more than %d arguments", AOE_JOB_MAX_ARGS);
    job->args = calloc(n ? (size_t)n : 1, sizeof *job->args);
    if (!job->args) return aoe_errf(err, errlen, "args: out of memory");
    job->nargs = (uint32_t)n;
    uint32_t i = 0;
    for (const cJSON *a = args->child; a; a = a->next, i++)
        if (parse_arg(a, i, &job->args[i], err, errlen)) return -1;
    return 0;
}

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
        if (get_string(root, "source", 1, 0, &job->source, err, errlen)) return -1;
        if (!job->source[0]) return aoe_errf(err, errlen, "source: empty");
        return 0;
    }
    if (get_b64(bin, "binary_b64", 0, &job->binary, &job->binary_size, err, errlen)) return -1;
    if (!job->binary_size) return aoe_errf(err, errlen, "binary_b64: empty");
    return 0;
}

static int parse_budget(const cJSON *root, aoe_job *job, char *err, size_t errlen)
{
    static const char *const known[] = {"max_evals", "time_limit_s", NULL};
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(root, "budget");
    if (!b || cJSON_IsNull(b)) return 0;
    if (!cJSON_IsObject(b)) return aoe_errf(err, errlen, "budget: expected an object");
    if (check_fields(b, known, "budget.", err, errlen)) return -1;
    const cJSON *me = cJSON_GetObjectItemCaseSensitive(b, "max_evals");
    const cJSON *tl = cJSON_GetObjectItemCaseSensitive(b, "time_limit_s");
    uint64_t v = 0;
    if (me && get_uint(me, "budget.max_evals", 0, 1e9, &v, err, errlen)) return -1;
    job->max_evals = (uint32_t)v;
    if (tl) {
        if (!cJSON_IsNumber(tl) || !isfinite(tl->valuedouble) || tl->valuedouble < 0 ||
            tl->valuedouble > 1e9)
            return aoe_errf(err, errlen,
                            "budget.time_limit_s: expected a number in 0..1e9 seconds");
        job->time_limit_s = tl->valuedouble;
    }
    return 0;
}

static int parse_sizes_all(const cJSON *root, aoe_job *job, char *err, size_t errlen)
{
    uint64_t v = 0;
    if (get_uint(cJSON_GetObjectItemCaseSensitive(root, "work_dim"), "work_dim", 1, 3, &v, err,
                 errlen))
        return -1;
    job->work_dim = (uint32_t)v;
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(root, "global");
    if (!g) return aoe_errf(err, errlen, "global: missing");
    if (parse_sizes(g, "global", job->work_dim, job->global, err, errlen)) return -1;
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(root, "local");
    if (!l || cJSON_IsNull(l)) return 0;
    if (parse_sizes(l, "local", job->work_dim, job->local, err, errlen)) return -1;
    job->has_local = 1;
    return 0;
}

static int parse_key(const cJSON *root, aoe_job *job, char *err, size_t errlen)
{
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(root, "key");
    if (!k) return aoe_errf(err, errlen, "key: missing");
    const char *s = cJSON_IsString(k) ? k->valuestring : NULL;
    uint64_t part[2] = {0, 0};
    if (!s || strlen(s) != 32) return aoe_errf(err, errlen, "key: expected 32 hexadecimal digits");
    for (int i = 0; i < 32; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0) return aoe_errf(err, errlen, "key: expected 32 hexadecimal digits");
        part[i / 16] = part[i / 16] << 4 | (uint64_t)d;
    }
    job->key = (aoe_key){part[0], part[1]};
    aoe_key want = aoe_job_compute_key(job);
    if (want.hi != job->key.hi || want.lo != job->key.lo)
        return aoe_errf(err, errlen,
                        "key: does not match the job's contents (expected %016llx%016llx); the job "
                        "was edited or damaged",
                        (unsigned long long)want.hi, (unsigned long long)want.lo);
    return 0;
}

static int parse_root(const cJSON *root, aoe_job *job, char *err, size_t errlen)
{
    static const char *const known[] = {
        "format",    "runtime",     "fingerprint", "kernel_name", "source", "binary_b64",
        "options",   "work_dim",    "global",      "local",       "args",   "key",
        "call_site", "repeat_tune", "space",       "budget",      NULL};
    if (!cJSON_IsObject(root)) return aoe_errf(err, errlen, "job: expected a JSON object");
    uint64_t v = 0;
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(root, "format");
    if (!fmt) return aoe_errf(err, errlen, "format: missing");
    if (get_uint(fmt, "format", AOE_JOB_FORMAT, AOE_JOB_FORMAT, &v, err, errlen)) return -1;
    job->format = (int)v;
    if (check_fields(root, known, "", err, errlen)) return -1;
    if (get_string(root, "runtime", 1, 15, &job->runtime, err, errlen)) return -1;
    if (strcmp(job->runtime, "opencl"))
        return aoe_errf(err, errlen, "runtime: unsupported runtime \"%s\" (known: opencl)",
                        job->runtime);
    if (get_string(root, "fingerprint", 1, AOE_FINGERPRINT_LEN - 1, &job->fingerprint, err, errlen))
        return -1;
    if (!job->fingerprint[0]) return aoe_errf(err, errlen, "fingerprint: empty");
    if (get_string(root, "kernel_name", 1, AOE_JOB_MAX_NAME, &job->kernel_name, err, errlen))
        return -1;
    if (!job->kernel_name[0]) return aoe_errf(err, errlen, "kernel_name: empty");
    if (parse_program(root, job, err, errlen)) return -1;
    if (get_string(root, "options", 0, 0, &job->options, err, errlen)) return -1;
    if (!job->options && !(job->options = strdup("")))
        return aoe_errf(err, errlen, "options: out of memory");
    if (parse_sizes_all(root, job, err, errlen) || parse_args(root, job, err, errlen)) return -1;
    if (get_string(root, "call_site", 0, 4096, &job->call_site, err, errlen)) return -1;
    const cJSON *rt = cJSON_GetObjectItemCaseSensitive(root, "repeat_tune");
    if (rt && !cJSON_IsBool(rt))
        return aoe_errf(err, errlen, "repeat_tune: expected true or false");
    job->repeat_tune = cJSON_IsTrue(rt);
    const cJSON *sp = cJSON_GetObjectItemCaseSensitive(root, "space");
    if (sp && !cJSON_IsNull(sp)) {
        if (!cJSON_IsObject(sp)) return aoe_errf(err, errlen, "space: expected an object");
        if (!(job->space_json = cJSON_PrintUnformatted(sp)))
            return aoe_errf(err, errlen, "space: out of memory");
    }
    if (parse_budget(root, job, err, errlen)) return -1;
    return parse_key(root, job, err, errlen); /* last: it covers every other field */
}

int aoe_job_parse(const char *text, size_t len, aoe_job *job, char *err, size_t errlen)
{
    memset(job, 0, sizeof *job);
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        long off = at && at >= text && at <= text + len ? (long)(at - text) : -1;
        return aoe_errf(err, errlen, "job: not valid JSON (near byte %ld)", off);
    }
    /* One object and nothing after it but white space: a job with an appended
     * tail was damaged or edited, and the tail must not pass unnoticed. */
    while (end && end < text + len && (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r'))
        end++;
    if (end && end < text + len) {
        unsigned char c = (unsigned char)*end;
        cJSON_Delete(root);
        return aoe_errf(err, errlen,
                        "job: unexpected byte 0x%02x ('%c') at offset %ld after the JSON object", c,
                        c >= 0x20 && c < 0x7f ? c : '?', (long)(end - text));
    }
    int rc = parse_root(root, job, err, errlen);
    cJSON_Delete(root);
    if (rc) aoe_job_free(job);
    return rc;
}

int aoe_job_read(const char *path, aoe_job *job, char *err, size_t errlen)
{
    memset(job, 0, sizeof *job);
    /* O_NONBLOCK: opening a FIFO or a device must not wait for a writer; the
     * descriptor is checked before anything is read from it. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return aoe_errf(err, errlen, "cannot open %s: %s", path, strerror(errno));
    int rc = aoe_job_read_fd(fd, path, job, err, errlen);
    close(fd);
    return rc;
}

int aoe_job_read_fd(int fd, const char *path, aoe_job *job, char *err, size_t errlen)
{
    memset(job, 0, sizeof *job);
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode))
        return aoe_errf(err, errlen, "%s: not a regular file", path);
    size_t cap = (size_t)st.st_size, n = 0;
    char *text = malloc(cap + 1);
    if (!text) {
        return aoe_errf(err, errlen, "%s: out of memory (%zu bytes)", path, cap);
    }
    for (;;) { /* the file may change size under us: read what is there */
        if (n == cap) {
            char *t = realloc(text, (cap = cap * 2 + 4096) + 1);
            if (!t) {
                free(text);
                return aoe_errf(err, errlen, "%s: out of memory", path);
            }
            text = t;
        }
        ssize_t r = read(fd, text + n, cap - n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            int e = errno;
            free(text);
            return aoe_errf(err, errlen, "cannot read %s: %s", path, strerror(e));
        }
        if (r == 0) break;
        n += (size_t)r;
    }
    text[n] = '\0';
    int rc = aoe_job_parse(text, n, job, err, errlen);
    free(text);
    return rc;
}

void aoe_job_free(aoe_job *job)
{
    if (!job) return;
    free(job->runtime);
    free(job->fingerprint);
    free(job->source);
    free(job->binary);
    free(job->options);
    free(job->kernel_name);
    for (uint32_t i = 0; job->args && i < job->nargs; i++) free(job->args[i].data);
    free(job->args);
    free(job->call_site);
    if (job->space_json) cJSON_free(job->space_json);
    memset(job, 0, sizeof *job);
}

aoe_key aoe_job_compute_key(const aoe_job *job)
{
    aoe_hash128 prog = job->source ? aoe_program_hash(job->source, strlen(job->source))
                                   : aoe_program_hash(job->binary, (size_t)job->binary_size);
    uint64_t kpart = aoe_opkey_kernel(job->fingerprint ? job->fingerprint : "", prog,
                                      job->kernel_name ? job->kernel_name : "",
                                      job->options ? job->options : "");
    size_t global[3] = {0, 0, 0}, local[3] = {0, 0, 0};
    uint32_t wd = job->work_dim > 3 ? 3 : job->work_dim;
    for (uint32_t d = 0; d < wd; d++) {
        global[d] = (size_t)job->global[d];
        local[d] = (size_t)job->local[d];
    }
    /* Small fixed array first: no allocation for the common case. */
    aoe_arg_shape small[32], *shapes = small;
    if (job->nargs > 32 && !(shapes = calloc(job->nargs, sizeof *shapes)))
        return (aoe_key){0, 0}; /* out of memory: a key nothing matches */
    for (uint32_t i = 0; i < job->nargs; i++) {
        const aoe_job_arg *a = &job->args[i];
        aoe_arg_shape *s = &shapes[i];
        memset(s, 0, sizeof *s);
        switch (a->kind) {
        case AOE_JOB_ARG_SCALAR:
            /* a scalar without bytes cannot pass the reader; never read NULL */
            *s = (aoe_arg_shape){AOE_ARGK_SCALAR, a->data ? (uint32_t)a->size : 0, 0, a->data};
            break;
        case AOE_JOB_ARG_BUFFER:
            *s = (aoe_arg_shape){AOE_ARGK_BUFFER, 0, a->size, NULL};
            break;
        case AOE_JOB_ARG_LOCAL:
            *s = (aoe_arg_shape){AOE_ARGK_LOCAL, 0, a->size, NULL};
            break;
        default:
            *s = (aoe_arg_shape){AOE_ARGK_NULLMEM, 0, 0, NULL};
            break;
        }
    }
    aoe_key k = aoe_opkey_launch(kpart, wd, global, job->has_local ? local : NULL, job->nargs,
                                 job->nargs ? shapes : NULL);
    if (shapes != small) free(shapes);
    return k;
}
