/* The CUDA kernel job's program as the executor compiles it: its
 * runtime_extra (headers, image kind, NVRTC library) and the option list of
 * one variant (exec_cuda_program.h). */
#include "tuner/exec_cuda_program.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void aoe_cuda_extra_free(aoe_cuda_extra *e)
{
    for (int i = 0; i < e->n_headers; i++) {
        free(e->header_names[i]);
        free(e->header_sources[i]);
    }
    free(e->header_names);
    free(e->header_sources);
    free(e->nvrtc_library);
    memset(e, 0, sizeof *e);
}

static char *dup_string(const cJSON *o, const char *key, int *bad)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v) return NULL;
    if (!cJSON_IsString(v)) {
        *bad = 1;
        return NULL;
    }
    char *s = strdup(v->valuestring);
    if (!s) *bad = 1;
    return s;
}

int aoe_cuda_extra_parse(const char *json, aoe_cuda_extra *out, char *err, size_t errlen)
{
    int bad = 0;
    memset(out, 0, sizeof *out);
    if (!json || !*json) return 0;
    cJSON *root = cJSON_Parse(json);
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        snprintf(err, errlen, "runtime_extra: not a JSON object");
        return -1;
    }
    char *image = dup_string(root, "image", &bad);
    if (bad || (image && strcmp(image, "cubin") && strcmp(image, "ptx"))) {
        snprintf(err, errlen, "runtime_extra.image: expected \"cubin\" or \"ptx\"");
        goto fail;
    }
    out->want_ptx = image && !strcmp(image, "ptx");
    out->nvrtc_library = dup_string(root, "nvrtc_library", &bad);
    if (bad) {
        snprintf(err, errlen, "runtime_extra.nvrtc_library: expected a string");
        goto fail;
    }
    const cJSON *hs = cJSON_GetObjectItemCaseSensitive(root, "headers");
    if (hs && !cJSON_IsArray(hs)) {
        snprintf(err, errlen, "runtime_extra.headers: expected an array");
        goto fail;
    }
    int n = hs ? cJSON_GetArraySize(hs) : 0;
    out->header_names = calloc((size_t)n + 1, sizeof *out->header_names);
    out->header_sources = calloc((size_t)n + 1, sizeof *out->header_sources);
    if (!out->header_names || !out->header_sources) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    const cJSON *h;
    cJSON_ArrayForEach(h, hs)
    {
        int i = out->n_headers;
        out->header_names[i] = dup_string(h, "name", &bad);
        out->header_sources[i] = dup_string(h, "source", &bad);
        out->n_headers++;
        if (bad || !out->header_names[i] || !out->header_sources[i]) {
            snprintf(err, errlen,
                     "runtime_extra.headers[%d]: expected {\"name\": text, \"source\": text}", i);
            goto fail;
        }
    }
    free(image);
    cJSON_Delete(root);
    return 0;
fail:
    free(image);
    cJSON_Delete(root);
    aoe_cuda_extra_free(out);
    return -1;
}

/* The architecture value of an -arch option at opts[*i] (advancing *i past a
 * separate value), or NULL when opts[*i] is no such option. */
static const char *arch_value(char *const *opts, uint32_t n, uint32_t *i)
{
    static const char *const names[] = {"-arch", "--gpu-architecture"};
    for (int k = 0; k < 2; k++) {
        size_t l = strlen(names[k]);
        if (strncmp(opts[*i], names[k], l)) continue;
        if (opts[*i][l] == '=') return opts[*i] + l + 1;
        if (opts[*i][l] == '\0') return *i + 1 < n ? opts[++*i] : "";
    }
    return NULL;
}

static int push(char ***v, int *n, const char *s)
{
    char **g = realloc(*v, (size_t)(*n + 2) * sizeof **v);
    if (!g) return -1;
    *v = g;
    if (!(g[*n] = strdup(s))) return -1;
    g[++*n] = NULL;
    return 0;
}

int aoe_cuda_options(const aoe_job *job, const char *options, int cc_major, int cc_minor,
                     char ***out)
{
    char **base = job->option_list, **split = NULL, **extra = NULL, **v = NULL;
    uint32_t nbase = job->noptions;
    int nsplit = 0, nextra = 0, n = 0, rc = -1;
    const char *jo = job->options ? job->options : "";
    if (!options) options = "";
    int prefix = !strncmp(options, jo, strlen(jo)); /* the job's options, then the variant's */
    if (!prefix) base = NULL, jo = options;         /* (anything else: taken as it is) */
    if (!base && (nsplit = aoe_job_options_split(jo, &split)) < 0) goto done;
    if (!base) base = split, nbase = (uint32_t)nsplit;
    /* what the variant adds after the job's options: its -D values */
    const char *rest = prefix ? options + strlen(jo) : "";
    if ((nextra = aoe_job_options_split(rest, &extra)) < 0) goto done;
    char arch[48];
    snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d%d", cc_major, cc_minor);
    char digits[16];
    snprintf(digits, sizeof digits, "%d%d", cc_major, cc_minor);
    if (!(v = calloc(1, sizeof *v))) goto done;
    for (uint32_t i = 0; i < nbase; i++) {
        const char *a = arch_value(base, nbase, &i);
        if (!a) {
            if (push(&v, &n, base[i])) goto done;
            continue;
        }
        /* sm_90a / compute_90f on this very architecture: keep the suffix */
        const char *x = !strncmp(a, "sm_", 3) ? a + 3 : !strncmp(a, "compute_", 8) ? a + 8 : "";
        size_t dl = strlen(digits);
        if (!strncmp(x, digits, dl) && (x[dl] == 'a' || x[dl] == 'f') && !x[dl + 1])
            snprintf(arch, sizeof arch, "--gpu-architecture=sm_%s", x);
    }
    if (push(&v, &n, arch)) goto done;
    for (int i = 0; i < nextra; i++)
        if (push(&v, &n, extra[i])) goto done;
    rc = n;
done:
    if (rc < 0) aoe_cuda_options_free(v), v = NULL;
    aoe_job_options_free(split, nsplit > 0 ? (uint32_t)nsplit : 0);
    aoe_job_options_free(extra, nextra > 0 ? (uint32_t)nextra : 0);
    *out = v;
    return rc;
}

void aoe_cuda_options_free(char **opts)
{
    for (char **p = opts; p && *p; p++) free(*p);
    free(opts);
}
