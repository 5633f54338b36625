/* Packing the configuration into the opaque descriptor and checking it
 * against the catalogue's capabilities. */
#include "fc_algo.h"

#include <string.h>

void fc_algo_pack(cublasLtMatmulAlgo_t *algo, const struct fc_config *c,
                  const struct fc_algo_types *t)
{
    memset(algo, 0, sizeof *algo);
    algo->data[0] = (uint64_t)FC_ALGO_MAGIC << 32 | (uint32_t)c->id;
    algo->data[1] = (uint64_t)c->stages << 32 | c->tile;
    algo->data[2] = (uint64_t)c->reduction << 32 | (uint32_t)c->split_k;
    algo->data[3] = (uint64_t)c->custom << 32 | c->swizzle;
    algo->data[4] = (uint64_t)c->cluster << 16 | c->inner_shape;
    algo->data[5] = (uint64_t)(uint16_t)t->d << 48 | (uint64_t)(uint16_t)t->c << 32 |
                    (uint64_t)(uint16_t)t->b << 16 | (uint16_t)t->a;
    algo->data[6] = (uint64_t)(uint32_t)t->scale << 32 | (uint32_t)t->compute;
}

int fc_algo_unpack(const cublasLtMatmulAlgo_t *algo, struct fc_config *c, struct fc_algo_types *t)
{
    if (!algo || algo->data[0] >> 32 != FC_ALGO_MAGIC) return -1;
    c->id = (int32_t)(uint32_t)algo->data[0];
    c->tile = (uint32_t)algo->data[1];
    c->stages = (uint32_t)(algo->data[1] >> 32);
    c->split_k = (int32_t)(uint32_t)algo->data[2];
    c->reduction = (uint32_t)(algo->data[2] >> 32);
    c->swizzle = (uint32_t)algo->data[3];
    c->custom = (uint32_t)(algo->data[3] >> 32);
    c->inner_shape = (uint16_t)algo->data[4];
    c->cluster = (uint16_t)(algo->data[4] >> 16);
    if (t) {
        t->a = (int16_t)algo->data[5], t->b = (int16_t)(algo->data[5] >> 16);
        t->c = (int16_t)(algo->data[5] >> 32), t->d = (int16_t)(algo->data[5] >> 48);
        t->compute = (int32_t)(uint32_t)algo->data[6], t->scale = (int32_t)(algo->data[6] >> 32);
    }
    return 0;
}

static int in_list(const uint32_t *list, int n, uint32_t v)
{
    for (int i = 0; i < n; i++)
        if (list[i] == v) return 1;
    return 0;
}

cublasStatus_t fc_config_valid(const struct fc_algo_info *a, const struct fc_config *c)
{
    int cluster_ok = c->cluster == 0 && a->n_clusters == 0;
    for (int i = 0; i < a->n_clusters; i++) cluster_ok |= a->clusters[i] == c->cluster;
    /* tile and stages 0 (UNDEFINED, as AlgoInit leaves them): the algorithm's first */
    int ok = (c->tile == 0 || a->n_tiles == 0 || in_list(a->tiles, a->n_tiles, c->tile)) &&
             (c->stages == 0 || a->n_stages == 0 || in_list(a->stages, a->n_stages, c->stages)) &&
             cluster_ok && c->split_k >= 1 && (c->split_k == 1 || a->split_k) &&
             (c->split_k == 1 || c->reduction == 0 ||
              (c->reduction & a->reduction_mask) == c->reduction) &&
             c->swizzle <= a->swizzle && (int64_t)c->custom <= a->custom_option_max;
    return ok ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_SUPPORTED;
}
