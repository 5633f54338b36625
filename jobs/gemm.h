/* A GEMM library call (cuBLASLt matmul, cuBLAS gemm) described without any
 * CUDA header: the values are the libraries' own enum numbers as plain
 * integers, filled by the hooks (hooks/cublas*) and read by the executor
 * (tuner/exec_gemm*). From a description come the operator key
 * (aoe_gemm_key), the job that carries the call to the tuner (runtime
 * "cublas", library call "gemm", the description in runtime_extra.gemm) and
 * its checks. Formats: docs/formats.md, "GEMM jobs". */
#ifndef AOE_GEMM_H
#define AOE_GEMM_H

#include "jobs/job.h"
#include "store/record.h"

#include <stddef.h>
#include <stdint.h>

/* Which entry point the program called. Stored in keys: never renumber. */
typedef enum {
    AOE_GEMM_PATH_LT = 0,  /* cublasLtMatmul (after cublasLtMatmulAlgoGetHeuristic) */
    AOE_GEMM_PATH_BLAS = 1 /* cublasGemmEx / cublasSgemm and their batched forms */
} aoe_gemm_path;

/* flags: facts about the call that decide which algorithm is valid or fast. */
#define AOE_GEMM_FLAG_C_IS_D 1u     /* C and D are one buffer (always so on the cuBLAS path) */
#define AOE_GEMM_FLAG_BETA_ZERO 2u  /* beta is known to be 0 (host pointer mode): C is not read */
#define AOE_GEMM_FLAG_FAST_ACCUM 4u /* CUBLASLT_MATMUL_DESC_FAST_ACCUM (fp8) */
#define AOE_GEMM_FLAG_SCALES 8u     /* A/B/C/D scale pointers set (fp8 _scaled_mm) */
#define AOE_GEMM_FLAGS_KNOWN 15u

/* The runtime name and call name of a GEMM job. */
#define AOE_GEMM_RUNTIME "cublas"
#define AOE_GEMM_CALL "gemm"
#define AOE_GEMM_LIBRARY_LEN 16

/* No bias type set: the library's default (CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE -1). */
#define AOE_GEMM_BIAS_DEFAULT (-1)
/* Largest alignment class: a pointer aligned to 256 bytes or more. */
#define AOE_GEMM_ALIGN_MAX 256u
/* Bytes of any one operand, as a job's buffer sizes (exact in JSON). */
#define AOE_GEMM_MAX_BYTES 9007199254740992.0

/* Column-major operands (cuBLASLt's default order, cuBLAS' only one). Sizes
 * and strides count elements; the op(A) is m x k, op(B) k x n, C and D m x n. */
typedef struct {
    uint8_t path;                           /* aoe_gemm_path */
    char library[AOE_GEMM_LIBRARY_LEN];     /* "cublasLt" or "cublas": whose version follows */
    uint32_t library_version;               /* cublasLtGetVersion() / cublasGetVersion(): 130100 */
    int32_t a_type, b_type, c_type, d_type; /* cudaDataType_t (CUDA_R_32F 0, R_16F 2, R_16BF 14) */
    int32_t compute_type;                   /* cublasComputeType_t (CUBLAS_COMPUTE_32F 68) */
    int32_t scale_type;                     /* cudaDataType_t of alpha and beta */
    uint8_t transa, transb;                 /* cublasOperation_t: N 0, T 1, C 2 */
    uint64_t m, n, k;
    uint64_t lda, ldb, ldc, ldd;
    uint64_t batch_count; /* 1: not batched */
    uint64_t stride_a, stride_b, stride_c,
        stride_d;         /* elements between batches; 0 when batch_count 1 */
    uint32_t epilogue;    /* cublasLtEpilogue_t (DEFAULT 1, BIAS 4, GELU_BIAS 36) */
    int32_t bias_type;    /* cudaDataType_t, or AOE_GEMM_BIAS_DEFAULT */
    uint8_t pointer_mode; /* cublasLtPointerMode_t: HOST 0, DEVICE 1, .. 4 */
    /* Alignment class of each pointer (aoe_gemm_align_class): 1..256 bytes,
     * a power of two; align_bias 0 when the epilogue takes no bias. */
    uint16_t align_a, align_b, align_c, align_d, align_bias;
    uint64_t workspace_limit; /* bytes the caller lets the algorithm use */
    uint32_t reduction_mask;  /* CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK (all: 7) */
    uint32_t sm_count_target; /* CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET (0: all) */
    uint32_t flags;           /* AOE_GEMM_FLAG_* */
} aoe_gemm_desc;

/* Version of the key's field sequence (hashed first): bump it when fields
 * are added, so a key of another sequence can never collide. */
#define AOE_GEMM_KEY_VERSION 1u

/* The largest power of two up to AOE_GEMM_ALIGN_MAX dividing addr (NULL: the
 * maximum). */
uint16_t aoe_gemm_align_class(uint64_t addr);

/* A description with the defaults of a plain call: path LT, batch 1,
 * epilogue DEFAULT, bias type default, host pointer mode, every alignment
 * 256, reduction mask 7; the caller sets the library, types and shape. */
void aoe_gemm_desc_init(aoe_gemm_desc *d);

/* 0 when d describes a call the executor can replay, otherwise -1 and one
 * message naming the field ("lda: 8 is less than the rows of A (16: m, transa
 * N)"). */
int aoe_gemm_desc_check(const aoe_gemm_desc *d, char *err, size_t errlen);

/* The operator key of a GEMM on the device of `fingerprint` (the CUDA form:
 * store/fingerprint.h, aoe_fingerprint_cuda). Fields in the order of
 * docs/formats.md ("The GEMM key"). No allocation. */
aoe_key aoe_gemm_key(const char *fingerprint, const aoe_gemm_desc *d);

/* Bits per element of a cudaDataType_t value (4 for CUDA_R_4F_E2M1), 0 for
 * an unknown one. */
unsigned aoe_gemm_type_bits(int32_t cuda_type);
/* The job's element type of a cudaDataType_t value (BYTES for those AOE has
 * no element type for: fp8, fp6, fp4, complex, 4-bit integers). */
aoe_elem_type aoe_gemm_elem(int32_t cuda_type);

/* Operands in job argument order; BIAS only when the epilogue takes one. */
typedef enum {
    AOE_GEMM_ARG_A,
    AOE_GEMM_ARG_B,
    AOE_GEMM_ARG_C,
    AOE_GEMM_ARG_D,
    AOE_GEMM_ARG_BIAS
} aoe_gemm_arg;
/* Number of operands of d (4, or 5 with a bias). */
uint32_t aoe_gemm_nargs(const aoe_gemm_desc *d);
/* Bytes an operand spans in memory over all batches (0 when d fails the
 * check or the operand is absent). */
uint64_t aoe_gemm_operand_bytes(const aoe_gemm_desc *d, aoe_gemm_arg which);

/* The description as the JSON object text of runtime_extra.gemm (malloc'd;
 * NULL when out of memory), and back: 0, or -1 with a message naming the
 * field ("gemm.lda: ..."). Decoding checks (aoe_gemm_desc_check). */
char *aoe_gemm_desc_to_json(const aoe_gemm_desc *d);
int aoe_gemm_desc_from_json(const char *text, aoe_gemm_desc *d, char *err, size_t errlen);

/* 1 when a job is a GEMM library call (runtime "cublas", call "gemm"). */
int aoe_job_is_gemm(const aoe_job *job);

/* Fills a job (zeroed first) for the call: runtime "cublas", op "gemm",
 * the fingerprint, synthetic typed buffers A, B, C, D [, bias] of the
 * operands' sizes, runtime_extra {"gemm": ..., "cublas_dir": lib_dir} and
 * the key. lib_dir: the directory of the cuBLASLt the program loaded
 * (absolute), or NULL or "" when unknown; it is not part of the key. The
 * strings and arguments are the job's own (aoe_job_free). Returns 0, or -1
 * (errno EINVAL for a description that fails the check or a relative
 * lib_dir, ENOMEM). */
int aoe_gemm_job_make(aoe_job *job, const char *fingerprint, const aoe_gemm_desc *d,
                      const char *lib_dir);

/* The job's runtime_extra.cublas_dir into out ("" when absent). Returns 0,
 * or -1 with a message when it is not an absolute path shorter than len. */
int aoe_gemm_job_lib_dir(const aoe_job *job, char *out, size_t len, char *err, size_t errlen);

/* The description a GEMM job carries, checked against its arguments (count,
 * kind, element type, size). Returns 0, or -1 with a message naming the field
 * ("runtime_extra.gemm.m: ...", "args[1].size: ..."). */
int aoe_gemm_from_job(const aoe_job *job, aoe_gemm_desc *d, char *err, size_t errlen);

#endif
