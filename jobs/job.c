/* Job files: reading (format 1 and 2 share the envelope: format, runtime,
 * fingerprint, call site, repeat flag, space, budget, key), freeing, and the
 * operator key. Every rejection names the field at fault, because a job may
 * come from another machine or a hand edit and the person reading the message
 * has only the file. */
#include "jobs/job.h"

#include "core/json_text.h"
#include "core/log.h"
#include "jobs/gemm.h"
#include "jobs/job_fields.h"
#include "store/opkey.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A runtime is named by a short identifier; whether an executor exists for
 * it is the tuner's question, not the reader's. */
static int valid_runtime(const char *s)
{
    size_t n = strlen(s);
    if (n < 1 || n > AOE_JOB_MAX_RUNTIME || s[0] < 'a' || s[0] > 'z') return 0;
    for (size_t i = 1; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return 0;
    return 1;
}

static int parse_budget(const cJSON *root, aoe_job *job, char *err, size_t errlen)
{
    static const char *const known[] = {"max_evals", "time_limit_s", NULL};
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(root, "budget");
    if (!b || cJSON_IsNull(b)) return 0;
    if (!cJSON_IsObject(b)) return aoe_errf(err, errlen, "budget: expected an object");
    if (aoe_jf_known(b, known, "budget.", err, errlen)) return -1;
    const cJSON *me = cJSON_GetObjectItemCaseSensitive(b, "max_evals");
    const cJSON *tl = cJSON_GetObjectItemCaseSensitive(b, "time_limit_s");
    uint64_t v = 0;
    if (me && aoe_jf_uint(me, "budget.max_evals", 0, 1e9, &v, err, errlen)) return -1;
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

/* The fields both formats share, after the body. */
static int parse_envelope(const cJSON *root, aoe_job *job, char *err, size_t errlen)
{
    if (aoe_jf_string(root, "runtime", "runtime", 1, 0, &job->runtime, err, errlen)) return -1;
    if (!valid_runtime(job->runtime))
        return aoe_errf(err, errlen,
                        "runtime: expected a short identifier ([a-z][a-z0-9_], up to %d "
                        "characters, e.g. \"opencl\")",
                        AOE_JOB_MAX_RUNTIME);
    if (aoe_jf_string(root, "fingerprint", "fingerprint", 1, AOE_FINGERPRINT_LEN - 1,
                      &job->fingerprint, err, errlen))
        return -1;
    if (!job->fingerprint[0]) return aoe_errf(err, errlen, "fingerprint: empty");
    if (aoe_jf_string(root, "call_site", "call_site", 0, 4096, &job->call_site, err, errlen))
        return -1;
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
    return parse_budget(root, job, err, errlen);
}

static int parse_root(const cJSON *root, aoe_job *job, char *err, size_t errlen)
{
    if (!cJSON_IsObject(root)) return aoe_errf(err, errlen, "job: expected a JSON object");
    uint64_t v = 0;
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(root, "format");
    if (!fmt) return aoe_errf(err, errlen, "format: missing");
    if (aoe_jf_uint(fmt, "format", AOE_JOB_FORMAT_MIN, AOE_JOB_FORMAT, &v, err, errlen)) return -1;
    job->format = (int)v;
    int rc = v == 1 ? aoe_job_parse_v1(root, job, err, errlen)
                    : aoe_job_parse_v2(root, job, err, errlen);
    if (rc || parse_envelope(root, job, err, errlen)) return -1;
    aoe_gemm_desc gemm; /* a GEMM's description decides its key: checked first */
    if (aoe_job_is_gemm(job) && aoe_gemm_from_job(job, &gemm, err, errlen)) return -1;
    return parse_key(root, job, err, errlen); /* last: it covers every other field */
}

int aoe_job_parse(const char *text, size_t len, aoe_job *job, char *err, size_t errlen)
{
    memset(job, 0, sizeof *job);
    const char *end = NULL;
    bool oom;
    cJSON *root = aoe_json_parse(text, len, &end, &oom);
    if (oom) return aoe_errf(err, errlen, "job: out of memory");
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
    free(job->settings.bank);
    free(job->settings.tunables);
    if (job->space_json) cJSON_free(job->space_json);
    aoe_job_options_free(job->option_list, job->noptions);
    if (job->runtime_extra) cJSON_free(job->runtime_extra);
    memset(job, 0, sizeof *job);
}

/* What format 1 could not express (a library call, PTX or cubin, a grid
 * launch, dynamic shared memory) is appended to the fingerprint the kernel
 * part hashes, after a byte no fingerprint holds: a job format 1 could
 * express keys exactly as before, so existing banks stay valid. */
static const char *key_fingerprint(const aoe_job *job, char *buf, size_t buflen)
{
    const char *fp = job->fingerprint ? job->fingerprint : "";
    aoe_job_prog_kind pk = aoe_job_program_kind(job);
    int lib = job->op == AOE_OP_LIBRARY_CALL;
    int prog = pk == AOE_JOB_PROG_PTX || pk == AOE_JOB_PROG_CUBIN;
    int grid = job->launch_kind == AOE_LAUNCH_GRID_BLOCK;
    if (!lib && !prog && !grid && !job->dynamic_shared_bytes) return fp;
    snprintf(buf, buflen, "%s\x1eop=%s program=%d launch=%s shared=%llu", fp,
             lib ? "library_call" : "kernel", lib ? -1 : (int)pk, grid ? "grid" : "global",
             (unsigned long long)job->dynamic_shared_bytes);
    return buf;
}

uint64_t aoe_job_kernel_part(const aoe_job *job, int *oom)
{
    char fpbuf[AOE_FINGERPRINT_LEN + 128], *joined = NULL;
    const char *options = job->options;
    *oom = 0;
    if (!options && job->noptions &&
        !(options = joined = aoe_job_options_join(job->option_list, job->noptions))) {
        *oom = 1;
        return 0;
    }
    aoe_hash128 prog = job->source ? aoe_program_hash(job->source, strlen(job->source))
                                   : aoe_program_hash(job->binary, (size_t)job->binary_size);
    uint64_t kpart =
        aoe_opkey_kernel(key_fingerprint(job, fpbuf, sizeof fpbuf), prog,
                         job->kernel_name ? job->kernel_name : "", options ? options : "");
    free(joined);
    return kpart;
}

uint64_t aoe_job_image_bytes(const aoe_job_image *im)
{
    uint64_t dims[5] = {im->width, im->height, im->depth, im->array_size, im->pixel_bytes};
    uint64_t n = 1;
    for (int i = 0; i < 5; i++) {
        uint64_t d = dims[i] ? dims[i] : 1;
        if (n > UINT64_MAX / d) return 0;
        n *= d;
    }
    return im->width && im->pixel_bytes ? n : 0;
}

uint64_t aoe_job_image_extent(const aoe_job_image *im)
{
    return aoe_opkey_image_extent(im->type, im->order, im->data_type, im->width, im->height,
                                  im->depth, im->array_size);
}

/* The argument shapes a job's launch is keyed by (aoe_opkey_launch), into
 * small when it fits, else allocated (*shapes != small: free it). -1: out of
 * memory. */
static int job_shapes(const aoe_job *job, aoe_arg_shape small[32], aoe_arg_shape **shapes)
{
    int grid = job->launch_kind == AOE_LAUNCH_GRID_BLOCK;
    *shapes = small;
    if (job->nargs > 32 && !(*shapes = calloc(job->nargs, sizeof **shapes))) return -1;
    for (uint32_t i = 0; i < job->nargs; i++) {
        const aoe_job_arg *a = &job->args[i];
        aoe_arg_shape *s = &(*shapes)[i];
        memset(s, 0, sizeof *s);
        switch (a->kind) {
        case AOE_JOB_ARG_SCALAR:
            /* a scalar without bytes cannot pass the reader; never read NULL */
            *s = (aoe_arg_shape){AOE_ARGK_SCALAR, a->data ? (uint32_t)a->size : 0, 0, a->data};
            break;
        case AOE_JOB_ARG_BUFFER:
            /* a grid launch's buffer by kind only: its hook sees a pointer,
             * whose allocation it cannot know without a driver call */
            *s = (aoe_arg_shape){AOE_ARGK_BUFFER, 0, grid ? 0 : a->size, NULL};
            break;
        case AOE_JOB_ARG_LOCAL:
            *s = (aoe_arg_shape){AOE_ARGK_LOCAL, 0, a->size, NULL};
            break;
        case AOE_JOB_ARG_IMAGE:
            *s = (aoe_arg_shape){AOE_ARGK_IMAGE, 0, aoe_job_image_extent(&a->image), NULL};
            break;
        case AOE_JOB_ARG_SAMPLER:
            *s = (aoe_arg_shape){AOE_ARGK_SAMPLER, 0,
                                 aoe_opkey_sampler_extent(a->sampler.normalized,
                                                          a->sampler.addressing, a->sampler.filter),
                                 NULL};
            break;
        default:
            *s = (aoe_arg_shape){AOE_ARGK_NULLMEM, 0, 0, NULL};
            break;
        }
    }
    return 0;
}

aoe_key aoe_job_compute_key(const aoe_job *job)
{
    if (aoe_job_is_gemm(job)) { /* keyed by its description alone (docs/formats.md) */
        aoe_gemm_desc d;
        if (aoe_gemm_from_job(job, &d, NULL, 0)) return (aoe_key){0, 0}; /* nothing matches */
        return aoe_gemm_key(job->fingerprint, &d);
    }
    int oom;
    uint64_t kpart = aoe_job_kernel_part(job, &oom);
    if (oom) return (aoe_key){0, 0}; /* out of memory: a key nothing matches */
    size_t global[3] = {0, 0, 0}, local[3] = {0, 0, 0};
    uint32_t wd = job->work_dim > 3 ? 3 : job->work_dim;
    for (uint32_t d = 0; d < wd; d++) {
        global[d] = (size_t)job->global[d];
        local[d] = (size_t)job->local[d];
    }
    /* Small fixed array first: no allocation for the common case. */
    aoe_arg_shape small[32], *shapes;
    if (job_shapes(job, small, &shapes)) return (aoe_key){0, 0}; /* a key nothing matches */
    aoe_key k = aoe_opkey_launch(kpart, wd, global, job->has_local ? local : NULL, job->nargs,
                                 job->nargs ? shapes : NULL);
    if (shapes != small) free(shapes);
    return k;
}

int aoe_job_has_family(const aoe_job *job)
{
    return !aoe_job_is_gemm(job) && !job->has_local && job->launch_kind != AOE_LAUNCH_GRID_BLOCK &&
           job->work_dim >= 1 && job->work_dim <= 3;
}

aoe_key aoe_job_family_key(const aoe_job *job, uint64_t keep_scalars)
{
    if (!aoe_job_has_family(job)) return (aoe_key){0, 0};
    int oom;
    uint64_t kpart = aoe_job_kernel_part(job, &oom);
    if (oom) return (aoe_key){0, 0};
    size_t global[3] = {0, 0, 0};
    for (uint32_t d = 0; d < job->work_dim; d++) global[d] = (size_t)job->global[d];
    aoe_arg_shape small[32], *shapes;
    if (job_shapes(job, small, &shapes)) return (aoe_key){0, 0};
    aoe_key k = aoe_opkey_family(kpart, job->work_dim, global, job->nargs,
                                 job->nargs ? shapes : NULL, keep_scalars);
    if (shapes != small) free(shapes);
    return k;
}

int aoe_family_policy_ok(const aoe_policy *p, int scalars_declared)
{
    if (scalars_declared) return 1;
    for (uint32_t i = 0; i < p->n_params && i < AOE_MAX_PARAMS; i++)
        if (p->params[i].kind != AOE_PARAM_WORK_SIZE) return 0;
    return 1;
}
