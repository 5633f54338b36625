/* A GEMM as a job: the description as JSON (runtime_extra.gemm, one field
 * table for both directions so they cannot drift apart) and the typed buffer
 * arguments A, B, C, D [, bias] that go with it. */
#include "jobs/gemm.h"

#include "core/json_text.h"
#include "core/log.h"
#include "jobs/job_fields.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { F_U8, F_U16, F_U32, F_I32, F_U64 } field_kind;

typedef struct {
    const char *name;
    size_t off;
    field_kind kind;
    int required; /* else the default of aoe_gemm_desc_init */
    double min, max;
} field;

#define U32MAX 4294967295.0
#define FLD(n, k, req, lo, hi)                                                                     \
    {                                                                                              \
#n, offsetof(aoe_gemm_desc, n), k, req, lo, hi                                             \
    }

/* JSON ranges are those of the C fields; aoe_gemm_desc_check decides what
 * the values mean. */
static const field fields[] = {
    FLD(library_version, F_U32, 1, 0, U32MAX),
    FLD(a_type, F_I32, 1, 0, 2147483647.0),
    FLD(b_type, F_I32, 1, 0, 2147483647.0),
    FLD(c_type, F_I32, 1, 0, 2147483647.0),
    FLD(d_type, F_I32, 1, 0, 2147483647.0),
    FLD(compute_type, F_I32, 1, 0, 2147483647.0),
    FLD(scale_type, F_I32, 1, 0, 2147483647.0),
    FLD(transa, F_U8, 1, 0, 255),
    FLD(transb, F_U8, 1, 0, 255),
    FLD(m, F_U64, 1, 0, AOE_GEMM_MAX_BYTES),
    FLD(n, F_U64, 1, 0, AOE_GEMM_MAX_BYTES),
    FLD(k, F_U64, 1, 0, AOE_GEMM_MAX_BYTES),
    FLD(lda, F_U64, 1, 0, AOE_GEMM_MAX_BYTES),
    FLD(ldb, F_U64, 1, 0, AOE_GEMM_MAX_BYTES),
    FLD(ldc, F_U64, 1, 0, AOE_GEMM_MAX_BYTES),
    FLD(ldd, F_U64, 1, 0, AOE_GEMM_MAX_BYTES),
    FLD(batch_count, F_U64, 0, 0, AOE_GEMM_MAX_BYTES),
    FLD(stride_a, F_U64, 0, 0, AOE_GEMM_MAX_BYTES),
    FLD(stride_b, F_U64, 0, 0, AOE_GEMM_MAX_BYTES),
    FLD(stride_c, F_U64, 0, 0, AOE_GEMM_MAX_BYTES),
    FLD(stride_d, F_U64, 0, 0, AOE_GEMM_MAX_BYTES),
    FLD(epilogue, F_U32, 0, 0, U32MAX),
    FLD(bias_type, F_I32, 0, -1, 2147483647.0),
    FLD(pointer_mode, F_U8, 0, 0, 255),
    FLD(align_a, F_U16, 0, 0, 65535),
    FLD(align_b, F_U16, 0, 0, 65535),
    FLD(align_c, F_U16, 0, 0, 65535),
    FLD(align_d, F_U16, 0, 0, 65535),
    FLD(align_bias, F_U16, 0, 0, 65535),
    FLD(workspace_limit, F_U64, 0, 0, AOE_GEMM_MAX_BYTES),
    FLD(reduction_mask, F_U32, 0, 0, U32MAX),
    FLD(sm_count_target, F_U32, 0, 0, U32MAX),
};
#define NFIELDS (sizeof fields / sizeof fields[0])

static const struct {
    const char *name;
    uint32_t bit;
} flag_names[] = {{"c_is_d", AOE_GEMM_FLAG_C_IS_D},
                  {"beta_zero", AOE_GEMM_FLAG_BETA_ZERO},
                  {"fast_accum", AOE_GEMM_FLAG_FAST_ACCUM},
                  {"scales", AOE_GEMM_FLAG_SCALES}};
#define NFLAGS (sizeof flag_names / sizeof flag_names[0])

static const char *const path_names[] = {"lt", "blas"};

static double get(const aoe_gemm_desc *d, const field *f)
{
    const char *p = (const char *)d + f->off;
    switch (f->kind) {
    case F_U8:
        return *(const uint8_t *)p;
    case F_U16:
        return *(const uint16_t *)p;
    case F_U32:
        return *(const uint32_t *)p;
    case F_I32:
        return *(const int32_t *)p;
    default:
        return (double)*(const uint64_t *)p;
    }
}

static void set(aoe_gemm_desc *d, const field *f, double v)
{
    char *p = (char *)d + f->off;
    switch (f->kind) {
    case F_U8:
        *(uint8_t *)p = (uint8_t)v;
        break;
    case F_U16:
        *(uint16_t *)p = (uint16_t)v;
        break;
    case F_U32:
        *(uint32_t *)p = (uint32_t)v;
        break;
    case F_I32:
        *(int32_t *)p = (int32_t)v;
        break;
    default:
        *(uint64_t *)p = (uint64_t)v;
        break;
    }
}

static cJSON *to_object(const aoe_gemm_desc *d)
{
    cJSON *o = cJSON_CreateObject();
    int ok = o && d->path <= AOE_GEMM_PATH_BLAS &&
             cJSON_AddStringToObject(o, "path", path_names[d->path]) &&
             cJSON_AddStringToObject(o, "library", d->library);
    for (size_t i = 0; ok && i < NFIELDS; i++)
        ok = cJSON_AddNumberToObject(o, fields[i].name, get(d, &fields[i])) != NULL;
    for (size_t i = 0; ok && i < NFLAGS; i++)
        ok = cJSON_AddBoolToObject(o, flag_names[i].name, (d->flags & flag_names[i].bit) != 0) !=
             NULL;
    if (!ok) cJSON_Delete(o);
    return ok ? o : NULL;
}

char *aoe_gemm_desc_to_json(const aoe_gemm_desc *d)
{
    cJSON *o = to_object(d);
    char *text = o ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    return text;
}

/* prefix: how the object is named in messages ("gemm.", "runtime_extra.gemm."). */
static int from_object(const cJSON *o, const char *prefix, aoe_gemm_desc *d, char *err,
                       size_t errlen)
{
    const char *known[NFIELDS + NFLAGS + 3];
    char name[96], msg[256];
    size_t nk = 0;
    known[nk++] = "path";
    known[nk++] = "library";
    for (size_t i = 0; i < NFIELDS; i++) known[nk++] = fields[i].name;
    for (size_t i = 0; i < NFLAGS; i++) known[nk++] = flag_names[i].name;
    known[nk] = NULL;
    aoe_gemm_desc_init(d);
    if (!cJSON_IsObject(o))
        return aoe_errf(err, errlen, "%.*s: expected an object", (int)strlen(prefix) - 1, prefix);
    if (aoe_jf_known(o, known, prefix, err, errlen)) return -1;
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(o, "path");
    const char *ps = cJSON_IsString(p) ? p->valuestring : "";
    if (!strcmp(ps, "lt"))
        d->path = AOE_GEMM_PATH_LT;
    else if (!strcmp(ps, "blas"))
        d->path = AOE_GEMM_PATH_BLAS;
    else
        return aoe_errf(err, errlen, "%spath: %s (expected \"lt\" or \"blas\")", prefix,
                        p ? "unknown" : "missing");
    const cJSON *lib = cJSON_GetObjectItemCaseSensitive(o, "library");
    if (!cJSON_IsString(lib) || strlen(lib->valuestring) >= sizeof d->library)
        return aoe_errf(err, errlen, "%slibrary: %s", prefix,
                        lib ? "expected a name of 1..15 characters (\"cublasLt\", \"cublas\")"
                            : "missing");
    strcpy(d->library, lib->valuestring);
    for (size_t i = 0; i < NFIELDS; i++) {
        const field *f = &fields[i];
        const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, f->name);
        snprintf(name, sizeof name, "%s%s", prefix, f->name);
        if (!it) {
            if (f->required) return aoe_errf(err, errlen, "%s: missing", name);
            continue;
        }
        uint64_t v = 0;
        if (f->min < 0 && cJSON_IsNumber(it) && it->valuedouble == f->min) {
            set(d, f, f->min); /* bias_type -1 */
            continue;
        }
        if (f->min < 0 && (!cJSON_IsNumber(it) || it->valuedouble < 0))
            return aoe_errf(err, errlen, "%s: expected -1 or an integer in 0..%.0f", name, f->max);
        if (aoe_jf_uint(it, name, f->min < 0 ? 0 : f->min, f->max, &v, err, errlen)) return -1;
        set(d, f, (double)v);
    }
    for (size_t i = 0; i < NFLAGS; i++) {
        const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, flag_names[i].name);
        if (!it) continue;
        if (!cJSON_IsBool(it))
            return aoe_errf(err, errlen, "%s%s: expected true or false", prefix,
                            flag_names[i].name);
        if (cJSON_IsTrue(it)) d->flags |= flag_names[i].bit;
    }
    if (aoe_gemm_desc_check(d, msg, sizeof msg)) return aoe_errf(err, errlen, "%s%s", prefix, msg);
    return 0;
}

int aoe_gemm_desc_from_json(const char *text, aoe_gemm_desc *d, char *err, size_t errlen)
{
    bool oom;
    cJSON *o = aoe_json_parse(text, text ? strlen(text) : 0, NULL, &oom);
    if (!o) {
        aoe_gemm_desc_init(d);
        return aoe_errf(err, errlen, "gemm: %s", oom ? "out of memory" : "not valid JSON");
    }
    int rc = from_object(o, "gemm.", d, err, errlen);
    cJSON_Delete(o);
    return rc;
}

int aoe_job_is_gemm(const aoe_job *job)
{
    return job->op == AOE_OP_LIBRARY_CALL && job->runtime &&
           !strcmp(job->runtime, AOE_GEMM_RUNTIME) && job->kernel_name &&
           !strcmp(job->kernel_name, AOE_GEMM_CALL);
}

int aoe_gemm_from_job(const aoe_job *job, aoe_gemm_desc *d, char *err, size_t errlen)
{
    static const char *const names[] = {"A", "B", "C", "D", "bias"};
    cJSON *ex = job->runtime_extra ? cJSON_Parse(job->runtime_extra) : NULL;
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(ex, "gemm");
    int rc = g ? from_object(g, "runtime_extra.gemm.", d, err, errlen)
               : aoe_errf(err, errlen,
                          "runtime_extra.gemm: missing (a GEMM job carries its "
                          "description)");
    cJSON_Delete(ex);
    if (rc) return -1;
    uint32_t n = aoe_gemm_nargs(d);
    if (job->nargs != n)
        return aoe_errf(err, errlen, "args: %u arguments, but this GEMM has %u (A, B, C, D%s)",
                        job->nargs, n, n == 5 ? ", bias" : "");
    for (uint32_t i = 0; i < n; i++) {
        const aoe_job_arg *a = &job->args[i];
        const int32_t type[] = {d->a_type, d->b_type, d->c_type, d->d_type,
                                d->bias_type < 0 ? d->d_type : d->bias_type};
        uint64_t want = aoe_gemm_operand_bytes(d, (aoe_gemm_arg)i);
        aoe_elem_type elem = aoe_gemm_elem(type[i]);
        if (a->kind != AOE_JOB_ARG_BUFFER)
            return aoe_errf(err, errlen, "args[%u].kind: %s is a buffer", i, names[i]);
        if (a->elem != elem)
            return aoe_errf(err, errlen, "args[%u].type: %s holds %s (cudaDataType_t %d), not %s",
                            i, names[i], aoe_elem_name(elem), type[i], aoe_elem_name(a->elem));
        if (a->size != want)
            return aoe_errf(err, errlen, "args[%u].size: %s spans %llu bytes, not %llu", i,
                            names[i], (unsigned long long)want, (unsigned long long)a->size);
    }
    return 0;
}

int aoe_gemm_job_make(aoe_job *job, const char *fingerprint, const aoe_gemm_desc *d,
                      const char *lib_dir)
{
    memset(job, 0, sizeof *job);
    if (lib_dir && !*lib_dir) lib_dir = NULL;
    if (!fingerprint || aoe_gemm_desc_check(d, NULL, 0) || (lib_dir && lib_dir[0] != '/')) {
        errno = EINVAL;
        return -1;
    }
    uint32_t n = aoe_gemm_nargs(d);
    cJSON *ex = cJSON_CreateObject(), *g = to_object(d);
    int ok = ex && g && cJSON_AddItemToObject(ex, "gemm", g);
    if (!ok) cJSON_Delete(g);
    if (ok && lib_dir) ok = cJSON_AddStringToObject(ex, "cublas_dir", lib_dir) != NULL;
    job->format = AOE_JOB_FORMAT;
    job->op = AOE_OP_LIBRARY_CALL;
    job->runtime = strdup(AOE_GEMM_RUNTIME);
    job->kernel_name = strdup(AOE_GEMM_CALL);
    job->fingerprint = strdup(fingerprint);
    job->runtime_extra = ok ? cJSON_PrintUnformatted(ex) : NULL;
    job->args = calloc(n, sizeof *job->args);
    cJSON_Delete(ex);
    if (!job->runtime || !job->kernel_name || !job->fingerprint || !job->runtime_extra ||
        !job->args) {
        aoe_job_free(job);
        errno = ENOMEM;
        return -1;
    }
    job->nargs = n;
    for (uint32_t i = 0; i < n; i++) {
        const int32_t type[] = {d->a_type, d->b_type, d->c_type, d->d_type,
                                d->bias_type < 0 ? d->d_type : d->bias_type};
        job->args[i].kind = AOE_JOB_ARG_BUFFER;
        job->args[i].elem = aoe_gemm_elem(type[i]);
        job->args[i].size = aoe_gemm_operand_bytes(d, (aoe_gemm_arg)i);
    }
    job->key = aoe_gemm_key(fingerprint, d);
    return 0;
}

int aoe_gemm_job_lib_dir(const aoe_job *job, char *out, size_t len, char *err, size_t errlen)
{
    if (len) out[0] = '\0';
    cJSON *ex = job->runtime_extra ? cJSON_Parse(job->runtime_extra) : NULL;
    const cJSON *dir = cJSON_GetObjectItemCaseSensitive(ex, "cublas_dir");
    int rc = 0;
    if (dir && !cJSON_IsNull(dir)) {
        const char *s = cJSON_IsString(dir) ? dir->valuestring : NULL;
        if (!s || s[0] != '/' || strlen(s) >= len)
            rc = aoe_errf(err, errlen,
                          "runtime_extra.cublas_dir: expected an absolute path of at most %zu "
                          "characters",
                          len ? len - 1 : 0);
        else
            memcpy(out, s, strlen(s) + 1);
    }
    cJSON_Delete(ex);
    return rc;
}
