/* The executor of GEMM library calls (runtime "cublas", call "gemm"): the
 * job's cuBLASLt matmul replayed on the device its fingerprint names, with
 * the library version it names. A cuBLAS-path job's default is cuBLAS' own
 * call (cublasGemmEx or its strided batched form, CUBLAS_GEMM_DEFAULT), which
 * a cuBLASLt configuration must beat: the hook only reroutes such a call when
 * the bank holds one that did. Buffers carry the job's alignment classes
 * (the data pointer offset inside its allocation), candidates come from the
 * heuristic and the algorithms' capabilities (exec_gemm_candidates.h), runs
 * are timed with CUDA events on rotating copies of A and B (L2 cold), behind
 * queued device work that hides the host's cost of issuing them. Every
 * CUDA and cuBLASLt call is checked; nothing here knows whether the
 * libraries are real or the test doubles. The cuBLASLt side (descriptors,
 * heuristic, algorithms, candidates): exec_cublas_algo.c. */
#include "core/config.h"
#include "tuner/exec_cublas_internal.h"
#include "tuner/exec_gemm_fill.h"
#include "tuner/exec_gemm_tolerance.h"
#include "tuner/exec_gemm_verify.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int program_tag; /* a library call has no program: every build is this */

/* The cuBLAS handle of a cuBLAS-path job's default: the executor's stream
 * (the NULL stream its events are recorded on), then the job's workspace
 * (cublasSetStream resets the handle's workspace to the library's pool, so it
 * comes second), its pointer mode and the math mode. The compute type carries
 * the math mode's choice (TF32: CUBLAS_COMPUTE_32F_FAST_TF32); a reduction
 * mask without OUTPUT_TYPE is how a hook records
 * CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION. */
static aoe_exec_status blas_handle(aoe_exec *ex, char *detail, size_t len)
{
    const aoe_gemm_desc *d = &ex->d;
    cublasMath_t math = CUBLAS_DEFAULT_MATH;
    if (!(d->reduction_mask & CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE))
        math = (cublasMath_t)(math | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION);
    LT_CHECK(ex, cublasCreate_v2, (&ex->blas), AOE_EXEC_RUNTIME_ERROR);
    LT_CHECK(ex, cublasSetStream_v2, (ex->blas, NULL), AOE_EXEC_RUNTIME_ERROR);
    LT_CHECK(ex, cublasSetWorkspace_v2,
             (ex->blas, (void *)(uintptr_t)ex->workspace, (size_t)d->workspace_limit),
             AOE_EXEC_RUNTIME_ERROR);
    LT_CHECK(ex, cublasSetPointerMode_v2,
             (ex->blas, d->pointer_mode ? CUBLAS_POINTER_MODE_DEVICE : CUBLAS_POINTER_MODE_HOST),
             AOE_EXEC_UNSUPPORTED);
    LT_CHECK(ex, cublasSetMathMode, (ex->blas, math), AOE_EXEC_UNSUPPORTED);
    return AOE_EXEC_OK;
}

static aoe_exec_status gemm_open(const aoe_job *job, aoe_exec **out, char *detail, size_t len)
{
    aoe_exec *ex = calloc(1, sizeof *ex);
    char err[512];
    aoe_exec_status st;
    *out = ex;
    if (!ex) {
        snprintf(detail, len, "cublas: out of memory");
        return AOE_EXEC_OUT_OF_MEMORY;
    }
    ex->job = job;
    if (!aoe_job_is_gemm(job) || aoe_gemm_from_job(job, &ex->d, err, sizeof err)) {
        snprintf(detail, len, "cublas: not a GEMM job: %s",
                 aoe_job_is_gemm(job) ? err : "only library call 'gemm' is replayed");
        return AOE_EXEC_BAD_JOB;
    }
    const aoe_gemm_desc *d = &ex->d;
    if (d->flags & AOE_GEMM_FLAG_SCALES || d->pointer_mode > 1 ||
        (d->scale_type != 0 && d->scale_type != 1)) {
        snprintf(detail, len,
                 "cublas: scale pointers, pointer mode %u and scale type %d are not replayed (only "
                 "host or device alpha/beta in f32 or f64)",
                 d->pointer_mode, d->scale_type);
        return AOE_EXEC_UNSUPPORTED;
    }
    unsigned major = d->library_version / 10000;
    if (major < 1 || major > 99) {
        snprintf(detail, len, "cublas: library version %u has no major version 1..99",
                 d->library_version);
        return AOE_EXEC_BAD_JOB;
    }
    int blas = !strcmp(d->library, "cublas");
    ex->blas_path = d->path == AOE_GEMM_PATH_BLAS;
    if (ex->blas_path && !blas) {
        snprintf(detail, len,
                 "cublas: a cuBLAS-path job carries cuBLAS' version (library 'cublas'), not "
                 "'%s'",
                 d->library);
        return AOE_EXEC_BAD_JOB;
    }
    /* Your AOE_CUBLAS_LIB_DIR, else the directory of the program's own
     * cuBLASLt: the tuner serves every program of the spool, each maybe
     * with another cuBLAS (a CUDA 12 wheel beside the system's CUDA 13). */
    aoe_config cfg;
    aoe_config_load(&cfg, err, sizeof err); /* a bad variable elsewhere leaves this one set */
    const char *dir = cfg.text[AOE_CFG_GEMM_LIB_DIR], *dir_name = "AOE_CUBLAS_LIB_DIR=";
    char job_dir[4096];
    if (!dir[0]) {
        if (aoe_gemm_job_lib_dir(job, job_dir, sizeof job_dir, err, sizeof err)) {
            snprintf(detail, len, "cublas: %s", err);
            return AOE_EXEC_BAD_JOB;
        }
        dir = job_dir, dir_name = "the program's cuBLAS directory ";
    }
    char uuid[33];
    aoe_cuda_job_device(job, uuid); /* before the driver is loaded */
    if (aoe_cublas_api_load(&ex->api, major, blas, dir[0] ? dir : NULL, dir_name, err,
                            sizeof err)) {
        snprintf(detail, len, "cublas: %s", err);
        return AOE_EXEC_NO_RUNTIME;
    }
    size_t have = blas ? ex->api.blas_version : ex->api.cublasLtGetVersion();
    if (have != d->library_version || (strcmp(d->library, "cublasLt") && !blas)) {
        snprintf(detail, len, "cublas: the job was captured with %s %u, this machine has %zu",
                 d->library, d->library_version, have);
        return AOE_EXEC_UNSUPPORTED;
    }
    if ((st = aoe_cuda_device_open(&ex->api.cu, job->fingerprint, uuid, &ex->dev, detail, len)))
        return st;
    LT_CHECK(ex, cublasLtCreate, (&ex->lt), AOE_EXEC_RUNTIME_ERROR);
    if ((st = aoe_cublas_describe(ex, detail, len))) return st;
    st = aoe_cublas_heuristic(ex, detail, len);
    /* cuBLAS' own call needs no heuristic: without one, it is the only candidate */
    if (st && !(ex->blas_path && st == AOE_EXEC_UNSUPPORTED)) return st;
    if (st && len) detail[0] = '\0';
    CU_CHECK(ex, cuEventCreate, (&ex->ev[0], CU_EVENT_DEFAULT), AOE_EXEC_RUNTIME_ERROR);
    CU_CHECK(ex, cuEventCreate, (&ex->ev[1], CU_EVENT_DEFAULT), AOE_EXEC_RUNTIME_ERROR);
    if (d->workspace_limit) {
        CUresult r = ex->api.cu.cuMemAlloc(&ex->workspace, d->workspace_limit);
        if (r != CUDA_SUCCESS) {
            snprintf(detail, len, "cublas: the workspace of %llu bytes: %s: %s",
                     (unsigned long long)d->workspace_limit, AOE_CU_NAME(cuMemAlloc),
                     aoe_cuda_error_name(&ex->api.cu, r));
            return r == CUDA_ERROR_OUT_OF_MEMORY ? AOE_EXEC_OUT_OF_MEMORY : AOE_EXEC_RUNTIME_ERROR;
        }
    }
    ex->alpha = 1;
    ex->beta = d->flags & AOE_GEMM_FLAG_BETA_ZERO ? 0 : 0.5; /* 0.5: C is read and scaled */
    if (d->pointer_mode == 1) {                              /* alpha and beta in device memory */
        uint8_t s[16];
        if (d->scale_type == 1) {
            memcpy(s, &ex->alpha, 8), memcpy(s + 8, &ex->beta, 8);
        } else {
            float a = (float)ex->alpha, b = (float)ex->beta;
            memcpy(s, &a, 4), memcpy(s + 8, &b, 4);
        }
        CU_CHECK(ex, cuMemAlloc, (&ex->scalars, sizeof s), AOE_EXEC_RUNTIME_ERROR);
        CU_CHECK(ex, cuMemcpyHtoD, (ex->scalars, s, sizeof s), AOE_EXEC_RUNTIME_ERROR);
    }
    if (ex->blas_path && (st = blas_handle(ex, detail, len))) return st;
    /* Enough copies of A and B that the runs in between overflow the L2. */
    int l2 = 0;
    CU_CHECK(ex, cuDeviceGetAttribute, (&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, ex->dev.dev),
             AOE_EXEC_RUNTIME_ERROR);
    uint64_t ab =
        aoe_gemm_operand_bytes(d, AOE_GEMM_ARG_A) + aoe_gemm_operand_bytes(d, AOE_GEMM_ARG_B);
    ex->ncopies = 1;
    while (ex->ncopies < ROTATE_MAX && ab && (ex->ncopies - 1) * ab < 2 * (uint64_t)l2 &&
           (ex->ncopies + 1) * ab <= ROTATE_BYTES)
        ex->ncopies++;
    return aoe_cublas_lead_size(ex, detail, len);
}

/* Offset of the data inside an allocation: at least `guard` bytes, and the
 * pointer's alignment class exactly the job's (256: any 256-aligned). */
static uint64_t data_offset(uint64_t guard, uint16_t align)
{
    uint64_t front = (guard + 255) / 256 * 256;
    return front + (align && align < AOE_GEMM_ALIGN_MAX ? align : 0);
}

static aoe_exec_status gemm_buffer(aoe_exec *ex, uint32_t arg, uint64_t size, uint64_t guard,
                                   const uint8_t *init, uint64_t *front, char *detail, size_t len)
{
    if (arg >= NOPS) {
        snprintf(detail, len, "argument %u is not an operand", arg);
        return AOE_EXEC_BAD_JOB;
    }
    const uint16_t align[NOPS] = {ex->d.align_a, ex->d.align_b, ex->d.align_c, ex->d.align_d,
                                  ex->d.align_bias};
    dbuf *b = &ex->buf[arg];
    b->front = data_offset(guard, align[arg]);
    b->size = size;
    b->alloc_size = b->front + size + guard;
    CU_CHECK(ex, cuMemAlloc, (&b->alloc, b->alloc_size), AOE_EXEC_RUNTIME_ERROR);
    b->data = b->alloc + b->front;
    CU_CHECK(ex, cuMemAlloc, (&b->init, size), AOE_EXEC_RUNTIME_ERROR);
    CU_CHECK(ex, cuMemcpyHtoD, (b->init, init, size), AOE_EXEC_RUNTIME_ERROR);
    CU_CHECK(ex, cuMemcpyHtoD, (b->data, init, size), AOE_EXEC_RUNTIME_ERROR);
    b->live = 1;
    *front = b->front;
    if (arg == AOE_GEMM_ARG_BIAS) {
        void *bias = (void *)(uintptr_t)b->data;
        aoe_exec_status st = aoe_cublas_set_desc(ex, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
                                                 sizeof bias, detail, len);
        if (st) return st;
    }
    if (arg <= AOE_GEMM_ARG_B) { /* the rotating copies: as aligned as the buffer */
        ex->rot[arg][0] = b->data;
        for (unsigned c = 1; c < ex->ncopies; c++) {
            CUdeviceptr p;
            if (ex->api.cu.cuMemAlloc(&p, size + 256 + align[arg]) != CUDA_SUCCESS) {
                ex->ncopies = c; /* fewer copies: warmer caches, still correct */
                break;
            }
            ex->rot_alloc[arg][c] = p;
            ex->rot[arg][c] = p + data_offset(0, align[arg]);
            CU_CHECK(ex, cuMemcpyDtoD, (ex->rot[arg][c], b->init, size), AOE_EXEC_RUNTIME_ERROR);
        }
    }
    return AOE_EXEC_OK;
}

static aoe_exec_status gemm_build(aoe_exec *ex, const char *options, aoe_exec_program **out,
                                  char *detail, size_t len)
{
    (void)ex, (void)options, (void)detail, (void)len;
    *out = (aoe_exec_program *)&program_tag;
    return AOE_EXEC_OK;
}

static aoe_exec_status gemm_inspect(aoe_exec *ex, aoe_exec_program *p, aoe_exec_info *info,
                                    char *detail, size_t len)
{
    (void)p, (void)detail, (void)len;
    const int32_t types[NOPS] = {ex->d.a_type, ex->d.b_type, ex->d.c_type, ex->d.d_type,
                                 ex->d.bias_type < 0 ? ex->d.d_type : ex->d.bias_type};
    uint32_t n = aoe_gemm_nargs(&ex->d);
    memset(&info->limits, 0, sizeof info->limits);
    for (uint32_t i = 0; i < n; i++) {
        /* A, B and the bias are only read; C too unless it is D itself */
        info->read_only[i] =
            i != AOE_GEMM_ARG_D && !(i == AOE_GEMM_ARG_C && ex->d.flags & AOE_GEMM_FLAG_C_IS_D);
        info->elem[i] = (uint8_t)aoe_gemm_elem(types[i]);
    }
    return AOE_EXEC_OK;
}

static aoe_exec_status gemm_reset(aoe_exec *ex, const uint8_t *poisoned, uint8_t poison, int guard,
                                  char *detail, size_t len)
{
    for (uint32_t i = 0; i < NOPS; i++) {
        dbuf *b = &ex->buf[i];
        if (!b->live) continue;
        if (poisoned && poisoned[i])
            CU_CHECK(ex, cuMemsetD8, (b->data, poison, b->size), AOE_EXEC_RUNTIME_ERROR);
        else if (guard >= 0 ||
                 (i != AOE_GEMM_ARG_A && i != AOE_GEMM_ARG_B && i != AOE_GEMM_ARG_BIAS))
            /* A GEMM never writes A, B or the bias: a candidate that did failed its
             * verified run, before which (guard >= 0) they are restored. */
            CU_CHECK(ex, cuMemcpyDtoD, (b->data, b->init, b->size), AOE_EXEC_RUNTIME_ERROR);
        if (guard < 0) continue;
        CU_CHECK(ex, cuMemsetD8, (b->alloc, (unsigned char)guard, b->front),
                 AOE_EXEC_RUNTIME_ERROR);
        CU_CHECK(ex, cuMemsetD8,
                 (b->data + b->size, (unsigned char)guard, b->alloc_size - b->front - b->size),
                 AOE_EXEC_RUNTIME_ERROR);
    }
    return AOE_EXEC_OK;
}

/* The algorithm of policy pol. The default (NULL, or the library-default
 * form): the heuristic's first, or *algo NULL for cuBLAS' own call on a
 * cuBLAS-path job. */
static aoe_exec_status algo_for(aoe_exec *ex, const aoe_policy *pol,
                                const cublasLtMatmulAlgo_t **algo, char *detail, size_t len)
{
    aoe_gemm_algo a;
    if (!pol || aoe_gemm_policy_is_library_default(pol)) {
        *algo = ex->blas_path ? NULL : &ex->heur[0];
        return AOE_EXEC_OK;
    }
    if (aoe_gemm_algo_from_policy(pol, &a, detail, len)) return AOE_EXEC_BAD_JOB;
    if (!ex->have_cur || !aoe_gemm_algo_same(&a, &ex->cur_cfg)) {
        ex->have_cur = 0;
        aoe_exec_status st = aoe_cublas_build_algo(ex, &a, &ex->cur, detail, len);
        if (st) return st;
        ex->cur_cfg = a;
        ex->have_cur = 1;
    }
    *algo = &ex->cur;
    return AOE_EXEC_OK;
}

/* 1 when the job needs cuBLAS' 64-bit forms (a size above INT_MAX). */
static int blas_needs_64(const aoe_gemm_desc *d)
{
    const uint64_t v[] = {d->m, d->n, d->k, d->lda, d->ldb, d->ldc, d->batch_count};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        if (v[i] > INT_MAX) return 1;
    return 0;
}

static const char *blas_name(const aoe_gemm_desc *d)
{
    static const char *const names[2][2] = {{"cublasGemmEx", "cublasGemmStridedBatchedEx"},
                                            {"cublasGemmEx_64", "cublasGemmStridedBatchedEx_64"}};
    return names[blas_needs_64(d)][d->batch_count > 1];
}

/* cuBLAS' own call, as the program made it: the job's types, compute type,
 * transposes, leading dimensions and strides, C in place (D), the library's
 * own algorithm choice. */
static cublasStatus_t blas_gemm(aoe_exec *ex, const void *alpha, const void *a, const void *b,
                                const void *beta, void *c)
{
    const aoe_gemm_desc *d = &ex->d;
    const aoe_cublas_api *f = &ex->api;
    cublasOperation_t ta = (cublasOperation_t)d->transa, tb = (cublasOperation_t)d->transb;
    cudaDataType at = (cudaDataType)d->a_type, bt = (cudaDataType)d->b_type,
                 ct = (cudaDataType)d->c_type;
    cublasComputeType_t ct_ = (cublasComputeType_t)d->compute_type;
    if (blas_needs_64(d)) {
        if (!f->cublasGemmEx_64 || !f->cublasGemmStridedBatchedEx_64)
            return CUBLAS_STATUS_NOT_SUPPORTED; /* an older library without them */
        if (d->batch_count > 1)
            return f->cublasGemmStridedBatchedEx_64(
                ex->blas, ta, tb, (int64_t)d->m, (int64_t)d->n, (int64_t)d->k, alpha, a, at,
                (int64_t)d->lda, (long long)d->stride_a, b, bt, (int64_t)d->ldb,
                (long long)d->stride_b, beta, c, ct, (int64_t)d->ldc, (long long)d->stride_c,
                (int64_t)d->batch_count, ct_, CUBLAS_GEMM_DEFAULT);
        return f->cublasGemmEx_64(ex->blas, ta, tb, (int64_t)d->m, (int64_t)d->n, (int64_t)d->k,
                                  alpha, a, at, (int64_t)d->lda, b, bt, (int64_t)d->ldb, beta, c,
                                  ct, (int64_t)d->ldc, ct_, CUBLAS_GEMM_DEFAULT);
    }
    if (d->batch_count > 1)
        return f->cublasGemmStridedBatchedEx(
            ex->blas, ta, tb, (int)d->m, (int)d->n, (int)d->k, alpha, a, at, (int)d->lda,
            (long long)d->stride_a, b, bt, (int)d->ldb, (long long)d->stride_b, beta, c, ct,
            (int)d->ldc, (long long)d->stride_c, (int)d->batch_count, ct_, CUBLAS_GEMM_DEFAULT);
    return f->cublasGemmEx(ex->blas, ta, tb, (int)d->m, (int)d->n, (int)d->k, alpha, a, at,
                           (int)d->lda, b, bt, (int)d->ldb, beta, c, ct, (int)d->ldc, ct_,
                           CUBLAS_GEMM_DEFAULT);
}

static aoe_exec_status gemm_run(aoe_exec *ex, aoe_exec_program *p, const aoe_exec_launch *l,
                                double *device_us, char *detail, size_t len)
{
    (void)p;
    const aoe_gemm_desc *d = &ex->d;
    const cublasLtMatmulAlgo_t *algo;
    aoe_exec_status st = algo_for(ex, l->policy, &algo, detail, len);
    if (st) return st;
    unsigned c = device_us ? ex->next : 0; /* timed runs read a cold copy of A and B */
    CUdeviceptr dp = ex->buf[AOE_GEMM_ARG_D].data;
    CUdeviceptr cp = d->flags & AOE_GEMM_FLAG_C_IS_D ? dp : ex->buf[AOE_GEMM_ARG_C].data;
    float af = (float)ex->alpha, bf = (float)ex->beta;
    const void *alpha = d->scale_type == 1 ? (const void *)&ex->alpha : (const void *)&af;
    const void *beta = d->scale_type == 1 ? (const void *)&ex->beta : (const void *)&bf;
    if (d->pointer_mode == 1) {
        alpha = (const void *)(uintptr_t)ex->scalars;
        beta = (const void *)(uintptr_t)(ex->scalars + 8);
    }
    const void *a = (const void *)(uintptr_t)ex->rot[0][c],
               *b = (const void *)(uintptr_t)ex->rot[1][c];
    const char *what = algo ? "cublasLtMatmul" : blas_name(d);
    if (device_us && (st = aoe_cublas_lead(ex, detail, len))) return st;
    CU_CHECK(ex, cuEventRecord, (ex->ev[0], NULL), AOE_EXEC_RUNTIME_ERROR);
    cublasStatus_t s =
        algo ? ex->api.cublasLtMatmul(ex->lt, ex->op, alpha, a, ex->lay[0], b, ex->lay[1], beta,
                                      (const void *)(uintptr_t)cp, ex->lay[2],
                                      (void *)(uintptr_t)dp, ex->lay[3], algo,
                                      (void *)(uintptr_t)ex->workspace, d->workspace_limit, NULL)
             : blas_gemm(ex, alpha, a, b, beta, (void *)(uintptr_t)dp);
    if (s != CUBLAS_STATUS_SUCCESS) {
        snprintf(detail, len, "%s: %s", what, aoe_cublas_status_name(&ex->api, s));
        return s == CUBLAS_STATUS_NOT_SUPPORTED || s == CUBLAS_STATUS_INVALID_VALUE
                   ? AOE_EXEC_REFUSED
                   : AOE_EXEC_RUNTIME_ERROR;
    }
    CU_CHECK(ex, cuEventRecord, (ex->ev[1], NULL), AOE_EXEC_RUNTIME_ERROR);
    CU_CHECK(ex, cuEventSynchronize, (ex->ev[1]), AOE_EXEC_RUNTIME_ERROR);
    if (device_us) {
        float ms = 0;
        CU_CHECK(ex, cuEventElapsedTime, (&ms, ex->ev[0], ex->ev[1]), AOE_EXEC_RUNTIME_ERROR);
        *device_us = 1000.0 * (double)ms;
    }
    return AOE_EXEC_OK;
}

/* The next timed run reads another copy of A and B (1..n-1: copy 0 was
 * just restored by reset, so it sits in the L2). */
static void gemm_flush(aoe_exec *ex, unsigned round)
{
    ex->next = ex->ncopies > 1 ? 1 + round % (ex->ncopies - 1) : 0;
}

static aoe_exec_status gemm_read(aoe_exec *ex, uint32_t arg, uint8_t *data, uint8_t *front,
                                 uint8_t *back, char *detail, size_t len)
{
    dbuf *b = arg < NOPS ? &ex->buf[arg] : NULL;
    if (!b || !b->live) {
        snprintf(detail, len, "argument %u has no buffer", arg);
        return AOE_EXEC_RUNTIME_ERROR;
    }
    CU_CHECK(ex, cuMemcpyDtoH, (data, b->data, b->size), AOE_EXEC_RUNTIME_ERROR);
    CU_CHECK(ex, cuMemcpyDtoH, (front, b->alloc, b->front), AOE_EXEC_RUNTIME_ERROR);
    CU_CHECK(ex, cuMemcpyDtoH, (back, b->data + b->size, b->alloc_size - b->front - b->size),
             AOE_EXEC_RUNTIME_ERROR);
    return AOE_EXEC_OK;
}

static void gemm_release(aoe_exec *ex, aoe_exec_program *p)
{
    (void)ex, (void)p; /* nothing was built */
}

static void gemm_close(aoe_exec *ex)
{
    if (!ex) return;
    aoe_cublas_api *a = &ex->api;
    if (ex->blas) a->cublasDestroy_v2(ex->blas); /* before the workspace it holds */
    if (ex->dev.retained) {
        for (int i = 0; i < NOPS; i++) {
            if (ex->buf[i].alloc) a->cu.cuMemFree(ex->buf[i].alloc);
            if (ex->buf[i].init) a->cu.cuMemFree(ex->buf[i].init);
        }
        for (int i = 0; i < 2; i++)
            for (int c = 1; c < ROTATE_MAX; c++)
                if (ex->rot_alloc[i][c]) a->cu.cuMemFree(ex->rot_alloc[i][c]);
        if (ex->workspace) a->cu.cuMemFree(ex->workspace);
        if (ex->scalars) a->cu.cuMemFree(ex->scalars);
        if (ex->lead) a->cu.cuMemFree(ex->lead);
        for (int i = 0; i < 2; i++)
            if (ex->ev[i]) a->cu.cuEventDestroy(ex->ev[i]);
    }
    if (ex->pref) a->cublasLtMatmulPreferenceDestroy(ex->pref);
    for (int i = 0; i < 4; i++)
        if (ex->lay[i]) a->cublasLtMatrixLayoutDestroy(ex->lay[i]);
    if (ex->op) a->cublasLtMatmulDescDestroy(ex->op);
    if (ex->lt) a->cublasLtDestroy(ex->lt);
    aoe_cuda_device_close(&a->cu, &ex->dev);
    aoe_cublas_api_unload(a);
    free(ex);
}

/* What cublasLtMatmulAlgoCapGetAttribute says about algorithm id. */
static int gemm_tolerance(const aoe_job *job, aoe_tolerance *out)
{
    aoe_gemm_desc d;
    if (aoe_gemm_from_job(job, &d, NULL, 0)) return -1;
    *out = aoe_gemm_tolerance(aoe_gemm_elem(d.d_type), d.compute_type, d.k);
    return 0;
}

static void gemm_fill(const aoe_job *job, uint32_t arg, uint8_t *dst, uint64_t size)
{
    aoe_gemm_desc d;
    if (arg < NOPS && !aoe_gemm_from_job(job, &d, NULL, 0))
        aoe_gemm_fill(&d, (aoe_gemm_arg)arg, dst, size);
    else
        memset(dst, 0, size);
}

static int gemm_check(const aoe_job *job, uint32_t arg, const uint8_t *ref, const uint8_t *got,
                      uint64_t size, char *reason, size_t len)
{
    aoe_gemm_desc d;
    if (arg != AOE_GEMM_ARG_D || aoe_gemm_from_job(job, &d, NULL, 0)) return 0;
    return aoe_gemm_check_output(&d, ref, got, size, reason, len);
}

const aoe_exec_ops aoe_exec_cublas = {.version = AOE_EXEC_OPS_VERSION,
                                      .runtime = AOE_GEMM_RUNTIME,
                                      .open = gemm_open,
                                      .buffer = gemm_buffer,
                                      .build = gemm_build,
                                      .inspect = gemm_inspect,
                                      .reset = gemm_reset,
                                      .run = gemm_run,
                                      .flush = gemm_flush,
                                      .read = gemm_read,
                                      .release = gemm_release,
                                      .close = gemm_close,
                                      .job_read_only = NULL,
                                      .candidates = aoe_cublas_candidates,
                                      .tolerance = gemm_tolerance,
                                      .fill = gemm_fill,
                                      .determinism = 1,
                                      .check = gemm_check};
