/* A GEMM call's operator (launch/libcall.h: first sight, capture of its job)
 * and the algorithm rebuilt from the operator's bank policy: once per key and
 * policy, with cublasLtMatmulAlgoInit + AlgoConfigSetAttribute, checked with
 * cublasLtMatmulAlgoCheck against the call's descriptors, the caller's
 * workspace limit, the pointers' alignment classes and the reduction mask.
 * A refusal is said once per record; the library's own choice runs, as it
 * does, silently, for a record in the library-default form. */
#include "hooks/cublas_internal.h"

#include "core/log.h"
#include "hooks/cuda_job_device.h"
#include "preload/reclaim.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

aoe_libcall_sight aoe_cb_sight;

static const char *type_name(int32_t t)
{
    switch (t) {
    case CUDA_R_32F:
        return "f32";
    case CUDA_R_16F:
        return "f16";
    case CUDA_R_16BF:
        return "bf16";
    case CUDA_R_64F:
        return "f64";
    case CUDA_R_8F_E4M3:
        return "e4m3";
    case CUDA_R_8F_E5M2:
        return "e5m2";
    default:
        return "other";
    }
}

static char trans_char(uint8_t t)
{
    return t == CUBLAS_OP_N ? 'N' : t == CUBLAS_OP_T ? 'T' : 'C';
}

void aoe_cb_op_name(const aoe_gemm_desc *g, char *out, size_t len)
{
    char batch[32] = "";
    if (g->batch_count > 1)
        snprintf(batch, sizeof batch, " x%llu", (unsigned long long)g->batch_count);
    snprintf(out, len, "gemm %s %s %c%c %llux%llux%llu%s",
             g->path == AOE_GEMM_PATH_LT ? "lt" : "blas", type_name(g->a_type),
             trans_char(g->transa), trans_char(g->transb), (unsigned long long)g->m,
             (unsigned long long)g->n, (unsigned long long)g->k, batch);
}

/* The last keys this thread computed: a description compared byte for byte
 * (built from a zeroed one, so padding compares too) costs far less than
 * hashing it again (aoe_gemm_key streams every field through XXH3). */
#define KEY_CACHE 4
static __thread struct {
    unsigned next;
    struct {
        const char *fp;
        aoe_gemm_desc g;
        aoe_key key;
    } e[KEY_CACHE];
} t_keys __attribute__((tls_model("initial-exec")));

aoe_key aoe_cb_key(const char *fingerprint, const aoe_gemm_desc *g)
{
    for (unsigned i = 0; i < KEY_CACHE; i++)
        if (t_keys.e[i].fp == fingerprint && !memcmp(&t_keys.e[i].g, g, sizeof *g))
            return t_keys.e[i].key;
    unsigned i = t_keys.next++ % KEY_CACHE;
    t_keys.e[i].fp = fingerprint; /* interned: one pointer per device */
    t_keys.e[i].g = *g;
    t_keys.e[i].key = aoe_gemm_key(fingerprint, g);
    return t_keys.e[i].key;
}

static int make_job(const aoe_libcall_desc *d, aoe_job *job)
{
    char dir[PATH_MAX];
    if (aoe_gemm_job_make(job, d->fingerprint, (const aoe_gemm_desc *)d->ctx,
                          aoe_cb_lib_dir(dir) ? NULL : dir))
        return -1;
    if (aoe_cu_job_device_add_text(&job->runtime_extra, d->fingerprint)) {
        aoe_job_free(job);
        return -1;
    }
    return 0;
}

static atomic_int g_said_bad_desc;

aoe_op *aoe_cb_operator(const aoe_cb_call *c, const char *fingerprint, const aoe_key *key)
{
    aoe_op *op = aoe_op_find(key);
    if (__builtin_expect(op != NULL, 1)) return op;
    char err[256], name[AOE_KERNEL_NAME_LEN];
    if (aoe_gemm_desc_check(&c->g, err, sizeof err)) {
        aoe_shim_log_once(&g_said_bad_desc, AOE_LOG_DEBUG,
                          "a GEMM AOE cannot describe passes through: %s", err);
        return NULL;
    }
    if (aoe_cb_recheck_libraries()) return NULL;
    aoe_cb_op_name(&c->g, name, sizeof name);
    aoe_libcall_desc d = {fingerprint, name, *key, make_job, &c->g};
    return aoe_libcall_resolve(&aoe_cb_sight, &d);
}

/* ---- the rebuilt algorithm ---- */

static int set_config(cublasLtMatmulAlgo_t *algo, const aoe_gemm_algo *cfg)
{
    cublasStatus_t (*set)(cublasLtMatmulAlgo_t *, cublasLtMatmulAlgoConfigAttributes_t,
                          const void *, size_t) = CB_REAL(cublasLtMatmulAlgoConfigSetAttribute);
    uint32_t u32[] = {cfg->tile, cfg->stages, cfg->reduction, cfg->swizzle, cfg->custom};
    cublasLtMatmulAlgoConfigAttributes_t a32[] = {
        CUBLASLT_ALGO_CONFIG_TILE_ID, CUBLASLT_ALGO_CONFIG_STAGES_ID,
        CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING,
        CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION};
    if (!set) return -1;
    for (size_t i = 0; i < sizeof u32 / sizeof u32[0]; i++)
        if (set(algo, a32[i], &u32[i], sizeof u32[i]) != CUBLAS_STATUS_SUCCESS) return -1;
    if (set(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &cfg->splitk, sizeof cfg->splitk) !=
        CUBLAS_STATUS_SUCCESS)
        return -1;
    /* Default 0 ("undefined", "auto"): set only when stored, so a library
     * that lacks the attribute still takes a configuration without it. */
    if (cfg->inner_shape && set(algo, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, &cfg->inner_shape,
                                sizeof cfg->inner_shape) != CUBLAS_STATUS_SUCCESS)
        return -1;
    if (cfg->cluster_shape && set(algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &cfg->cluster_shape,
                                  sizeof cfg->cluster_shape) != CUBLAS_STATUS_SUCCESS)
        return -1;
    return 0;
}

/* The descriptors of a cuBLAS call as cuBLASLt takes them (column-major,
 * C and D one layout). 0, or -1 (none left behind). */
static int blas_descriptors(const aoe_gemm_desc *g, aoe_cb_built *b)
{
    __typeof__(&cublasLtMatrixLayoutSetAttribute) lset = CB_REAL(cublasLtMatrixLayoutSetAttribute);
    __typeof__(&cublasLtMatmulDescSetAttribute) dset = CB_REAL(cublasLtMatmulDescSetAttribute);
    if (!lset || !dset || !CB_REAL(cublasLtMatrixLayoutCreate) ||
        !CB_REAL(cublasLtMatmulDescCreate))
        return -1;
    int32_t ta = g->transa, tb = g->transb, pm = g->pointer_mode, sm = (int32_t)g->sm_count_target;
    int ok =
        CB_REAL(cublasLtMatmulDescCreate)(&b->op_desc, (cublasComputeType_t)g->compute_type,
                                          (cudaDataType_t)g->scale_type) == CUBLAS_STATUS_SUCCESS;
    if (!ok) return -1;
    ok = dset(b->op_desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta) == 0 &&
         dset(b->op_desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb) == 0 &&
         dset(b->op_desc, CUBLASLT_MATMUL_DESC_POINTER_MODE, &pm, sizeof pm) == 0 &&
         (!sm || dset(b->op_desc, CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET, &sm, sizeof sm) == 0);
    uint64_t ar = g->transa == CUBLAS_OP_N ? g->m : g->k,
             ac = g->transa == CUBLAS_OP_N ? g->k : g->m;
    uint64_t br = g->transb == CUBLAS_OP_N ? g->k : g->n,
             bc = g->transb == CUBLAS_OP_N ? g->n : g->k;
    cublasLtMatrixLayout_t *lay[3] = {&b->la, &b->lb, &b->lc};
    uint64_t rows[3] = {ar, br, g->m}, cols[3] = {ac, bc, g->n}, lds[3] = {g->lda, g->ldb, g->ldc};
    int32_t types[3] = {g->a_type, g->b_type, g->c_type};
    int64_t strides[3] = {(int64_t)g->stride_a, (int64_t)g->stride_b, (int64_t)g->stride_c};
    int32_t batch = (int32_t)g->batch_count;
    for (int i = 0; ok && i < 3; i++) {
        ok = CB_REAL(cublasLtMatrixLayoutCreate)(lay[i], (cudaDataType_t)types[i], rows[i], cols[i],
                                                 (int64_t)lds[i]) == CUBLAS_STATUS_SUCCESS;
        if (ok && batch > 1)
            ok = lset(*lay[i], CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch) == 0 &&
                 lset(*lay[i], CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &strides[i],
                      sizeof strides[i]) == 0;
    }
    if (ok) return 0;
    for (int i = 0; i < 3; i++)
        if (*lay[i]) CB_REAL(cublasLtMatrixLayoutDestroy)(*lay[i]);
    if (b->op_desc) CB_REAL(cublasLtMatmulDescDestroy)(b->op_desc);
    b->op_desc = NULL, b->la = b->lb = b->lc = NULL;
    return -1;
}

static void free_built(aoe_cb_built *b)
{
    if (b->op_desc) {
        CB_REAL(cublasLtMatrixLayoutDestroy)(b->la);
        CB_REAL(cublasLtMatrixLayoutDestroy)(b->lb);
        CB_REAL(cublasLtMatrixLayoutDestroy)(b->lc);
        CB_REAL(cublasLtMatmulDescDestroy)(b->op_desc);
    }
    free(b);
}

/* 0 when the configuration runs this call within the caller's limits;
 * otherwise -1 with the reason. */
static int verify(aoe_cb_built *b, const aoe_cb_call *c, char *why, size_t len)
{
    const aoe_gemm_desc *g = &c->g;
    const aoe_gemm_algo *cfg = &b->config;
    if (!CB_REAL(cublasLtMatmulAlgoInit) || !CB_REAL(cublasLtMatmulAlgoCheck) ||
        !CB_REAL(cublasLtMatmulAlgoCapGetAttribute)) {
        snprintf(why, len, "the cuBLASLt in this process lacks AlgoInit/AlgoCheck");
        return -1;
    }
    cublasStatus_t st = CB_REAL(cublasLtMatmulAlgoInit)(
        c->lt, (cublasComputeType_t)g->compute_type, (cudaDataType_t)g->scale_type,
        (cudaDataType_t)g->a_type, (cudaDataType_t)g->b_type, (cudaDataType_t)g->c_type,
        (cudaDataType_t)g->d_type, cfg->algo, &b->algo);
    if (st != CUBLAS_STATUS_SUCCESS) {
        snprintf(why, len, "cublasLtMatmulAlgoInit(id %d) failed (status %d)", cfg->algo, (int)st);
        return -1;
    }
    if (set_config(&b->algo, cfg)) {
        snprintf(why, len, "the library does not take the stored configuration of id %d",
                 cfg->algo);
        return -1;
    }
    if (g->path == AOE_GEMM_PATH_BLAS && blas_descriptors(g, b)) {
        snprintf(why, len, "cuBLASLt descriptors for the rerouted call could not be made");
        return -1;
    }
    cublasLtMatmulDesc_t od = b->op_desc ? b->op_desc : c->op_desc;
    cublasLtMatrixLayout_t la = b->op_desc ? b->la : c->la, lb = b->op_desc ? b->lb : c->lb,
                           lc = b->op_desc ? b->lc : c->lc, ld = b->op_desc ? b->lc : c->ld;
    cublasLtMatmulHeuristicResult_t res;
    memset(&res, 0, sizeof res);
    st = CB_REAL(cublasLtMatmulAlgoCheck)(c->lt, od, la, lb, lc, ld, &b->algo, &res);
    if (st != CUBLAS_STATUS_SUCCESS) {
        snprintf(why, len, "cublasLtMatmulAlgoCheck refused it (status %d)", (int)st);
        return -1;
    }
    b->workspace = res.workspaceSize;
    b->waves = res.wavesCount;
    if (res.workspaceSize > g->workspace_limit) {
        snprintf(why, len, "it needs %zu bytes of workspace, the caller allows %llu",
                 res.workspaceSize, (unsigned long long)g->workspace_limit);
        return -1;
    }
    const cublasLtMatmulAlgoCapAttributes_t caps[4] = {
        CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_A_BYTES, CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_B_BYTES,
        CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_C_BYTES, CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_D_BYTES};
    const uint16_t have[4] = {g->align_a, g->align_b, g->align_c, g->align_d};
    for (int i = 0; i < 4; i++) {
        uint32_t need = 0;
        size_t written = 0;
        if (CB_REAL(cublasLtMatmulAlgoCapGetAttribute)(&b->algo, caps[i], &need, sizeof need,
                                                       &written) != CUBLAS_STATUS_SUCCESS)
            continue; /* an older library: AlgoCheck decided */
        if (need > have[i]) {
            snprintf(why, len, "it needs %u-byte alignment of %c, the caller guarantees %u", need,
                     "ABCD"[i], have[i]);
            return -1;
        }
    }
    if (cfg->splitk > 1 && !(cfg->reduction & g->reduction_mask)) {
        snprintf(why, len, "its split-K reduction scheme %u is outside the caller's mask %u",
                 cfg->reduction, g->reduction_mask);
        return -1;
    }
    return 0;
}

const aoe_cb_built *aoe_cb_built_for(aoe_op *op, const aoe_policy_entry *p, const aoe_cb_call *c)
{
    aoe_cb_built *cur = atomic_load_explicit(&op->hook_data, memory_order_acquire);
    if (__builtin_expect(cur && cur->serial == p->serial, 1)) return cur->ok ? cur : NULL;
    /* Slow path: once per operator and policy (a racing thread's copy is dropped). */
    aoe_cb_built *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    b->serial = p->serial;
    char why[320] = "", err[256];
    /* The tuner found the library's own choice best (store/gemm_algo.h): a
     * hit that changes nothing, said at debug level only. */
    int library_default = aoe_gemm_policy_is_library_default(&p->rec.policy);
    if (library_default)
        snprintf(why, sizeof why, "the library's own choice is the best known");
    else if (aoe_gemm_algo_from_policy(&p->rec.policy, &b->config, err, sizeof err))
        snprintf(why, sizeof why, "not a GEMM algorithm: %s", err);
    else if (!c->lt)
        snprintf(why, sizeof why, "no cuBLASLt handle");
    else if (verify(b, c, why, sizeof why) == 0)
        b->ok = 1;
    if (!atomic_compare_exchange_strong_explicit(&op->hook_data, (void **)&cur, b,
                                                 memory_order_acq_rel, memory_order_acquire)) {
        free_built(b);
        return cur && cur->serial == p->serial && cur->ok ? cur : NULL;
    }
    if (cur) aoe_retire(cur); /* its descriptors stay: a call may still hold them */
    if (b->ok)
        AOE_DEBUG("%s: tuned algorithm id %d (tile %u, split-K %d) verified, workspace %zu",
                  op->kernel_name, b->config.algo, b->config.tile, b->config.splitk, b->workspace);
    else if (library_default)
        AOE_DEBUG("%s: %s; the call passes through", op->kernel_name, why);
    else
        AOE_WARN("bank algorithm for %s refused: %s; the library's own choice runs",
                 op->kernel_name, why);
    return b->ok ? b : NULL;
}
