/* Probes the fake cuBLASLt for tests/integration/fake_cublas.sh:
 *   lt_probe rank M N K WORKSPACE ALIGN   heuristic list (bf16, TN, bias) for
 *       that workspace limit and pointer alignment, each run once for its time
 *   lt_probe config                       AlgoInit + ConfigSetAttribute read
 *       back, the 64 bytes copied, AlgoCheck accepting / refusing, capabilities
 *   lt_probe planted ID                   runs algorithm ID (f32, 16x16x16) and
 *       says whether the result is correct, wrong or written out of bounds
 *   lt_probe refuse                       what cublasLtMatmul refuses: a
 *       misaligned pointer, a too small workspace, a problem above the limit
 *   lt_probe tune                         heuristic #1 against its split-K and
 *       swizzle variants on a skinny GEMM, by the fake's simulated time
 * Times come from fakecublasLt_last_time_us() (the fake's cost model). */
#include "fakecublas.h"
#include "half_util.h"

#include <cublasLt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cublasStatus_t st_ = (call);                                                               \
        if (st_ != CUBLAS_STATUS_SUCCESS) {                                                        \
            fprintf(stderr, "lt_probe: %s failed: %d\n", #call, (int)st_);                         \
            exit(2);                                                                               \
        }                                                                                          \
    } while (0)

static cublasLtHandle_t lt;

struct problem { /* D[N,M] = W[N,K] x[K,M] (+ bias), PyTorch's F.linear as TN */
    int M, N, K;
    cudaDataType type;
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t la, lb, lc;
    void *a, *b, *c, *bias, *ws;
    size_t ws_size;
};

static void *zalloc(size_t n)
{
    void *p = aligned_alloc(256, (n + 255) / 256 * 256 + 256);
    if (!p) exit(2);
    memset(p, 0, (n + 255) / 256 * 256 + 256);
    return p;
}

static void problem(struct problem *p, int M, int N, int K, cudaDataType type, int bias)
{
    memset(p, 0, sizeof *p);
    p->M = M, p->N = N, p->K = K, p->type = type;
    size_t es = type == CUDA_R_32F ? 4 : 2;
    p->a = zalloc(es * N * K), p->b = zalloc(es * K * M), p->c = zalloc(es * N * M),
    p->bias = zalloc(es * N);
    for (long i = 0; i < (long)N * K; i++)
        type == CUDA_R_32F ? (void)(((float *)p->a)[i] = test_value(1, i))
                           : (void)(((uint16_t *)p->a)[i] = to_bf16(test_value(1, i)));
    for (long i = 0; i < (long)K * M; i++)
        type == CUDA_R_32F ? (void)(((float *)p->b)[i] = test_value(2, i))
                           : (void)(((uint16_t *)p->b)[i] = to_bf16(test_value(2, i)));
    cublasOperation_t ta = CUBLAS_OP_T;
    CHECK(cublasLtMatmulDescCreate(&p->op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    CHECK(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    if (bias) {
        cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_BIAS;
        CHECK(
            cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
        CHECK(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &p->bias,
                                             sizeof p->bias));
    }
    CHECK(cublasLtMatrixLayoutCreate(&p->la, type, K, N, K));
    CHECK(cublasLtMatrixLayoutCreate(&p->lb, type, K, M, K));
    CHECK(cublasLtMatrixLayoutCreate(&p->lc, type, N, M, N));
    p->ws_size = 32u << 20;
    p->ws = malloc(p->ws_size);
}

static void problem_free(struct problem *p)
{
    cublasLtMatrixLayoutDestroy(p->la), cublasLtMatrixLayoutDestroy(p->lb),
        cublasLtMatrixLayoutDestroy(p->lc);
    cublasLtMatmulDescDestroy(p->op);
    free(p->a), free(p->b), free(p->c), free(p->bias), free(p->ws);
}

static cublasStatus_t run(struct problem *p, const cublasLtMatmulAlgo_t *algo, double *us)
{
    float alpha = 1, beta = 0;
    cublasStatus_t st = cublasLtMatmul(lt, p->op, &alpha, p->a, p->la, p->b, p->lb, &beta, p->c,
                                       p->lc, p->c, p->lc, algo, p->ws, p->ws_size, NULL);
    *us = fakecublasLt_last_time_us();
    return st;
}

static int algo_id(const cublasLtMatmulAlgo_t *algo)
{
    int id = -1;
    CHECK(
        cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, NULL));
    return id;
}

static int rank(int M, int N, int K, uint64_t ws, uint32_t align)
{
    struct problem p;
    problem(&p, M, N, K, CUDA_R_16BF, 1);
    cublasLtMatmulPreference_t pref;
    CHECK(cublasLtMatmulPreferenceCreate(&pref));
    CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                               sizeof ws));
    for (int a = CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES;
         a <= CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES; a++)
        CHECK(cublasLtMatmulPreferenceSetAttribute(pref, a, &align, sizeof align));
    cublasLtMatmulHeuristicResult_t res[16];
    int n = 0;
    cublasStatus_t st =
        cublasLtMatmulAlgoGetHeuristic(lt, p.op, p.la, p.lb, p.lc, p.lc, pref, 16, res, &n);
    printf("rank: status %d, %d result(s)\n", (int)st, n);
    for (int i = 0; i < n; i++) {
        double us = 0;
        CHECK(run(&p, &res[i].algo, &us));
        printf("rank %d: id %d workspace %zu time_us %.3f\n", i, algo_id(&res[i].algo),
               res[i].workspaceSize, us);
    }
    cublasLtMatmulPreferenceDestroy(pref);
    problem_free(&p);
    return 0;
}

static void check(struct problem *p, const char *what, const cublasLtMatmulAlgo_t *algo)
{
    cublasLtMatmulHeuristicResult_t r;
    memset(&r, 0, sizeof r);
    cublasStatus_t st = cublasLtMatmulAlgoCheck(lt, p->op, p->la, p->lb, p->lc, p->lc, algo, &r);
    printf("check %s: status %d workspace %zu\n", what, (int)st,
           st == CUBLAS_STATUS_SUCCESS ? r.workspaceSize : 0);
}

static void set_u32(cublasLtMatmulAlgo_t *algo, cublasLtMatmulAlgoConfigAttributes_t attr,
                    uint32_t v)
{
    CHECK(cublasLtMatmulAlgoConfigSetAttribute(algo, attr, &v, sizeof v));
}

static int config(void)
{
    struct problem p;
    problem(&p, 8, 64, 64, CUDA_R_16BF, 1);
    cublasLtMatmulAlgo_t algo;
    CHECK(cublasLtMatmulAlgoInit(lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16BF, CUDA_R_16BF,
                                 CUDA_R_16BF, CUDA_R_16BF, 6, &algo));
    check(&p, "init", &algo);
    int32_t split = 4;
    uint16_t cluster = 0, inner = 3;
    set_u32(&algo, CUBLASLT_ALGO_CONFIG_TILE_ID, 20);
    set_u32(&algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, 12);
    CHECK(cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &split,
                                               sizeof split));
    set_u32(&algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE);
    set_u32(&algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, 1);
    set_u32(&algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, 2);
    CHECK(cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, &inner,
                                               sizeof inner));
    CHECK(cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID,
                                               &cluster, sizeof cluster));
    printf("set id readonly: status %d\n",
           (int)cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_ID, &split,
                                                     sizeof split));
    printf("set wrong size: status %d\n",
           (int)cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &inner,
                                                     sizeof inner));
    /* A tuned configuration kept as its 64 bytes and restored elsewhere. */
    uint64_t saved[8];
    memcpy(saved, &algo, sizeof saved);
    cublasLtMatmulAlgo_t back;
    memcpy(&back, saved, sizeof back);
    static const char *names[] = {"id",     "tile",   "split_k", "reduction", "swizzle",
                                  "custom", "stages", "inner",   "cluster"};
    for (int a = CUBLASLT_ALGO_CONFIG_ID; a <= CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID; a++) {
        uint32_t v = 0;
        size_t written = 0;
        CHECK(cublasLtMatmulAlgoConfigGetAttribute(&back, a, NULL, 0, &written));
        CHECK(cublasLtMatmulAlgoConfigGetAttribute(&back, a, &v, written, &written));
        printf("config %s %u (%zu bytes)\n", names[a], v, written);
    }
    check(&p, "tuned", &back);
    double t1 = 0, t2 = 0;
    CHECK(run(&p, &algo, &t1));
    CHECK(run(&p, &back, &t2));
    printf("copied configuration runs alike: %s\n", t1 == t2 ? "yes" : "no");
    cublasLtMatmulAlgo_t bad = back;
    set_u32(&bad, CUBLASLT_ALGO_CONFIG_TILE_ID, 99);
    check(&p, "tile 99", &bad);
    bad = back;
    set_u32(&bad, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, 4);
    check(&p, "custom 4", &bad);
    bad = back;
    cluster = 2;
    CHECK(cublasLtMatmulAlgoConfigSetAttribute(&bad, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID,
                                               &cluster, sizeof cluster));
    check(&p, "cluster 2", &bad);
    CHECK(cublasLtMatmulAlgoInit(lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16BF, CUDA_R_16BF,
                                 CUDA_R_16BF, CUDA_R_16BF, 21, &bad));
    CHECK(cublasLtMatmulAlgoConfigSetAttribute(&bad, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &split,
                                               sizeof split));
    check(&p, "id 21 split_k 4", &bad);
    printf("init id 5 for bf16: status %d\n",
           (int)cublasLtMatmulAlgoInit(lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16BF, CUDA_R_16BF,
                                       CUDA_R_16BF, CUDA_R_16BF, 5, &bad));
    printf("init id 77: status %d\n",
           (int)cublasLtMatmulAlgoInit(lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16BF, CUDA_R_16BF,
                                       CUDA_R_16BF, CUDA_R_16BF, 77, &bad));
    CHECK(cublasLtMatmulAlgoInit(lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F,
                                 CUDA_R_32F, CUDA_R_32F, 6, &bad));
    check(&p, "f32 algo on bf16", &bad);
    int ids[32], n = 0;
    CHECK(cublasLtMatmulAlgoGetIds(lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16BF, CUDA_R_16BF,
                                   CUDA_R_16BF, CUDA_R_16BF, 32, ids, &n));
    printf("ids:");
    for (int i = 0; i < n; i++) printf(" %d", ids[i]);
    printf("\n");
    for (int id = 0; id < 2; id++) {
        CHECK(cublasLtMatmulAlgoInit(lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16BF, CUDA_R_16BF,
                                     CUDA_R_16BF, CUDA_R_16BF, id ? 66 : 6, &bad));
        uint32_t tiles[16], align = 0;
        int32_t custom = 0, splitk = 0;
        size_t written = 0;
        CHECK(
            cublasLtMatmulAlgoCapGetAttribute(&bad, CUBLASLT_ALGO_CAP_TILE_IDS, NULL, 0, &written));
        CHECK(cublasLtMatmulAlgoCapGetAttribute(&bad, CUBLASLT_ALGO_CAP_TILE_IDS, tiles,
                                                sizeof tiles, &written));
        CHECK(cublasLtMatmulAlgoCapGetAttribute(&bad, CUBLASLT_ALGO_CAP_CUSTOM_OPTION_MAX, &custom,
                                                sizeof custom, NULL));
        CHECK(cublasLtMatmulAlgoCapGetAttribute(&bad, CUBLASLT_ALGO_CAP_SPLITK_SUPPORT, &splitk,
                                                sizeof splitk, NULL));
        CHECK(cublasLtMatmulAlgoCapGetAttribute(&bad, CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_A_BYTES,
                                                &align, sizeof align, NULL));
        printf("caps id %d: tiles", id ? 66 : 6);
        for (size_t i = 0; i < written / 4; i++) printf(" %u", tiles[i]);
        printf("; custom max %d; split-K %d; alignment %u\n", custom, splitk, align);
    }
    problem_free(&p);
    return 0;
}

static int planted(int id)
{
    enum { S = 16 };
    struct problem p;
    problem(&p, S, S, S, CUDA_R_32F, 0);
    float *d = p.c, guard = 12345.0f;
    d[S * S] = guard; /* the element just past D */
    cublasLtMatmulAlgo_t algo;
    CHECK(cublasLtMatmulAlgoInit(lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F,
                                 CUDA_R_32F, CUDA_R_32F, id, &algo));
    double us;
    CHECK(run(&p, &algo, &us));
    const float *w = p.a, *x = p.b;
    double worst = 0;
    int nans = 0;
    for (int j = 0; j < S; j++)
        for (int i = 0; i < S; i++) {
            double ref = 0;
            for (int l = 0; l < S; l++) ref += (double)w[l + i * S] * x[l + j * S];
            double got = d[i + j * S], err = fabs(got - ref) / (1.0 + fabs(ref));
            if (got != got)
                nans++;
            else if (err > worst)
                worst = err;
        }
    if (d[S * S] != guard)
        printf("planted %d: out of bounds\n", id);
    else if (nans || worst > 1e-4)
        printf("planted %d: wrong (max relative error %.3g, %d NaN)\n", id, worst, nans);
    else
        printf("planted %d: correct\n", id);
    problem_free(&p);
    return 0;
}

static int refuse(void)
{
    struct problem p;
    problem(&p, 8, 64, 64, CUDA_R_16BF, 0);
    cublasLtMatmulAlgo_t algo;
    CHECK(cublasLtMatmulAlgoInit(lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16BF, CUDA_R_16BF,
                                 CUDA_R_16BF, CUDA_R_16BF, 66,
                                 &algo)); /* needs 16-byte alignment */
    float alpha = 1, beta = 0;
    const char *a2 = (const char *)p.a + 2;
    printf("refuse misaligned A: status %d\n",
           (int)cublasLtMatmul(lt, p.op, &alpha, a2, p.la, p.b, p.lb, &beta, p.c, p.lc, p.c, p.lc,
                               &algo, p.ws, p.ws_size, NULL));
    int32_t split = 2;
    CHECK(cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &split,
                                               sizeof split));
    printf("refuse small workspace: status %d\n",
           (int)cublasLtMatmul(lt, p.op, &alpha, p.a, p.la, p.b, p.lb, &beta, p.c, p.lc, p.c, p.lc,
                               &algo, p.ws, 16, NULL));
    printf("accept aligned: status %d\n",
           (int)cublasLtMatmul(lt, p.op, &alpha, p.a, p.la, p.b, p.lb, &beta, p.c, p.lc, p.c, p.lc,
                               &algo, p.ws, p.ws_size, NULL));
    problem_free(&p);
    problem(&p, 1024, 1024, 128, CUDA_R_16BF, 0);
    printf("refuse above the size limit: status %d\n",
           (int)cublasLtMatmul(lt, p.op, &alpha, p.a, p.la, p.b, p.lb, &beta, p.c, p.lc, p.c, p.lc,
                               NULL, p.ws, p.ws_size, NULL));
    problem_free(&p);
    return 0;
}

static int tune(void)
{
    struct problem p;
    problem(&p, 2, 512, 4096, CUDA_R_16BF, 0);
    cublasLtMatmulPreference_t pref;
    uint64_t ws = p.ws_size;
    CHECK(cublasLtMatmulPreferenceCreate(&pref));
    CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                               sizeof ws));
    cublasLtMatmulHeuristicResult_t res[8];
    int n = 0;
    CHECK(cublasLtMatmulAlgoGetHeuristic(lt, p.op, p.la, p.lb, p.lc, p.lc, pref, 8, res, &n));
    double first = 0, best = 1e30;
    CHECK(run(&p, &res[0].algo, &first));
    int best_id = -1, best_split = 0, best_swz = 0, tried = 0;
    static const int32_t splits[] = {1, 2, 4, 8};
    for (int i = 0; i < n; i++)
        for (int s = 0; s < 4; s++)
            for (uint32_t swz = 0; swz < 2; swz++) {
                cublasLtMatmulAlgo_t a = res[i].algo;
                cublasLtMatmulHeuristicResult_t r;
                CHECK(cublasLtMatmulAlgoConfigSetAttribute(&a, CUBLASLT_ALGO_CONFIG_SPLITK_NUM,
                                                           &splits[s], sizeof splits[s]));
                set_u32(&a, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, swz);
                if (cublasLtMatmulAlgoCheck(lt, p.op, p.la, p.lb, p.lc, p.lc, &a, &r) !=
                        CUBLAS_STATUS_SUCCESS ||
                    r.workspaceSize > ws)
                    continue;
                double us;
                CHECK(run(&p, &a, &us));
                tried++;
                if (us < best)
                    best = us, best_id = algo_id(&a), best_split = splits[s], best_swz = (int)swz;
            }
    printf("tune: heuristic #1 id %d time_us %.3f; best of %d: id %d split_k %d swizzle %d time_us "
           "%.3f\n",
           algo_id(&res[0].algo), first, tried, best_id, best_split, best_swz, best);
    printf("tune: %s\n", best < first ? "faster configuration found" : "heuristic #1 is best");
    cublasLtMatmulPreferenceDestroy(pref);
    problem_free(&p);
    return 0;
}

int main(int argc, char **argv)
{
    CHECK(cublasLtCreate(&lt));
    int rc = 2;
    if (argc == 7 && strcmp(argv[1], "rank") == 0)
        rc = rank(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), strtoull(argv[5], NULL, 10),
                  (uint32_t)strtoul(argv[6], NULL, 10));
    else if (argc == 2 && strcmp(argv[1], "config") == 0)
        rc = config();
    else if (argc == 3 && strcmp(argv[1], "planted") == 0)
        rc = planted(atoi(argv[2]));
    else if (argc == 2 && strcmp(argv[1], "refuse") == 0)
        rc = refuse();
    else if (argc == 2 && strcmp(argv[1], "tune") == 0)
        rc = tune();
    else
        fprintf(
            stderr,
            "usage: lt_probe rank M N K WORKSPACE ALIGN | config | planted ID | refuse | tune\n");
    CHECK(cublasLtDestroy(lt));
    return rc;
}
