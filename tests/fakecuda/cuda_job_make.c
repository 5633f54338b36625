/* Test tool: writes a CUDA kernel tuning job (runtime "cuda", an NVRTC
 * program, a grid/block launch) as the shim captures one (the conventions
 * of docs/formats.md, "CUDA kernel jobs"), from a small description:
 *   cuda_job_make OUT.job FINGERPRINT '{"source_file": "k.cu", "kernel": "k",
 *     "options": ["-arch=sm_80"], "grid": [8, 8], "block": [16, 16],
 *     "shared": 0, "image": "cubin", "nvrtc_library": "/abs/libnvrtc.so.13",
 *     "headers": [{"name": "h.cuh", "source": "..."}],
 *     "args": [{"int": 128}, {"f32": 16384, "const": true, "seed": 1},
 *              {"f32": 16384, "zero": true}, {"f32": 64}, {"null": true}]}'
 * An "f32" buffer holds that many floats: values in [-1, 1) from "seed",
 * zeros ("zero"), or nothing captured (neither: synthetic); "const": the
 * kernel's signature declares it const (flags 1). The key is
 * aoe_job_compute_key's. */
#include "jobs/job.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *s = NULL;
    if (!fseek(f, 0, SEEK_END)) {
        long n = ftell(f);
        rewind(f);
        if (n >= 0 && (s = calloc(1, (size_t)n + 1)) && fread(s, 1, (size_t)n, f) != (size_t)n) {
            free(s);
            s = NULL;
        }
    }
    fclose(f);
    return s;
}

static int die(const char *msg)
{
    fprintf(stderr, "cuda_job_make: %s\n", msg);
    return 1;
}

/* Buffer contents: float32 in [-1, 1) from a seed (xorshift). */
static void seeded(float *p, size_t n, unsigned seed)
{
    unsigned long long s = 0x9E3779B97F4A7C15ull ^ (seed * 0x100000001B3ull);
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        p[i] = (float)((double)(s >> 40) / (double)(1ull << 24) * 2.0 - 1.0);
    }
}

static int make_arg(const cJSON *a, aoe_job_arg *out)
{
    const cJSON *v;
    memset(out, 0, sizeof *out);
    if ((v = cJSON_GetObjectItem(a, "int")) || (v = cJSON_GetObjectItem(a, "float"))) {
        out->kind = AOE_JOB_ARG_SCALAR;
        out->size = 4;
        if (!(out->data = malloc(4))) return -1;
        int i = (int)v->valuedouble;
        float f = (float)v->valuedouble;
        memcpy(out->data, cJSON_GetObjectItem(a, "int") ? (void *)&i : (void *)&f, 4);
        return 0;
    }
    if (cJSON_IsTrue(cJSON_GetObjectItem(a, "null"))) {
        out->kind = AOE_JOB_ARG_NULLMEM;
        return 0;
    }
    if (!(v = cJSON_GetObjectItem(a, "f32")) || v->valuedouble < 1) return -1;
    size_t n = (size_t)v->valuedouble;
    out->kind = AOE_JOB_ARG_BUFFER;
    out->elem = AOE_ELEM_F32;
    out->size = n * 4;
    out->flags = cJSON_IsTrue(cJSON_GetObjectItem(a, "const")) ? 1 : 0;
    const cJSON *seed = cJSON_GetObjectItem(a, "seed");
    if (seed || cJSON_IsTrue(cJSON_GetObjectItem(a, "zero"))) {
        if (!(out->data = calloc(n, 4))) return -1;
        if (seed) seeded((float *)out->data, n, (unsigned)seed->valuedouble);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: cuda_job_make OUT.job FINGERPRINT DESCRIPTION_JSON\n");
        return 2;
    }
    cJSON *d = cJSON_Parse(argv[3]);
    if (!cJSON_IsObject(d)) return die("the description is not a JSON object");
    const cJSON *src = cJSON_GetObjectItem(d, "source_file"), *k = cJSON_GetObjectItem(d, "kernel");
    const cJSON *grid = cJSON_GetObjectItem(d, "grid"), *block = cJSON_GetObjectItem(d, "block");
    const cJSON *args = cJSON_GetObjectItem(d, "args"), *opts = cJSON_GetObjectItem(d, "options");
    if (!cJSON_IsString(src) || !cJSON_IsString(k) || !cJSON_IsArray(grid) ||
        !cJSON_IsArray(block) || !cJSON_IsArray(args))
        return die("needs source_file, kernel, grid, block and args");
    aoe_job job;
    memset(&job, 0, sizeof job);
    job.format = AOE_JOB_FORMAT;
    job.op = AOE_OP_KERNEL;
    job.program_kind = AOE_JOB_PROG_SOURCE;
    job.launch_kind = AOE_LAUNCH_GRID_BLOCK;
    job.runtime = strdup("cuda");
    job.fingerprint = strdup(argv[2]);
    job.kernel_name = strdup(k->valuestring);
    if (!(job.source = read_file(src->valuestring))) return die("cannot read source_file");
    job.noptions = (uint32_t)cJSON_GetArraySize(opts);
    job.option_list = calloc(job.noptions + 1, sizeof *job.option_list);
    for (uint32_t i = 0; i < job.noptions; i++)
        job.option_list[i] = strdup(cJSON_GetArrayItem(opts, (int)i)->valuestring);
    job.options = aoe_job_options_join(job.option_list, job.noptions);
    job.has_local = 1;
    for (int i = 0; i < 3; i++) {
        const cJSON *g = cJSON_GetArrayItem(grid, i), *b = cJSON_GetArrayItem(block, i);
        job.grid[i] = g ? (uint64_t)g->valuedouble : 1;
        job.block[i] = b ? (uint64_t)b->valuedouble : 1;
        if (job.grid[i] != 1 || job.block[i] != 1) job.work_dim = (uint32_t)i + 1;
    }
    if (!job.work_dim) job.work_dim = 1;
    const cJSON *shared = cJSON_GetObjectItem(d, "shared");
    job.dynamic_shared_bytes = shared ? (uint64_t)shared->valuedouble : 0;
    job.nargs = (uint32_t)cJSON_GetArraySize(args);
    job.args = calloc(job.nargs ? job.nargs : 1, sizeof *job.args);
    for (uint32_t i = 0; job.args && i < job.nargs; i++)
        if (make_arg(cJSON_GetArrayItem(args, (int)i), &job.args[i]))
            return die("an argument is not {int}, {float}, {null: true} or {f32: count, ...}");
    cJSON *extra = cJSON_CreateObject(), *hs = cJSON_GetObjectItem(d, "headers");
    cJSON_AddItemToObject(extra, "headers", hs ? cJSON_Duplicate(hs, 1) : cJSON_CreateArray());
    const cJSON *image = cJSON_GetObjectItem(d, "image"),
                *lib = cJSON_GetObjectItem(d, "nvrtc_library");
    cJSON_AddStringToObject(extra, "image", cJSON_IsString(image) ? image->valuestring : "cubin");
    if (cJSON_IsString(lib)) cJSON_AddStringToObject(extra, "nvrtc_library", lib->valuestring);
    job.runtime_extra = cJSON_PrintUnformatted(extra);
    cJSON_Delete(extra);
    if (!job.runtime || !job.fingerprint || !job.kernel_name || !job.option_list || !job.options ||
        !job.args || !job.runtime_extra)
        return die("out of memory");
    job.key = aoe_job_compute_key(&job);
    if (aoe_job_write(argv[1], &job)) {
        perror("cuda_job_make");
        return 1;
    }
    aoe_job_free(&job);
    cJSON_Delete(d);
    return 0;
}
