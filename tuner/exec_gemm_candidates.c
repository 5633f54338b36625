/* Candidate enumeration for the GEMM executor (exec_gemm_candidates.h). */
#include "tuner/exec_gemm_candidates.h"

#include <string.h>

int aoe_gemm_algo_same(const aoe_gemm_algo *a, const aoe_gemm_algo *b)
{
    return a->algo == b->algo && a->tile == b->tile && a->stages == b->stages &&
           a->splitk == b->splitk && a->reduction == b->reduction && a->swizzle == b->swizzle &&
           a->custom == b->custom && a->inner_shape == b->inner_shape &&
           a->cluster_shape == b->cluster_shape;
}

typedef struct {
    int32_t split;
    uint32_t reduction;
} split_opt;

/* The split-K options of one algorithm: (1, none), then each split with each
 * allowed reduction scheme. Returns the count. */
static size_t split_options(const aoe_gemm_caps *c, uint32_t job_mask, split_opt *out)
{
    static const int32_t splits[] = AOE_GEMM_SPLITS;
    size_t n = 0;
    out[n++] = (split_opt){1, 0};
    if (!c->splitk) return n;
    for (size_t s = 1; s < sizeof splits / sizeof *splits; s++)
        for (uint32_t r = 1; r <= 4; r <<= 1)
            if (c->reduction_mask & job_mask & r) out[n++] = (split_opt){splits[s], r};
    return n;
}

/* The index-th configuration of algorithm c, or 0 when index is past its last. */
static int nth_config(const aoe_gemm_caps *c, uint32_t job_mask, size_t index, aoe_gemm_algo *a)
{
    split_opt so[1 + 5 * 3];
    size_t nsplit = split_options(c, job_mask, so);
    size_t ntile = c->ntiles ? c->ntiles : 1, nstage = c->nstages ? c->nstages : 1;
    size_t nswz = c->swizzle ? 2 : 1;
    size_t ncustom =
        (c->custom_max < AOE_GEMM_CUSTOM_MAX ? c->custom_max : AOE_GEMM_CUSTOM_MAX) + 1;
    size_t dims[] = {nsplit, ntile, nswz, ncustom, nstage}, digit[5];
    for (size_t d = 0; d < 5; d++) {
        digit[d] = index % dims[d];
        index /= dims[d];
    }
    if (index) return 0;
    aoe_gemm_algo_init(a);
    a->algo = c->id;
    a->splitk = so[digit[0]].split;
    a->reduction = so[digit[0]].reduction;
    a->tile = c->ntiles ? c->tiles[digit[1]] : 0;
    a->swizzle = (uint32_t)digit[2];
    a->custom = (uint32_t)digit[3];
    a->stages = c->nstages ? c->stages[digit[4]] : 0;
    return 1;
}

/* Appends a after checking it; 1 when kept. */
static int add(aoe_gemm_algo *a, aoe_gemm_check_fn check, void *ctx, aoe_gemm_algo *out, size_t *n,
               aoe_gemm_cand_stats *st)
{
    for (size_t i = 0; i < *n; i++)
        if (aoe_gemm_algo_same(&out[i], a)) {
            st->duplicate++;
            return 0;
        }
    if (check(ctx, a)) {
        st->refused++;
        return 0;
    }
    out[(*n)++] = *a;
    return 1;
}

size_t aoe_gemm_candidates(const aoe_gemm_algo *heur, size_t nheur, const aoe_gemm_caps *caps,
                           size_t ncaps, uint32_t job_reduction_mask, aoe_gemm_check_fn check,
                           void *ctx, aoe_gemm_algo *out, size_t max, aoe_gemm_cand_stats *st)
{
    aoe_gemm_cand_stats dummy;
    if (!st) st = &dummy;
    memset(st, 0, sizeof *st);
    size_t n = 0, checks = 0;
    for (size_t i = 0; i < nheur && n < max && checks < AOE_GEMM_MAX_CHECKS; i++, checks++) {
        aoe_gemm_algo a = heur[i];
        st->heuristic += (size_t)add(&a, check, ctx, out, &n, st);
    }
    if (ncaps > AOE_GEMM_MAX_IDS) ncaps = AOE_GEMM_MAX_IDS;
    uint8_t done[AOE_GEMM_MAX_IDS] = {0};
    size_t live = ncaps;
    for (size_t index = 0; live && n < max && st->built < AOE_GEMM_MAX_BUILT; index++)
        for (size_t c = 0; c < ncaps && n < max && st->built < AOE_GEMM_MAX_BUILT; c++) {
            aoe_gemm_algo a;
            if (done[c]) continue;
            if (checks >= AOE_GEMM_MAX_CHECKS) return n;
            if (!nth_config(&caps[c], job_reduction_mask, index, &a)) {
                done[c] = 1, live--;
                continue;
            }
            checks++;
            st->built += (size_t)add(&a, check, ctx, out, &n, st);
        }
    return n;
}
