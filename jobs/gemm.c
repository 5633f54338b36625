/* A GEMM description: its checks, its operands' extents and its key. The
 * enum values are cuBLAS' own (library_types.h, cublas_api.h, cublasLt.h of
 * CUDA 13), written here as numbers because no CUDA header may appear
 * outside the hooks and executors (docs/design.md). */
#include "jobs/gemm.h"

#include "store/opkey.h"

#include <stdio.h>
#include <string.h>

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        if (errlen) snprintf(err, errlen, __VA_ARGS__);                                            \
        return -1;                                                                                 \
    } while (0)

/* cudaDataType_t -> bits per element (0: unknown). Complex types count
 * both parts; fp6 and fp4 are packed. */
static const uint8_t type_bits[] = {
    [0] = 32,   /* CUDA_R_32F */
    [1] = 64,   /* CUDA_R_64F */
    [2] = 16,   /* CUDA_R_16F */
    [3] = 8,    /* CUDA_R_8I */
    [4] = 64,   /* CUDA_C_32F */
    [5] = 128,  /* CUDA_C_64F */
    [6] = 32,   /* CUDA_C_16F */
    [7] = 16,   /* CUDA_C_8I */
    [8] = 8,    /* CUDA_R_8U */
    [9] = 16,   /* CUDA_C_8U */
    [10] = 32,  /* CUDA_R_32I */
    [11] = 64,  /* CUDA_C_32I */
    [12] = 32,  /* CUDA_R_32U */
    [13] = 64,  /* CUDA_C_32U */
    [14] = 16,  /* CUDA_R_16BF */
    [15] = 32,  /* CUDA_C_16BF */
    [16] = 4,   /* CUDA_R_4I */
    [17] = 8,   /* CUDA_C_4I */
    [18] = 4,   /* CUDA_R_4U */
    [19] = 8,   /* CUDA_C_4U */
    [20] = 16,  /* CUDA_R_16I */
    [21] = 32,  /* CUDA_C_16I */
    [22] = 16,  /* CUDA_R_16U */
    [23] = 32,  /* CUDA_C_16U */
    [24] = 64,  /* CUDA_R_64I */
    [25] = 128, /* CUDA_C_64I */
    [26] = 64,  /* CUDA_R_64U */
    [27] = 128, /* CUDA_C_64U */
    [28] = 8,   /* CUDA_R_8F_E4M3 (= UE4M3) */
    [29] = 8,   /* CUDA_R_8F_E5M2 */
    [30] = 8,   /* CUDA_R_8F_UE8M0 */
    [31] = 6,   /* CUDA_R_6F_E2M3 */
    [32] = 6,   /* CUDA_R_6F_E3M2 */
    [33] = 4,   /* CUDA_R_4F_E2M1 */
};

unsigned aoe_gemm_type_bits(int32_t t)
{
    return t >= 0 && (size_t)t < sizeof type_bits ? type_bits[t] : 0;
}

aoe_elem_type aoe_gemm_elem(int32_t t)
{
    switch (t) {
    case 0:
        return AOE_ELEM_F32;
    case 1:
        return AOE_ELEM_F64;
    case 2:
        return AOE_ELEM_F16;
    case 3:
        return AOE_ELEM_I8;
    case 8:
        return AOE_ELEM_U8;
    case 10:
        return AOE_ELEM_I32;
    case 12:
        return AOE_ELEM_U32;
    case 14:
        return AOE_ELEM_BF16;
    case 20:
        return AOE_ELEM_I16;
    case 22:
        return AOE_ELEM_U16;
    case 24:
        return AOE_ELEM_I64;
    case 26:
        return AOE_ELEM_U64;
    default:
        return AOE_ELEM_BYTES;
    }
}

/* cublasComputeType_t: 16F 64, 16F_PEDANTIC 65, 32F 68, 32F_PEDANTIC 69,
 * 64F 70, 64F_PEDANTIC 71, 32I 72, 32I_PEDANTIC 73, 32F_FAST_16F 74,
 * 32F_FAST_16BF 75, 32F_FAST_TF32 77, 32F_EMULATED_16BFX9 78,
 * 64F_EMULATED_FIXEDPOINT 79. */
static int known_compute(int32_t c)
{
    return (c >= 64 && c <= 65) || (c >= 68 && c <= 75) || (c >= 77 && c <= 79);
}

/* cublasLtEpilogue_t: DEFAULT 1, RELU 2, RELU_AUX 130, BIAS 4, RELU_BIAS 6,
 * RELU_AUX_BIAS 134, DRELU 136, DRELU_BGRAD 152, GELU 32, GELU_AUX 160,
 * GELU_BIAS 36, GELU_AUX_BIAS 164, DGELU 192, DGELU_BGRAD 208, BGRADA 256,
 * BGRADB 512. */
static int known_epilogue(uint32_t e)
{
    static const uint16_t known[] = {1,  2,   130, 4,   6,   134, 136, 152,
                                     32, 160, 36,  164, 192, 208, 256, 512};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (e == known[i]) return 1;
    return 0;
}

/* BIAS (4) reads a bias vector; BGRAD (16), BGRADA, BGRADB write one. */
static int takes_bias(uint32_t epilogue)
{
    return (epilogue & (4u | 16u | 256u | 512u)) != 0;
}

uint16_t aoe_gemm_align_class(uint64_t addr)
{
    if (!addr) return AOE_GEMM_ALIGN_MAX;
    uint64_t low = addr & (~addr + 1);
    return (uint16_t)(low > AOE_GEMM_ALIGN_MAX ? AOE_GEMM_ALIGN_MAX : low);
}

void aoe_gemm_desc_init(aoe_gemm_desc *d)
{
    memset(d, 0, sizeof *d);
    d->path = AOE_GEMM_PATH_LT;
    d->batch_count = 1;
    d->epilogue = 1; /* CUBLASLT_EPILOGUE_DEFAULT */
    d->bias_type = AOE_GEMM_BIAS_DEFAULT;
    d->align_a = d->align_b = d->align_c = d->align_d = AOE_GEMM_ALIGN_MAX;
    d->reduction_mask = 7; /* CUBLASLT_REDUCTION_SCHEME_MASK */
}

uint32_t aoe_gemm_nargs(const aoe_gemm_desc *d)
{
    return takes_bias(d->epilogue) ? 5 : 4;
}

/* Rows and columns of an operand as stored (column-major). */
static void stored(const aoe_gemm_desc *d, aoe_gemm_arg w, uint64_t *rows, uint64_t *cols)
{
    switch (w) {
    case AOE_GEMM_ARG_A:
        *rows = d->transa ? d->k : d->m, *cols = d->transa ? d->m : d->k;
        break;
    case AOE_GEMM_ARG_B:
        *rows = d->transb ? d->n : d->k, *cols = d->transb ? d->k : d->n;
        break;
    case AOE_GEMM_ARG_BIAS: /* one vector of D's rows, per batch */
        *rows = d->m, *cols = 1;
        break;
    default:
        *rows = d->m, *cols = d->n;
    }
}

/* Elements an operand spans: (batch - 1) * stride + ld * (cols - 1) + rows;
 * 0 on overflow. */
static uint64_t span(uint64_t rows, uint64_t cols, uint64_t ld, uint64_t batch, uint64_t stride)
{
    uint64_t a, b, s;
    if (__builtin_mul_overflow(ld, cols - 1, &a) || __builtin_mul_overflow(batch - 1, stride, &b) ||
        __builtin_add_overflow(a, b, &s) || __builtin_add_overflow(s, rows, &s))
        return 0;
    return s;
}

static uint64_t operand_bytes(const aoe_gemm_desc *d, aoe_gemm_arg w)
{
    const uint64_t ld[] = {d->lda, d->ldb, d->ldc, d->ldd, d->m};
    const uint64_t stride[] = {d->stride_a, d->stride_b, d->stride_c, d->stride_d, 0};
    const int32_t type[] = {d->a_type, d->b_type, d->c_type, d->d_type,
                            d->bias_type == AOE_GEMM_BIAS_DEFAULT ? d->d_type : d->bias_type};
    uint64_t rows, cols, bits;
    stored(d, w, &rows, &cols);
    /* a bias is one vector for all batches */
    uint64_t n = span(rows, cols, ld[w], w == AOE_GEMM_ARG_BIAS ? 1 : d->batch_count, stride[w]);
    if (!n || __builtin_mul_overflow(n, (uint64_t)aoe_gemm_type_bits(type[w]), &bits)) return 0;
    return bits / 8 + (bits % 8 != 0);
}

static const char *const op_names[] = {"N", "T", "C"};

static int check_ld(const aoe_gemm_desc *d, aoe_gemm_arg w, char *err, size_t errlen)
{
    static const char *const names[] = {"lda", "ldb", "ldc", "ldd"};
    static const char *const ops[] = {"A", "B", "C", "D"};
    const uint64_t ld[] = {d->lda, d->ldb, d->ldc, d->ldd};
    uint64_t rows, cols;
    stored(d, w, &rows, &cols);
    if (ld[w] >= rows) return 0;
    if (w == AOE_GEMM_ARG_A)
        FAIL("lda: %llu is less than the rows of A (%llu: %s, transa %s)",
             (unsigned long long)d->lda, (unsigned long long)rows, d->transa ? "k" : "m",
             op_names[d->transa]);
    if (w == AOE_GEMM_ARG_B)
        FAIL("ldb: %llu is less than the rows of B (%llu: %s, transb %s)",
             (unsigned long long)d->ldb, (unsigned long long)rows, d->transb ? "n" : "k",
             op_names[d->transb]);
    FAIL("%s: %llu is less than the rows of %s (m = %llu)", names[w], (unsigned long long)ld[w],
         ops[w], (unsigned long long)rows);
}

static int check_align(const char *name, uint16_t a, char *err, size_t errlen)
{
    if (a < 1 || a > AOE_GEMM_ALIGN_MAX || (a & (a - 1)))
        FAIL("%s: %u is not a power of two in 1..%u bytes", name, a, AOE_GEMM_ALIGN_MAX);
    return 0;
}

static int check_types(const aoe_gemm_desc *d, char *err, size_t errlen)
{
    static const char *const names[] = {"a_type", "b_type", "c_type", "d_type", "scale_type"};
    const int32_t t[] = {d->a_type, d->b_type, d->c_type, d->d_type, d->scale_type};
    for (int i = 0; i < 5; i++) {
        if (!aoe_gemm_type_bits(t[i]))
            FAIL("%s: %d is not a cudaDataType_t value (0..33)", names[i], t[i]);
        /* CUDA_C_*: 4..7, then every odd value to 27. The tuner fills and
         * scales real operands only, so a complex GEMM passes through. */
        if ((t[i] >= 4 && t[i] <= 7) || (t[i] >= 9 && t[i] <= 27 && t[i] % 2))
            FAIL("%s: %d is a complex type (AOE tunes real GEMMs only)", names[i], t[i]);
    }
    if (!known_compute(d->compute_type))
        FAIL("compute_type: %d is not a cublasComputeType_t value (64, 65, 68..75, 77..79)",
             d->compute_type);
    if (d->transa > 2)
        FAIL("transa: %u is not a cublasOperation_t value (N 0, T 1, C 2)", d->transa);
    if (d->transb > 2)
        FAIL("transb: %u is not a cublasOperation_t value (N 0, T 1, C 2)", d->transb);
    if (!known_epilogue(d->epilogue))
        FAIL("epilogue: %u is not a cublasLtEpilogue_t value", d->epilogue);
    if (d->bias_type != AOE_GEMM_BIAS_DEFAULT && !aoe_gemm_type_bits(d->bias_type))
        FAIL("bias_type: %d is neither -1 (the library's default) nor a cudaDataType_t value",
             d->bias_type);
    if (d->bias_type != AOE_GEMM_BIAS_DEFAULT && !takes_bias(d->epilogue))
        FAIL("bias_type: set, but epilogue %u takes no bias", d->epilogue);
    return 0;
}

static int check_batch(const aoe_gemm_desc *d, char *err, size_t errlen)
{
    if (d->batch_count < 1 || d->batch_count > 2147483647u)
        FAIL("batch_count: %llu is not 1..2147483647", (unsigned long long)d->batch_count);
    if (d->batch_count == 1) {
        if (d->stride_a || d->stride_b || d->stride_c || d->stride_d)
            FAIL("stride_%c: must be 0 when batch_count is 1", d->stride_a   ? 'a'
                                                               : d->stride_b ? 'b'
                                                               : d->stride_c ? 'c'
                                                                             : 'd');
        return 0;
    }
    /* batches of D may not overlap (they are written in parallel); inputs may
     * (a stride of 0 broadcasts one matrix to every batch) */
    uint64_t d_elems = span(d->m, d->n, d->ldd, 1, 0);
    if (d->stride_d < d_elems)
        FAIL("stride_d: %llu is less than one D matrix (%llu elements): batches would overlap",
             (unsigned long long)d->stride_d, (unsigned long long)d_elems);
    return 0;
}

int aoe_gemm_desc_check(const aoe_gemm_desc *d, char *err, size_t errlen)
{
    if (d->path > AOE_GEMM_PATH_BLAS) FAIL("path: %u is not 0 (cublasLt) or 1 (cublas)", d->path);
    if (!aoe_is_identifier(d->library, sizeof d->library))
        FAIL("library: expected the library's name, an identifier of 1..%d characters",
             AOE_GEMM_LIBRARY_LEN - 1);
    if (!d->library_version)
        FAIL("library_version: 0 (expected the library's version, e.g. 130100)");
    if (check_types(d, err, errlen)) return -1;
    const uint64_t dims[] = {d->m, d->n, d->k};
    for (int i = 0; i < 3; i++)
        if (dims[i] < 1 || (double)dims[i] > AOE_GEMM_MAX_BYTES)
            FAIL("%c: %llu is not 1..2^53", "mnk"[i], (unsigned long long)dims[i]);
    for (int w = AOE_GEMM_ARG_A; w <= AOE_GEMM_ARG_D; w++)
        if (check_ld(d, (aoe_gemm_arg)w, err, errlen)) return -1;
    if (check_batch(d, err, errlen)) return -1;
    if (d->pointer_mode > (d->path == AOE_GEMM_PATH_BLAS ? 1 : 4))
        FAIL("pointer_mode: %u is not a %s", d->pointer_mode,
             d->path == AOE_GEMM_PATH_BLAS ? "cublasPointerMode_t value (0, 1)"
                                           : "cublasLtPointerMode_t value (0..4)");
    if (check_align("align_a", d->align_a, err, errlen) ||
        check_align("align_b", d->align_b, err, errlen) ||
        check_align("align_c", d->align_c, err, errlen) ||
        check_align("align_d", d->align_d, err, errlen))
        return -1;
    if (takes_bias(d->epilogue) && check_align("align_bias", d->align_bias, err, errlen)) return -1;
    if (!takes_bias(d->epilogue) && d->align_bias)
        FAIL("align_bias: %u, but epilogue %u takes no bias", d->align_bias, d->epilogue);
    if ((double)d->workspace_limit > AOE_GEMM_MAX_BYTES)
        FAIL("workspace_limit: %llu bytes is above 2^53", (unsigned long long)d->workspace_limit);
    if (d->reduction_mask > 7)
        FAIL("reduction_mask: %u is not a cublasLtReductionScheme_t mask (0..7)",
             d->reduction_mask);
    if (d->sm_count_target > 65536) FAIL("sm_count_target: %u is above 65536", d->sm_count_target);
    if (d->path == AOE_GEMM_PATH_BLAS && d->epilogue != 1)
        FAIL("epilogue: %u, but a cuBLAS call has none (1, DEFAULT)", d->epilogue);
    /* pointer modes 1 and 2 keep beta in device memory: nobody read it */
    if ((d->flags & AOE_GEMM_FLAG_BETA_ZERO) && (d->pointer_mode == 1 || d->pointer_mode == 2))
        FAIL("flags: beta_zero, but pointer_mode %u keeps beta in device memory", d->pointer_mode);
    if (d->flags & ~AOE_GEMM_FLAGS_KNOWN)
        FAIL("flags: unknown bits 0x%x", d->flags & ~AOE_GEMM_FLAGS_KNOWN);
    if (d->path == AOE_GEMM_PATH_BLAS && !(d->flags & AOE_GEMM_FLAG_C_IS_D))
        FAIL("flags: a cuBLAS call writes C in place (c_is_d must be set)");
    if (d->flags & AOE_GEMM_FLAG_C_IS_D) {
        if (d->c_type != d->d_type || d->ldc != d->ldd || d->stride_c != d->stride_d ||
            d->align_c != d->align_d)
            FAIL("flags: c_is_d, but C and D differ in type, leading dimension, stride or "
                 "alignment");
    }
    for (int w = AOE_GEMM_ARG_A; w < (int)aoe_gemm_nargs(d); w++) {
        uint64_t b = operand_bytes(d, (aoe_gemm_arg)w);
        if (!b || (double)b > AOE_GEMM_MAX_BYTES)
            FAIL("%s: the operand spans more than 2^53 bytes",
                 (const char *[]){"lda", "ldb", "ldc", "ldd", "bias_type"}[w]);
    }
    return 0;
}

uint64_t aoe_gemm_operand_bytes(const aoe_gemm_desc *d, aoe_gemm_arg which)
{
    if ((unsigned)which >= aoe_gemm_nargs(d) || aoe_gemm_desc_check(d, NULL, 0)) return 0;
    return operand_bytes(d, which);
}

aoe_key aoe_gemm_key(const char *fingerprint, const aoe_gemm_desc *d)
{
    aoe_opkey_builder b;
    aoe_opkey_begin(&b, 0x414f4547454d4dull); /* "AOEGEMM" */
    aoe_opkey_add_u32(&b, AOE_GEMM_KEY_VERSION);
    aoe_opkey_add_string(&b, fingerprint);
    aoe_opkey_add_u8(&b, d->path);
    aoe_opkey_add_bytes(&b, d->library, (uint32_t)strnlen(d->library, sizeof d->library));
    aoe_opkey_add_u32(&b, d->library_version);
    aoe_opkey_add_u32(&b, (uint32_t)d->a_type);
    aoe_opkey_add_u32(&b, (uint32_t)d->b_type);
    aoe_opkey_add_u32(&b, (uint32_t)d->c_type);
    aoe_opkey_add_u32(&b, (uint32_t)d->d_type);
    aoe_opkey_add_u32(&b, (uint32_t)d->compute_type);
    aoe_opkey_add_u32(&b, (uint32_t)d->scale_type);
    aoe_opkey_add_u8(&b, d->transa);
    aoe_opkey_add_u8(&b, d->transb);
    aoe_opkey_add_u64(&b, d->m);
    aoe_opkey_add_u64(&b, d->n);
    aoe_opkey_add_u64(&b, d->k);
    aoe_opkey_add_u64(&b, d->lda);
    aoe_opkey_add_u64(&b, d->ldb);
    aoe_opkey_add_u64(&b, d->ldc);
    aoe_opkey_add_u64(&b, d->ldd);
    aoe_opkey_add_u64(&b, d->batch_count);
    aoe_opkey_add_u64(&b, d->stride_a);
    aoe_opkey_add_u64(&b, d->stride_b);
    aoe_opkey_add_u64(&b, d->stride_c);
    aoe_opkey_add_u64(&b, d->stride_d);
    aoe_opkey_add_u32(&b, d->epilogue);
    aoe_opkey_add_u32(&b, (uint32_t)d->bias_type);
    aoe_opkey_add_u8(&b, d->pointer_mode);
    aoe_opkey_add_u32(&b, d->align_a);
    aoe_opkey_add_u32(&b, d->align_b);
    aoe_opkey_add_u32(&b, d->align_c);
    aoe_opkey_add_u32(&b, d->align_d);
    aoe_opkey_add_u32(&b, d->align_bias);
    aoe_opkey_add_u64(&b, d->workspace_limit);
    aoe_opkey_add_u32(&b, d->reduction_mask);
    aoe_opkey_add_u32(&b, d->sm_count_target);
    aoe_opkey_add_u32(&b, d->flags);
    return aoe_opkey_finish(&b);
}
