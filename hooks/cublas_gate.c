/* When AOE acts on cuBLAS / cuBLASLt calls at all, decided once per path at
 * its first call (the libraries are loaded by then) and said once:
 *   - AOE_TUNE_GEMM=False: nothing (every call passes through);
 *   - CUBLAS_WORKSPACE_CONFIG set (any value: PyTorch's deterministic mode,
 *     torch.use_deterministic_algorithms, requires it, and cuBLAS reads it to
 *     make results reproducible): nothing, the program asked for
 *     deterministic results;
 *   - a library version AOE does not know (major 12 or 13): that path
 *     passes through (the cuBLAS path reroutes through cuBLASLt, so needs
 *     both);
 *   - PYTORCH_TUNABLEOP_ENABLED=1: PyTorch tunes the cuBLASLt path itself,
 *     AOE steps aside there;
 *   - more than one cuBLAS or cuBLASLt version loaded: nothing is tuned,
 *     each call reaches its caller's own library (the versioned entries,
 *     cublas_internal.h; checked again at every first sight). */
#include "hooks/cublas_internal.h"

#include "core/log.h"

#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Bits: AOE_CB_PATH_* on; DECIDED_* the gate ran for that path. */
#define DECIDED_LT 4
#define DECIDED_BLAS 8
#define DECIDED_ALL 16 /* the common part (configuration, environment) */
atomic_int aoe_cb_paths_bits;
uint32_t aoe_cb_lt_version, aoe_cb_blas_version;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int g_said_off, g_said_lt, g_said_blas, g_said_tunable, g_said_ambiguous;

static int known_major(uint32_t v)
{
    return v / 10000 == 12 || v / 10000 == 13;
}

/* Distinct cuBLAS / cuBLASLt sonames among the loaded objects. */
struct seen {
    char lt[2][64], blas[2][64];
    int nlt, nblas;
};
static void add(char names[2][64], int *n, const char *base)
{
    for (int i = 0; i < *n && i < 2; i++)
        if (!strncmp(names[i], base, 63)) return;
    if (*n < 2) snprintf(names[*n], 64, "%s", base);
    (*n)++;
}
static int visit(struct dl_phdr_info *info, size_t size, void *ctx)
{
    (void)size;
    struct seen *s = ctx;
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    if (!strncmp(base, "libcublasLt.so", 14))
        add(s->lt, &s->nlt, base);
    else if (!strncmp(base, "libcublas.so", 12))
        add(s->blas, &s->nblas, base);
    return 0;
}
static int ambiguous(void)
{
    struct seen s;
    memset(&s, 0, sizeof s);
    dl_iterate_phdr(visit, &s);
    if (s.nlt < 2 && s.nblas < 2) return 0;
    aoe_shim_log_once(&g_said_ambiguous, AOE_LOG_WARN,
                      "more than one cuBLAS version is loaded (%s and %s): every cuBLAS and "
                      "cuBLASLt call passes through untuned (each to its caller's own library)",
                      s.nlt > 1 ? s.lt[0] : s.blas[0], s.nlt > 1 ? s.lt[1] : s.blas[1]);
    return 1;
}

static int common(void)
{
    if (!aoe_shim_init()) return 0;
    if (!aoe_shim.cfg.num[AOE_CFG_TUNE_GEMM]) {
        aoe_shim_log_once(&g_said_off, AOE_LOG_INFO,
                          "GEMM tuning is off (AOE_TUNE_GEMM=%s): cuBLAS and cuBLASLt calls pass "
                          "through",
                          aoe_shim.cfg.text[AOE_CFG_TUNE_GEMM]);
        return 0;
    }
    const char *det = getenv("CUBLAS_WORKSPACE_CONFIG");
    if (det) {
        aoe_shim_log_once(&g_said_off, AOE_LOG_INFO,
                          "CUBLAS_WORKSPACE_CONFIG=%s asks cuBLAS for deterministic results: "
                          "GEMMs are not tuned (calls pass through)",
                          det);
        return 0;
    }
    return !ambiguous();
}

static int decide_lt(void)
{
    size_t (*ver)(void) = CB_REAL(cublasLtGetVersion);
    aoe_cb_lt_version = ver ? (uint32_t)ver() : 0;
    if (!known_major(aoe_cb_lt_version)) {
        aoe_shim_log_once(&g_said_lt, AOE_LOG_WARN,
                          "cuBLASLt version %u is not one AOE knows (12.x, 13.x): its GEMMs pass "
                          "through untuned",
                          aoe_cb_lt_version);
        return 0;
    }
    const char *tunable = getenv("PYTORCH_TUNABLEOP_ENABLED");
    if (tunable && !strcmp(tunable, "1")) {
        aoe_shim_log_once(&g_said_tunable, AOE_LOG_INFO,
                          "PYTORCH_TUNABLEOP_ENABLED=1: PyTorch's TunableOp tunes the cuBLASLt "
                          "path, AOE steps aside there (cublasGemmEx and the other cuBLAS GEMMs "
                          "are still tuned)");
        return 0;
    }
    return 1;
}

/* The cuBLAS path reroutes through cuBLASLt: both versions must be known. */
static int decide_blas(void)
{
    __typeof__(&cublasGetProperty) prop = CB_REAL(cublasGetProperty);
    size_t (*ltver)(void) = CB_REAL(cublasLtGetVersion);
    /* cublasGetProperty needs no handle (cublasGetVersion_v2 takes one). */
    int major = -1, minor = -1, patch = -1, v = 0;
    if (prop && prop(MAJOR_VERSION, &major) == CUBLAS_STATUS_SUCCESS &&
        prop(MINOR_VERSION, &minor) == CUBLAS_STATUS_SUCCESS &&
        prop(PATCH_LEVEL, &patch) == CUBLAS_STATUS_SUCCESS && major >= 0 && minor >= 0 &&
        patch >= 0)
        v = major * 10000 + minor * 100 + patch;
    aoe_cb_blas_version = v > 0 ? (uint32_t)v : 0;
    uint32_t lt = ltver ? (uint32_t)ltver() : 0;
    if (!known_major(aoe_cb_blas_version) || !known_major(lt) ||
        aoe_cb_blas_version / 10000 != lt / 10000) {
        aoe_shim_log_once(&g_said_blas, AOE_LOG_WARN,
                          "cuBLAS version %u with cuBLASLt %u is not a pair AOE knows (12.x, "
                          "13.x): cublasGemmEx and the other cuBLAS GEMMs pass through untuned",
                          aoe_cb_blas_version, lt);
        return 0;
    }
    return 1;
}

int aoe_cb_gate(int path)
{
    pthread_mutex_lock(&g_lock);
    int bits = atomic_load_explicit(&aoe_cb_paths_bits, memory_order_relaxed);
    if (!(bits & DECIDED_ALL)) {
        bits |= DECIDED_ALL;
        if (!common()) bits |= DECIDED_LT | DECIDED_BLAS;
    }
    if (path == AOE_CB_PATH_LT && !(bits & DECIDED_LT))
        bits |= DECIDED_LT | (decide_lt() ? AOE_CB_PATH_LT : 0);
    if (path == AOE_CB_PATH_BLAS && !(bits & DECIDED_BLAS))
        bits |= DECIDED_BLAS | (decide_blas() ? AOE_CB_PATH_BLAS : 0);
    atomic_store_explicit(&aoe_cb_paths_bits, bits, memory_order_release);
    pthread_mutex_unlock(&g_lock);
    return bits & path;
}

int aoe_cb_recheck_libraries(void)
{
    if (!ambiguous()) return 0;
    pthread_mutex_lock(&g_lock);
    atomic_store_explicit(&aoe_cb_paths_bits, DECIDED_ALL | DECIDED_LT | DECIDED_BLAS,
                          memory_order_release);
    pthread_mutex_unlock(&g_lock);
    return 1;
}

void aoe_cb_gate_atfork_child(void)
{
    pthread_mutex_init(&g_lock, NULL);
}
