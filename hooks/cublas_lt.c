/* cuBLASLt: cublasLtMatmulAlgoGetHeuristic (PyTorch asks it for one
 * algorithm before every cuBLASLt matmul: Linear with bias, _scaled_mm) and
 * cublasLtMatmul. The heuristic's call is described (aoe_gemm_desc, read
 * from the descriptors through the library's own GetAttribute functions),
 * keyed and looked up: on a verified bank hit the tuned algorithm is the one
 * result and the real heuristic is not called; otherwise the real heuristic
 * answers and the first sight of a key captures its job. cublasLtMatmul is
 * never changed: a call with an algorithm the heuristic did not just hand
 * this thread is counted (the program chose it itself). */
#include "hooks/cublas_internal.h"

#include "core/log.h"
#include "preload/reclaim.h"

#include <string.h>

atomic_ullong aoe_cb_own_algo_calls;
static atomic_int g_said_own, g_said_blocks;

/* The algorithms the heuristic last handed this thread (hit or not). */
#define REMEMBERED 4
static __thread struct {
    int n;
    cublasLtMatmulAlgo_t algo[REMEMBERED];
} t_given __attribute__((tls_model("initial-exec")));

static void remember(const cublasLtMatmulHeuristicResult_t *r, int n)
{
    t_given.n = n < REMEMBERED ? n : REMEMBERED;
    for (int i = 0; i < t_given.n; i++) t_given.algo[i] = r[i].algo;
}

static int given(const cublasLtMatmulAlgo_t *a)
{
    for (int i = 0; i < t_given.n; i++)
        if (!memcmp(&t_given.algo[i], a, sizeof *a)) return 1;
    return 0;
}

/* Attribute readers: 0, or -1 when the library refuses (the call then
 * passes through). */
#define GETTER(name, type, attr_t, fn)                                                             \
    static int name(type obj, attr_t attr, void *v, size_t size)                                   \
    {                                                                                              \
        size_t written = 0;                                                                        \
        return CB_REAL(fn)(obj, attr, v, size, &written) == CUBLAS_STATUS_SUCCESS ? 0 : -1;        \
    }
GETTER(desc_get, cublasLtMatmulDesc_t, cublasLtMatmulDescAttributes_t,
       cublasLtMatmulDescGetAttribute)
GETTER(layout_get, cublasLtMatrixLayout_t, cublasLtMatrixLayoutAttribute_t,
       cublasLtMatrixLayoutGetAttribute)
GETTER(pref_get, cublasLtMatmulPreference_t, cublasLtMatmulPreferenceAttributes_t,
       cublasLtMatmulPreferenceGetAttribute)

typedef struct {
    uint32_t type;
    int32_t order, batch;
    uint64_t rows, cols;
    int64_t ld, stride;
} layout;

static int read_layout(cublasLtMatrixLayout_t l, layout *o)
{
    o->order = CUBLASLT_ORDER_COL, o->batch = 1, o->stride = 0;
    if (!l || layout_get(l, CUBLASLT_MATRIX_LAYOUT_TYPE, &o->type, sizeof o->type) ||
        layout_get(l, CUBLASLT_MATRIX_LAYOUT_ROWS, &o->rows, sizeof o->rows) ||
        layout_get(l, CUBLASLT_MATRIX_LAYOUT_COLS, &o->cols, sizeof o->cols) ||
        layout_get(l, CUBLASLT_MATRIX_LAYOUT_LD, &o->ld, sizeof o->ld))
        return -1;
    /* Optional ones keep their defaults when the library does not know them. */
    layout_get(l, CUBLASLT_MATRIX_LAYOUT_ORDER, &o->order, sizeof o->order);
    layout_get(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &o->batch, sizeof o->batch);
    if (o->batch > 1)
        layout_get(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &o->stride, sizeof o->stride);
    return o->order == CUBLASLT_ORDER_COL && o->ld >= 0 && o->stride >= 0 && o->batch >= 1 ? 0 : -1;
}

/* Block or vector scaling (FP8 and FP4 recipes: a scale per 128x128 block,
 * per row, per 32 or 16 elements) changes which kernels may run, and the
 * tuner replays scalar scales only: such a GEMM is not described (the key
 * would not tell it from a scalar-scaled one). A library without the
 * attributes (before 12.8) answers an error: scalars. */
static int scaled_by_blocks(cublasLtMatmulDesc_t desc)
{
#if CUBLAS_VER_MAJOR > 12 || (CUBLAS_VER_MAJOR == 12 && CUBLAS_VER_MINOR >= 8)
    static const cublasLtMatmulDescAttributes_t modes[] = {
        CUBLASLT_MATMUL_DESC_A_SCALE_MODE,
        CUBLASLT_MATMUL_DESC_B_SCALE_MODE,
        CUBLASLT_MATMUL_DESC_C_SCALE_MODE,
        CUBLASLT_MATMUL_DESC_D_SCALE_MODE,
        CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_MODE,
        CUBLASLT_MATMUL_DESC_D_OUT_SCALE_MODE};
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++) {
        int32_t m = CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
        if (!desc_get(desc, modes[i], &m, sizeof m) &&
            m != CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F) {
            aoe_shim_log_once(&g_said_blocks, AOE_LOG_INFO,
                              "a cuBLASLt GEMM scaled by blocks or vectors (scale mode %d): such "
                              "GEMMs run as the program asked, untuned",
                              (int)m);
            return 1;
        }
    }
#else
    (void)desc;
#endif
    return 0;
}

/* The call the heuristic is asked about, as a description: -1 for what AOE
 * does not describe (row-major or other orders, TRANSC, unreadable
 * attributes): it passes through. */
static int describe(aoe_gemm_desc *g, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t al,
                    cublasLtMatrixLayout_t bl, cublasLtMatrixLayout_t cl, cublasLtMatrixLayout_t dl,
                    cublasLtMatmulPreference_t pref)
{
    if (!CB_REAL(cublasLtMatmulDescGetAttribute) || !CB_REAL(cublasLtMatrixLayoutGetAttribute) ||
        !CB_REAL(cublasLtMatmulPreferenceGetAttribute) || !desc || !pref)
        return -1;
    aoe_gemm_desc_init(g);
    memcpy(g->library, "cublasLt", sizeof "cublasLt");
    g->library_version = aoe_cb_lt_version;
    int32_t compute = 0, scale = 0, pmode = 0, ta = 0, tb = 0, tc = 0, bias_type = -1, sm = 0;
    uint32_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
    int8_t fast = 0;
    const void *bias = NULL, *ascale = NULL;
    if (desc_get(desc, CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, &compute, sizeof compute) ||
        desc_get(desc, CUBLASLT_MATMUL_DESC_SCALE_TYPE, &scale, sizeof scale) ||
        desc_get(desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta) ||
        desc_get(desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb))
        return -1;
    desc_get(desc, CUBLASLT_MATMUL_DESC_POINTER_MODE, &pmode, sizeof pmode);
    desc_get(desc, CUBLASLT_MATMUL_DESC_TRANSC, &tc, sizeof tc);
    desc_get(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue);
    desc_get(desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof bias_type);
    desc_get(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias);
    desc_get(desc, CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET, &sm, sizeof sm);
    desc_get(desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast);
    desc_get(desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &ascale, sizeof ascale);
    /* scaling modes are read only for a scaled GEMM: nothing more per call for the others */
    if (tc != CUBLAS_OP_N || (ascale && scaled_by_blocks(desc))) return -1;
    layout a, b, c, d;
    if (read_layout(al, &a) || read_layout(bl, &b) || read_layout(cl, &c)) return -1;
    if (!dl || dl == cl) /* PyTorch's: one layout for C and D */
        d = c;
    else if (read_layout(dl, &d))
        return -1;
    uint64_t ws = 0;
    uint32_t mask = CUBLASLT_REDUCTION_SCHEME_MASK, align[4] = {256, 256, 256, 256};
    pref_get(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
    pref_get(pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &mask, sizeof mask);
    for (int i = 0; i < 4; i++)
        pref_get(
            pref,
            (cublasLtMatmulPreferenceAttributes_t)(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES + i),
            &align[i], sizeof align[i]);
    g->a_type = (int32_t)a.type, g->b_type = (int32_t)b.type;
    g->c_type = (int32_t)c.type, g->d_type = (int32_t)d.type;
    g->compute_type = compute, g->scale_type = scale;
    g->transa = (uint8_t)ta, g->transb = (uint8_t)tb;
    g->m = d.rows, g->n = d.cols;
    g->k = ta == CUBLAS_OP_N ? a.cols : a.rows;
    g->lda = (uint64_t)a.ld, g->ldb = (uint64_t)b.ld, g->ldc = (uint64_t)c.ld,
    g->ldd = (uint64_t)d.ld;
    g->batch_count = (uint64_t)d.batch;
    if (d.batch > 1)
        g->stride_a = (uint64_t)a.stride, g->stride_b = (uint64_t)b.stride,
        g->stride_c = (uint64_t)c.stride, g->stride_d = (uint64_t)d.stride;
    g->epilogue = epilogue;
    g->bias_type = bias_type;
    g->pointer_mode = (uint8_t)pmode;
    /* The caller's promise (PyTorch passes its pointers' alignments). */
    uint16_t *cls[4] = {&g->align_a, &g->align_b, &g->align_c, &g->align_d};
    for (int i = 0; i < 4; i++) *cls[i] = aoe_gemm_align_class(align[i] ? align[i] : 1);
    if (epilogue & CUBLASLT_EPILOGUE_BIAS) g->align_bias = aoe_gemm_align_class((uintptr_t)bias);
    g->workspace_limit = ws;
    g->reduction_mask = mask;
    g->sm_count_target = sm > 0 ? (uint32_t)sm : 0;
    /* PyTorch passes one layout for C and D (and one buffer, promised to
     * the smaller of the two alignments it names). */
    if (!dl || dl == cl) {
        g->flags |= AOE_GEMM_FLAG_C_IS_D;
        g->align_c = g->align_d = g->align_c < g->align_d ? g->align_c : g->align_d;
    }
    if (fast) g->flags |= AOE_GEMM_FLAG_FAST_ACCUM;
    if (ascale) g->flags |= AOE_GEMM_FLAG_SCALES;
    return 0;
}

cublasStatus_t
aoe_cbw_cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t h, cublasLtMatmulDesc_t desc,
                                       cublasLtMatrixLayout_t al, cublasLtMatrixLayout_t bl,
                                       cublasLtMatrixLayout_t cl, cublasLtMatrixLayout_t dl,
                                       cublasLtMatmulPreference_t pref, int requested,
                                       cublasLtMatmulHeuristicResult_t results[], int *returned)
{
    __typeof__(&cublasLtMatmulAlgoGetHeuristic) real = CB_REAL(cublasLtMatmulAlgoGetHeuristic);
    if (!real) return CUBLAS_STATUS_NOT_INITIALIZED;
    aoe_cb_call c;
    const char *fp;
    if (!aoe_cb_on(AOE_CB_PATH_LT) || requested <= 0 || !results || !returned ||
        !(fp = aoe_cb_lt_fingerprint(h)) || describe(&c.g, desc, al, bl, cl, dl, pref))
        return real(h, desc, al, bl, cl, dl, pref, requested, results, returned);
    c.lt = h, c.op_desc = desc, c.la = al, c.lb = bl, c.lc = cl, c.ld = dl ? dl : cl, c.math = 0;
    aoe_key key = aoe_cb_key(fp, &c.g);
    aoe_op *op = aoe_cb_operator(&c, fp, &key);
    if (op) {
        aoe_rd_node *rd = aoe_rd_begin();
        const aoe_policy_entry *p =
            rd ? atomic_load_explicit(&op->policy, memory_order_acquire) : NULL;
        const aoe_cb_built *b = p ? aoe_cb_built_for(op, p, &c) : NULL;
        atomic_fetch_add_explicit(&op->launches, 1, memory_order_relaxed);
        if (b) {
            memset(&results[0], 0, sizeof results[0]);
            results[0].algo = b->algo;
            results[0].workspaceSize = b->workspace;
            results[0].state = CUBLAS_STATUS_SUCCESS;
            results[0].wavesCount = b->waves;
            *returned = 1;
            atomic_fetch_add_explicit(&op->tuned_launches, 1, memory_order_relaxed);
            aoe_rd_end(rd);
            remember(results, 1);
            return CUBLAS_STATUS_SUCCESS;
        }
        if (rd) aoe_rd_end(rd);
    }
    cublasStatus_t st = real(h, desc, al, bl, cl, dl, pref, requested, results, returned);
    if (st == CUBLAS_STATUS_SUCCESS) remember(results, *returned);
    return st;
}

AOE_CB_ENTRIES("libcublasLt", cublasLtMatmulAlgoGetHeuristic,
               (cublasLtHandle_t h, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t al,
                cublasLtMatrixLayout_t bl, cublasLtMatrixLayout_t cl, cublasLtMatrixLayout_t dl,
                cublasLtMatmulPreference_t pref, int requested,
                cublasLtMatmulHeuristicResult_t results[], int *returned),
               (h, desc, al, bl, cl, dl, pref, requested, results, returned))

cublasStatus_t aoe_cbw_cublasLtMatmul(cublasLtHandle_t h, cublasLtMatmulDesc_t desc,
                                      const void *alpha, const void *A, cublasLtMatrixLayout_t al,
                                      const void *B, cublasLtMatrixLayout_t bl, const void *beta,
                                      const void *C, cublasLtMatrixLayout_t cl, void *D,
                                      cublasLtMatrixLayout_t dl, const cublasLtMatmulAlgo_t *algo,
                                      void *ws, size_t ws_size, cudaStream_t stream)
{
    __typeof__(&cublasLtMatmul) real = CB_REAL(cublasLtMatmul);
    if (!real) return CUBLAS_STATUS_NOT_INITIALIZED;
    /* Observed, never changed: an algorithm the heuristic did not just give
     * this thread was chosen by the program (or by libcublas, in a call the
     * shim does not wrap). */
    if (algo && !aoe_cb_in_blas && !given(algo) && aoe_cb_on(AOE_CB_PATH_LT)) {
        atomic_fetch_add_explicit(&aoe_cb_own_algo_calls, 1, memory_order_relaxed);
        aoe_shim_log_once(&g_said_own, AOE_LOG_DEBUG,
                          "cublasLtMatmul with an algorithm the program chose itself: observed, "
                          "not changed");
    }
    return real(h, desc, alpha, A, al, B, bl, beta, C, cl, D, dl, algo, ws, ws_size, stream);
}
AOE_CB_ENTRIES("libcublasLt", cublasLtMatmul,
               (cublasLtHandle_t h, cublasLtMatmulDesc_t desc, const void *alpha, const void *A,
                cublasLtMatrixLayout_t al, const void *B, cublasLtMatrixLayout_t bl,
                const void *beta, const void *C, cublasLtMatrixLayout_t cl, void *D,
                cublasLtMatrixLayout_t dl, const cublasLtMatmulAlgo_t *algo, void *ws,
                size_t ws_size, cudaStream_t stream),
               (h, desc, alpha, A, al, B, bl, beta, C, cl, D, dl, algo, ws, ws_size, stream))

void aoe_cb_flush_counts(void)
{
    unsigned long long n = atomic_load(&aoe_cb_own_algo_calls);
    if (n)
        AOE_DEBUG("cuBLASLt: %llu cublasLtMatmul call(s) with an algorithm the program chose "
                  "itself (observed, not changed)",
                  n);
}
