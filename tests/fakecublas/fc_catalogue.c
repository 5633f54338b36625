/* The built-in catalogue, the lookup and the cost model. */
#include "fc_catalogue.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EPI_BASIC (1u | 2u | 4u | 32u) /* DEFAULT, RELU, BIAS, GELU and their combinations */
#define TYPES_HALF ((1u << FC_F16) | (1u << FC_BF16))
#define TYPES_ALL (TYPES_HALF | (1u << FC_F32))

static struct fc_algo_info algo(int id, unsigned types, float skinny, float small, float large)
{
    struct fc_algo_info a;
    memset(&a, 0, sizeof a);
    a.id = id;
    a.types = types;
    a.speed[FC_CLASS_SKINNY] = skinny;
    a.speed[FC_CLASS_SMALL] = small;
    a.speed[FC_CLASS_LARGE] = large;
    a.epilogue_mask = EPI_BASIC;
    a.align = 16;
    a.heuristic = 1;
    a.planted_amount = 0.05f;
    return a;
}

static void tiles(struct fc_algo_info *a, int n, const uint32_t *ids, const float *speed)
{
    for (int i = 0; i < n; i++) {
        a->tiles[i] = ids[i];
        a->tile_speed[i] = speed ? speed[i] : 1.0f;
    }
    a->n_tiles = n;
}

/* Modelled loosely on what cuBLASLt 13.1 offers for bf16 on an H100
 * (docs/experiments/cuda-probes-h100.md): one id whose tiles cannot be
 * enumerated, one classic id with tiles, stages and custom options, one fast
 * id that needs 4 MiB of workspace, an fp32-only id without bias support, and
 * three planted ids the heuristic never offers. */
void fc_catalogue_default(struct fc_catalogue *out)
{
    memset(out, 0, sizeof *out);
    struct fc_algo_info a;

    a = algo(66, TYPES_HALF, 1.0f, 1.2f, 1.4f);
    a.clusters[0] = 0, a.clusters[1] = 1, a.clusters[2] = 2, a.n_clusters = 3;
    a.split_k = 1, a.reduction_mask = 7, a.swizzle = 1, a.workspace_split = 4;
    a.split_k_gain = 0.15f, a.swizzle_gain = 0.03f;
    out->algos[out->n++] = a;

    a = algo(6, TYPES_ALL, 1.1f, 1.0f, 1.0f);
    tiles(&a, 3, (const uint32_t[]){18, 20, 23}, (const float[]){1.0f, 1.05f, 0.9f});
    a.stages[0] = 8, a.stages[1] = 12, a.n_stages = 2;
    a.split_k = 1, a.reduction_mask = 7, a.swizzle = 1, a.custom_option_max = 3,
    a.workspace_split = 4;
    a.split_k_gain = 0.3f, a.swizzle_gain = 0.02f, a.custom_gain = 0.01f, a.align = 4;
    out->algos[out->n++] = a;

    a = algo(21, TYPES_HALF, 1.0f, 1.3f, 1.6f);
    tiles(&a, 2, (const uint32_t[]){20, 23}, NULL);
    a.stages[0] = 12, a.n_stages = 1;
    a.swizzle = 1, a.workspace_base = 4u << 20;
    out->algos[out->n++] = a;

    a = algo(5, 1u << FC_F32, 0.9f, 0.9f, 0.9f);
    tiles(&a, 1, (const uint32_t[]){15}, NULL);
    a.epilogue_mask = 1, a.align = 4;
    out->algos[out->n++] = a;

    static const enum fc_planted kinds[] = {FC_PLANT_OFF, FC_PLANT_NAN, FC_PLANT_OOB};
    for (int i = 0; i < 3; i++) {
        a = algo(90 + i, TYPES_ALL, 2.0f, 2.0f, 2.0f);
        tiles(&a, 1, (const uint32_t[]){18}, NULL);
        a.align = 4, a.heuristic = 0, a.planted = kinds[i];
        out->algos[out->n++] = a;
    }
    out->cublas_default = 6;
}

static struct fc_catalogue loaded;
static const struct fc_catalogue *current;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    size_t len = 0, cap = 0, got;
    do {
        if (len + 4096 + 1 > cap) {
            cap = (len + 4096 + 1) * 2;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        got = fread(buf + len, 1, 4096, f);
        len += got;
    } while (got == 4096 && len < (1u << 20));
    fclose(f);
    buf[len] = '\0';
    return buf;
}

static void load(void)
{
    const char *path = getenv("FAKECUBLAS_CATALOGUE");
    if (!path || !*path) {
        fc_catalogue_default(&loaded);
        current = &loaded;
        return;
    }
    char *text = read_text(path);
    if (!text) {
        fprintf(stderr, "fakecublas: cannot read FAKECUBLAS_CATALOGUE %s\n", path);
        return;
    }
    char why[128] = "";
    if (fc_catalogue_parse(text, &loaded, why, sizeof why) == 0)
        current = &loaded;
    else
        fprintf(stderr, "fakecublas: FAKECUBLAS_CATALOGUE %s is not a valid catalogue: %s\n", path,
                why);
    free(text);
}

const struct fc_catalogue *fc_catalogue(void)
{
    pthread_once(&load_once, load);
    return current;
}

const struct fc_algo_info *fc_catalogue_find(const struct fc_catalogue *cat, int id)
{
    for (int i = 0; cat && i < cat->n; i++)
        if (cat->algos[i].id == id) return &cat->algos[i];
    return NULL;
}

struct fc_config fc_config_default(const struct fc_algo_info *a)
{
    struct fc_config c;
    memset(&c, 0, sizeof c);
    c.id = a->id;
    c.tile = a->n_tiles ? a->tiles[0] : 0;
    c.stages = a->n_stages ? a->stages[0] : 0;
    c.cluster = a->n_clusters ? a->clusters[0] : 0;
    c.split_k = 1;
    return c;
}

enum fc_class fc_problem_class(const struct fc_problem *p)
{
    if (p->m <= 16 || p->n <= 16) return FC_CLASS_SKINNY;
    return (double)p->m * (double)p->n * (double)p->k >= (double)(1u << 21) ? FC_CLASS_LARGE
                                                                            : FC_CLASS_SMALL;
}

/* 3 µs launch + the flops at a nominal 1 TFLOP/s scaled by the algorithm's
 * speed for the problem's class and by the configuration's knobs; split-K
 * helps skinny problems and costs a 1 µs reduction pass. */
double fc_cost_us(const struct fc_algo_info *a, const struct fc_config *c,
                  const struct fc_problem *p)
{
    enum fc_class cls = fc_problem_class(p);
    double work = 2.0 * (double)p->m * (double)p->n * (double)p->k * (double)p->batch / 1e6;
    double eff = a->speed[cls] > 0 ? a->speed[cls] : 1.0, extra = 0;
    for (int i = 0; i < a->n_tiles; i++) /* tile 0: undefined, the first */
        if ((a->tiles[i] == c->tile || (c->tile == 0 && i == 0)) && a->tile_speed[i] > 0)
            eff *= a->tile_speed[i];
    if (c->split_k > 1) {
        double s = log2((double)c->split_k);
        eff *= cls == FC_CLASS_SKINNY ? 1.0 + a->split_k_gain * s : fmax(0.2, 1.0 - 0.05 * s);
        extra = 1.0;
    }
    if (c->swizzle && cls == FC_CLASS_LARGE) eff *= 1.0 + a->swizzle_gain;
    eff *= 1.0 + a->custom_gain * (double)c->custom;
    return 3.0 + extra + work / eff;
}

uint64_t fc_workspace_need(const struct fc_algo_info *a, const struct fc_config *c,
                           const struct fc_problem *p)
{
    uint64_t need = a->workspace_base;
    if (c->split_k > 1 && c->reduction != 1 /* INPLACE reduces in the output */)
        need += a->workspace_split * (uint64_t)c->split_k * (uint64_t)p->m * (uint64_t)p->n *
                (uint64_t)p->batch;
    return need;
}
