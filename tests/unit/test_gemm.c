/* GEMM library calls as runtime-neutral data: the description's key (golden,
 * every field in it), its checks, the job that carries it (write -> read ->
 * same description and key), the algorithm configuration as a bank policy
 * (round trip, refusals, never applied to a kernel launch) and a real LMDB
 * bank round trip with export and import. */
#include "jobs/gemm.h"
#include "store/bank.h"
#include "store/bank_admin.h"
#include "store/fingerprint.h"
#include "store/gemm_algo.h"
#include "store/policy_check.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FP "cuda|NVIDIA|NVIDIA H100 80GB HBM3|13000|cu=132|arch=sm_90"

static char dir[64];

static void setup(void)
{
    strcpy(dir, "/tmp/aoe-test-gemm-XXXXXX");
    cr_assert(mkdtemp(dir));
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(gemm, .init = setup, .fini = teardown);

static char *path_of(const char *name)
{
    static char p[128];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

/* bf16 Linear without bias as PyTorch calls cuBLASLt: D = A^T B, fp32 compute. */
static aoe_gemm_desc linear_bf16(void)
{
    aoe_gemm_desc d;
    aoe_gemm_desc_init(&d);
    strcpy(d.library, "cublasLt");
    d.library_version = 130100;
    d.a_type = d.b_type = d.c_type = d.d_type = 14; /* CUDA_R_16BF */
    d.compute_type = 68;                            /* CUBLAS_COMPUTE_32F */
    d.scale_type = 0;                               /* CUDA_R_32F */
    d.transa = 1;                                   /* CUBLAS_OP_T */
    d.m = 4096, d.n = 16, d.k = 4096;
    d.lda = 4096, d.ldb = 4096, d.ldc = d.ldd = 4096;
    d.workspace_limit = 1 << 20;
    d.flags = AOE_GEMM_FLAG_BETA_ZERO;
    return d;
}

/* fp16 addmm with a bias epilogue, batched. */
static aoe_gemm_desc bias_batched_f16(void)
{
    aoe_gemm_desc d = linear_bf16();
    d.a_type = d.b_type = d.c_type = d.d_type = 2; /* CUDA_R_16F */
    d.transa = 0;
    d.m = 128, d.n = 64, d.k = 32;
    d.lda = 128, d.ldb = 32, d.ldc = d.ldd = 128;
    d.batch_count = 8;
    d.stride_a = 128 * 32, d.stride_b = 0, d.stride_c = d.stride_d = 128 * 64;
    d.epilogue = 4; /* CUBLASLT_EPILOGUE_BIAS */
    d.bias_type = 2;
    d.align_bias = 16;
    d.align_b = 64;
    return d;
}

/* fp32 cublasSgemm rerouted from the cuBLAS path. */
static aoe_gemm_desc sgemm(void)
{
    aoe_gemm_desc d;
    aoe_gemm_desc_init(&d);
    d.path = AOE_GEMM_PATH_BLAS;
    strcpy(d.library, "cublas");
    d.library_version = 130100;
    d.compute_type = 68;
    d.m = 100, d.n = 200, d.k = 300;
    d.lda = 100, d.ldb = 300, d.ldc = d.ldd = 104;
    d.pointer_mode = 1;
    d.workspace_limit = 32u << 20;
    d.flags = AOE_GEMM_FLAG_C_IS_D;
    return d;
}

/* Field by field (through the encoding that names every field), not memcmp:
 * padding bytes are not part of a description. */
static void expect_same_desc(const aoe_gemm_desc *a, const aoe_gemm_desc *b)
{
    char *x = aoe_gemm_desc_to_json(a), *y = aoe_gemm_desc_to_json(b);
    cr_assert(x && y);
    cr_expect_str_eq(x, y, "descriptions differ");
    free(x);
    free(y);
}

static int key_eq(aoe_key a, aoe_key b)
{
    return a.hi == b.hi && a.lo == b.lo;
}

static void expect_key(aoe_key k, const char *hex)
{
    char got[33];
    aoe_key_to_hex(&k, got);
    cr_expect_str_eq(got, hex, "golden GEMM key changed: %s, committed %s", got, hex);
}

/* Keys are stored in banks: these values must never change (a new field
 * order bumps AOE_GEMM_KEY_VERSION instead). */
Test(gemm, golden_keys)
{
    char err[256];
    aoe_gemm_desc d[3] = {linear_bf16(), bias_batched_f16(), sgemm()};
    for (int i = 0; i < 3; i++)
        cr_assert_eq(aoe_gemm_desc_check(&d[i], err, sizeof err), 0, "%s", err);
    expect_key(aoe_gemm_key(FP, &d[0]), "ea3e2f728986bc17dcb6568fe329bc72");
    expect_key(aoe_gemm_key(FP, &d[1]), "b9c406f6eb4be60afa3d1f25ba6f5343");
    expect_key(aoe_gemm_key(FP, &d[2]), "58f310469f213f9c77c7c75402d0eaaa");
}

/* Every field of the description, and the device, takes part in the key. */
Test(gemm, every_field_changes_the_key)
{
    const aoe_gemm_desc base = bias_batched_f16();
    aoe_key k0 = aoe_gemm_key(FP, &base);
    cr_expect(
        !key_eq(k0, aoe_gemm_key("cuda|NVIDIA|NVIDIA H100 PCIe|13000|cu=114|arch=sm_90", &base)),
        "the device is not in the key");
#define CHANGE(stmt)                                                                               \
    do {                                                                                           \
        aoe_gemm_desc d = base;                                                                    \
        stmt;                                                                                      \
        cr_expect(!key_eq(k0, aoe_gemm_key(FP, &d)), "%s does not change the key", #stmt);         \
    } while (0)
    CHANGE(d.path = AOE_GEMM_PATH_BLAS);
    CHANGE(strcpy(d.library, "cublas"));
    CHANGE(d.library_version = 130000);
    CHANGE(d.a_type = 0);
    CHANGE(d.b_type = 0);
    CHANGE(d.c_type = 0);
    CHANGE(d.d_type = 0);
    CHANGE(d.compute_type = 77);
    CHANGE(d.scale_type = 2);
    CHANGE(d.transa = 1);
    CHANGE(d.transb = 1);
    CHANGE(d.m = 129);
    CHANGE(d.n = 65);
    CHANGE(d.k = 33);
    CHANGE(d.lda = 256);
    CHANGE(d.ldb = 64);
    CHANGE(d.ldc = 256);
    CHANGE(d.ldd = 256);
    CHANGE(d.batch_count = 9);
    CHANGE(d.stride_a = 0);
    CHANGE(d.stride_b = 1);
    CHANGE(d.stride_c = 1);
    CHANGE(d.stride_d = 8193);
    CHANGE(d.epilogue = 36);
    CHANGE(d.bias_type = AOE_GEMM_BIAS_DEFAULT);
    CHANGE(d.pointer_mode = 1);
    CHANGE(d.align_a = 128);
    CHANGE(d.align_b = 128);
    CHANGE(d.align_c = 128);
    CHANGE(d.align_d = 128);
    CHANGE(d.align_bias = 8);
    CHANGE(d.workspace_limit = 0);
    CHANGE(d.reduction_mask = 1);
    CHANGE(d.sm_count_target = 66);
    CHANGE(d.flags = 0);
    CHANGE(d.flags |= AOE_GEMM_FLAG_FAST_ACCUM);
#undef CHANGE
}

Test(gemm, alignment_classes)
{
    cr_expect_eq(aoe_gemm_align_class(0), 256);
    cr_expect_eq(aoe_gemm_align_class(0x7f0000001000ull), 256);
    cr_expect_eq(aoe_gemm_align_class(0x7f0000001080ull), 128);
    cr_expect_eq(aoe_gemm_align_class(0x7f0000001002ull), 2);
    cr_expect_eq(aoe_gemm_align_class(0x7f0000001001ull), 1);
    cr_expect_eq(aoe_gemm_align_class(0x7f0000001010ull), 16);
}

Test(gemm, cuda_fingerprint_form)
{
    char fp[AOE_FINGERPRINT_LEN], arch[AOE_ARCH_LEN];
    aoe_fingerprint_cuda(fp, sizeof fp, "NVIDIA H100 80GB HBM3", 13000, 132, 9, 0);
    cr_expect_str_eq(fp, FP);
    cr_expect_str_eq(aoe_fingerprint_arch(fp, arch, sizeof arch), "sm_90");
    aoe_fingerprint_cuda(fp, sizeof fp, "NVIDIA B200", 13000, 148, 10, 0);
    cr_expect_str_eq(fp, "cuda|NVIDIA|NVIDIA B200|13000|cu=148|arch=sm_100");
}

Test(gemm, operand_sizes)
{
    aoe_gemm_desc d = linear_bf16();
    cr_expect_eq(aoe_gemm_nargs(&d), 4);
    cr_expect_eq(aoe_gemm_operand_bytes(&d, AOE_GEMM_ARG_A), 4096ull * 4096 * 2);
    cr_expect_eq(aoe_gemm_operand_bytes(&d, AOE_GEMM_ARG_B), 4096ull * 16 * 2);
    cr_expect_eq(aoe_gemm_operand_bytes(&d, AOE_GEMM_ARG_D), 4096ull * 16 * 2);
    cr_expect_eq(aoe_gemm_operand_bytes(&d, AOE_GEMM_ARG_BIAS), 0, "no bias, no size");
    d = bias_batched_f16();
    cr_expect_eq(aoe_gemm_nargs(&d), 5);
    /* (batch - 1) * stride + ld * (cols - 1) + rows elements */
    cr_expect_eq(aoe_gemm_operand_bytes(&d, AOE_GEMM_ARG_A), (7ull * 4096 + 128 * 31 + 128) * 2);
    cr_expect_eq(aoe_gemm_operand_bytes(&d, AOE_GEMM_ARG_B), (32ull * 63 + 32) * 2, "broadcast B");
    cr_expect_eq(aoe_gemm_operand_bytes(&d, AOE_GEMM_ARG_BIAS), 128 * 2);
    d = sgemm();
    cr_expect_eq(aoe_gemm_operand_bytes(&d, AOE_GEMM_ARG_C), (104ull * 199 + 100) * 4);
    d.a_type = 33; /* fp4: two per byte, rounded up */
    d.m = 3, d.lda = 3, d.k = 1, d.ldb = 1;
    cr_expect_eq(aoe_gemm_operand_bytes(&d, AOE_GEMM_ARG_A), 2);
    cr_expect_eq(aoe_gemm_elem(33), AOE_ELEM_BYTES);
    cr_expect_eq(aoe_gemm_elem(14), AOE_ELEM_BF16);
    cr_expect_eq(aoe_gemm_elem(0), AOE_ELEM_F32);
}

typedef void (*desc_mutation)(aoe_gemm_desc *d);
#define MUT(name, body)                                                                            \
    static void name(aoe_gemm_desc *d)                                                             \
    {                                                                                              \
        body;                                                                                      \
    }
MUT(m_path, d->path = 2)
MUT(m_library, strcpy(d->library, "cu blas"))
MUT(m_version, d->library_version = 0)
MUT(m_atype, d->a_type = 34)
MUT(m_dtype, d->d_type = -3)
MUT(m_compute, d->compute_type = 66)
MUT(m_transa, d->transa = 3)
MUT(m_m, d->m = 0)
MUT(m_k, d->k = 0)
MUT(m_lda, d->lda = 100)
MUT(m_lda_n, (d->transa = 0, d->lda = 4095))
MUT(m_ldb, d->ldb = 4095)
MUT(m_ldd, d->ldd = 4000)
MUT(m_batch0, d->batch_count = 0)
MUT(m_stride_unbatched, d->stride_b = 5)
MUT(m_stride_overlap, (d->batch_count = 2, d->stride_d = 4096 * 15))
MUT(m_epilogue, d->epilogue = 3)
MUT(m_bias_no_epilogue, d->bias_type = 2)
MUT(m_bias_type, (d->epilogue = 4, d->bias_type = 99, d->align_bias = 4))
MUT(m_bias_align, d->epilogue = 4)
MUT(m_align_bias_no_bias, d->align_bias = 16)
MUT(m_align, d->align_a = 48)
MUT(m_pointer_mode, d->pointer_mode = 5)
MUT(m_blas_pointer_mode,
    (d->path = AOE_GEMM_PATH_BLAS, d->flags = AOE_GEMM_FLAG_C_IS_D, d->pointer_mode = 2))
MUT(m_blas_in_place, d->path = AOE_GEMM_PATH_BLAS)
MUT(m_c_is_d, (d->flags = AOE_GEMM_FLAG_C_IS_D, d->ldc = 4100))
MUT(m_flags, d->flags = 16)
MUT(m_beta_device, d->pointer_mode = 1)
MUT(m_blas_epilogue,
    (d->path = AOE_GEMM_PATH_BLAS, d->flags = AOE_GEMM_FLAG_C_IS_D, d->epilogue = 2))
MUT(m_reduction, d->reduction_mask = 8)
MUT(m_huge, d->n = 1ull << 41)
MUT(m_complex, d->a_type = d->b_type = 4) /* CUDA_C_32F: CuPy's complex matmul */

Test(gemm, check_names_the_field)
{
    static const struct {
        desc_mutation m;
        const char *message;
    } cases[] = {
        {m_path, "path: 2 is not 0 (cublasLt) or 1 (cublas)"},
        {m_library, "library: expected the library's name"},
        {m_version, "library_version: 0"},
        {m_atype, "a_type: 34 is not a cudaDataType_t value"},
        {m_dtype, "d_type: -3 is not"},
        {m_compute, "compute_type: 66 is not a cublasComputeType_t value"},
        {m_transa, "transa: 3 is not a cublasOperation_t value"},
        {m_m, "m: 0 is not 1..2^53"},
        {m_k, "k: 0 is not 1..2^53"},
        {m_lda, "lda: 100 is less than the rows of A (4096: k, transa T)"},
        {m_lda_n, "lda: 4095 is less than the rows of A (4096: m, transa N)"},
        {m_ldb, "ldb: 4095 is less than the rows of B (4096: k, transb N)"},
        {m_ldd, "ldd: 4000 is less than the rows of D (m = 4096)"},
        {m_batch0, "batch_count: 0 is not 1..2147483647"},
        {m_stride_unbatched, "stride_b: must be 0 when batch_count is 1"},
        {m_stride_overlap, "stride_d: 61440 is less than one D matrix (65536 elements)"},
        {m_epilogue, "epilogue: 3 is not a cublasLtEpilogue_t value"},
        {m_bias_no_epilogue, "bias_type: set, but epilogue 1 takes no bias"},
        {m_bias_type, "bias_type: 99 is neither -1"},
        {m_bias_align, "align_bias: 0 is not a power of two in 1..256 bytes"},
        {m_align_bias_no_bias, "align_bias: 16, but epilogue 1 takes no bias"},
        {m_align, "align_a: 48 is not a power of two"},
        {m_pointer_mode, "pointer_mode: 5 is not a cublasLtPointerMode_t value"},
        {m_blas_pointer_mode, "pointer_mode: 2 is not a cublasPointerMode_t value"},
        {m_blas_in_place, "flags: a cuBLAS call writes C in place"},
        {m_c_is_d, "flags: c_is_d, but C and D differ"},
        {m_flags, "flags: unknown bits 0x10"},
        {m_beta_device, "flags: beta_zero, but pointer_mode 1 keeps beta in device memory"},
        {m_blas_epilogue, "epilogue: 2, but a cuBLAS call has none (1, DEFAULT)"},
        {m_reduction, "reduction_mask: 8 is not"},
        {m_huge, "ldb: the operand spans more than 2^53 bytes"},
        {m_complex, "a_type: 4 is a complex type (AOE tunes real GEMMs only)"},
    };
    char err[256];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        aoe_gemm_desc d = linear_bf16();
        cases[i].m(&d);
        err[0] = '\0';
        cr_expect_eq(aoe_gemm_desc_check(&d, err, sizeof err), -1, "case %zu passed", i);
        cr_expect(strstr(err, cases[i].message) == err, "case %zu: '%s', expected '%s...'", i, err,
                  cases[i].message);
    }
}

Test(gemm, json_round_trip)
{
    char err[256];
    aoe_gemm_desc ds[3] = {linear_bf16(), bias_batched_f16(), sgemm()};
    for (int i = 0; i < 3; i++) {
        char *text = aoe_gemm_desc_to_json(&ds[i]);
        cr_assert_not_null(text);
        aoe_gemm_desc back;
        cr_assert_eq(aoe_gemm_desc_from_json(text, &back, err, sizeof err), 0, "%s", err);
        cr_expect(key_eq(aoe_gemm_key(FP, &back), aoe_gemm_key(FP, &ds[i])));
        expect_same_desc(&back, &ds[i]);
        free(text);
    }
    /* the optional fields default; the required ones are named when missing */
    const char *min = "{\"path\":\"lt\",\"library\":\"cublasLt\",\"library_version\":130100,"
                      "\"a_type\":0,\"b_type\":0,\"c_type\":0,\"d_type\":0,\"compute_type\":68,"
                      "\"scale_type\":0,\"transa\":0,\"transb\":0,\"m\":2,\"n\":3,\"k\":4,"
                      "\"lda\":2,\"ldb\":4,\"ldc\":2,\"ldd\":2}";
    aoe_gemm_desc d;
    cr_assert_eq(aoe_gemm_desc_from_json(min, &d, err, sizeof err), 0, "%s", err);
    cr_expect_eq(d.batch_count, 1);
    cr_expect_eq(d.epilogue, 1);
    cr_expect_eq(d.bias_type, -1);
    cr_expect_eq(d.align_d, 256);
    cr_expect_eq(d.reduction_mask, 7);
    static const struct {
        const char *text, *message;
    } bad[] = {
        {"{\"path\":\"lt\"}", "gemm.library: missing"},
        {"{\"path\":\"gemv\",\"library\":\"x\"}",
         "gemm.path: unknown (expected \"lt\" or \"blas\")"},
        {"[1]", "gemm: expected an object"},
        {"{\"path\":\"lt\",\"library\":\"cublasLt\",\"lda\":-1}", "gemm.library_version: missing"},
        {"{\"path\":\"lt\",\"library\":\"cublasLt\",\"tile\":1}", "gemm.tile: unknown"},
        {"{\"path\":\"lt\",\"library\":\"cublasLt\",\"library_version\":1,\"a_type\":0,"
         "\"b_type\":0,\"c_type\":0,\"d_type\":0,\"compute_type\":68,\"scale_type\":0,"
         "\"transa\":0,\"transb\":0,\"m\":2,\"n\":3,\"k\":4,\"lda\":2,\"ldb\":4,\"ldc\":2,"
         "\"ldd\":2,\"bias_type\":-2}",
         "gemm.bias_type: expected -1 or an integer in 0..2147483647"},
        {"{\"path\":\"lt\",\"library\":\"cublasLt\",\"library_version\":1,\"a_type\":0,"
         "\"b_type\":0,\"c_type\":0,\"d_type\":0,\"compute_type\":68,\"scale_type\":0,"
         "\"transa\":0,\"transb\":0,\"m\":2,\"n\":3,\"k\":4,\"lda\":1,\"ldb\":4,\"ldc\":2,"
         "\"ldd\":2}",
         "gemm.lda: 1 is less than the rows of A (2: m, transa N)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        cr_expect_eq(aoe_gemm_desc_from_json(bad[i].text, &d, err, sizeof err), -1);
        cr_expect(strstr(err, bad[i].message) == err, "'%s', expected '%s...'", err,
                  bad[i].message);
    }
}

Test(gemm, job_write_read_same_desc_and_key)
{
    char err[256];
    aoe_gemm_desc ds[3] = {linear_bf16(), bias_batched_f16(), sgemm()};
    for (int i = 0; i < 3; i++) {
        aoe_job j, r;
        cr_assert_eq(aoe_gemm_job_make(&j, FP, &ds[i], NULL), 0, "%s", strerror(errno));
        cr_expect(key_eq(j.key, aoe_gemm_key(FP, &ds[i])));
        cr_expect(key_eq(aoe_job_compute_key(&j), j.key), "the job keys like aoe_gemm_key");
        cr_expect_eq(j.nargs, aoe_gemm_nargs(&ds[i]));
        cr_expect_eq(j.args[0].elem, aoe_gemm_elem(ds[i].a_type));
        cr_assert_eq(aoe_job_write(path_of("gemm.job"), &j), 0, "%s", strerror(errno));
        cr_assert_eq(aoe_job_read(path_of("gemm.job"), &r, err, sizeof err), 0, "%s", err);
        cr_expect_str_eq(r.runtime, "cublas");
        cr_expect_eq(r.op, AOE_OP_LIBRARY_CALL);
        cr_expect_str_eq(r.kernel_name, "gemm");
        cr_expect(key_eq(r.key, j.key));
        aoe_gemm_desc back;
        cr_assert_eq(aoe_gemm_from_job(&r, &back, err, sizeof err), 0, "%s", err);
        expect_same_desc(&back, &ds[i]);
        for (uint32_t a = 0; a < j.nargs; a++) {
            cr_expect_eq(r.args[a].kind, AOE_JOB_ARG_BUFFER);
            cr_expect_eq(r.args[a].size, j.args[a].size);
            cr_expect_eq(r.args[a].elem, j.args[a].elem);
            cr_expect_null(r.args[a].data, "synthetic");
        }
        aoe_job_free(&r);
        aoe_job_free(&j);
    }
}

/* Writes a made job with one change the reader must refuse, naming the field. */
static void expect_refused(void (*change)(cJSON *root), const char *message)
{
    aoe_gemm_desc d = bias_batched_f16();
    aoe_job j, r;
    char err[256] = "";
    cr_assert_eq(aoe_gemm_job_make(&j, FP, &d, NULL), 0);
    cr_assert_eq(aoe_job_write(path_of("in.job"), &j), 0);
    FILE *f = fopen(path_of("in.job"), "r");
    cr_assert_not_null(f);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    cJSON *root = cJSON_Parse(text);
    cr_assert_not_null(root);
    change(root);
    char *out = cJSON_Print(root);
    cr_expect_eq(aoe_job_parse(out, strlen(out), &r, err, sizeof err), -1, "accepted");
    cr_expect(strstr(err, message) == err, "'%s', expected '%s...'", err, message);
    free(out);
    cJSON_Delete(root);
    aoe_job_free(&j);
}

static cJSON *gemm_obj(cJSON *root)
{
    return cJSON_GetObjectItem(cJSON_GetObjectItem(root, "runtime_extra"), "gemm");
}
static void r_no_desc(cJSON *root)
{
    cJSON_DeleteItemFromObject(root, "runtime_extra");
}
static void r_bad_ld(cJSON *root)
{
    cJSON_ReplaceItemInObject(gemm_obj(root), "ldd", cJSON_CreateNumber(12));
}
static void r_arg_size(cJSON *root)
{
    cJSON *a = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "args"), 1);
    cJSON_ReplaceItemInObject(a, "size", cJSON_CreateNumber(64));
}
static void r_arg_type(cJSON *root)
{
    cJSON *a = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "args"), 0);
    cJSON_ReplaceItemInObject(a, "type", cJSON_CreateString("bf16"));
}
static void r_no_bias_arg(cJSON *root)
{
    cJSON_DeleteItemFromArray(cJSON_GetObjectItem(root, "args"), 4);
}
static void r_scalar_arg(cJSON *root)
{
    cJSON *a = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "args"), 2);
    cJSON_ReplaceItemInObject(a, "kind", cJSON_CreateString("scalar"));
    cJSON_DeleteItemFromObject(a, "synthetic");
    cJSON_AddStringToObject(a, "data_b64", "AAAAAAAAAAA=");
    cJSON_ReplaceItemInObject(a, "size", cJSON_CreateNumber(8));
}
static void r_edited(cJSON *root)
{
    /* a valid description, but not the one the key was made of */
    cJSON_ReplaceItemInObject(gemm_obj(root), "workspace_limit", cJSON_CreateNumber(4096));
}

Test(gemm, reader_refuses_inconsistent_gemm_jobs)
{
    expect_refused(r_no_desc, "runtime_extra.gemm: missing");
    expect_refused(r_bad_ld, "runtime_extra.gemm.ldd: 12 is less than the rows of D");
    expect_refused(r_arg_size, "args[1].size: B spans 4096 bytes, not 64");
    expect_refused(r_arg_type, "args[0].type: A holds f16");
    expect_refused(r_no_bias_arg, "args: 4 arguments, but this GEMM has 5");
    expect_refused(r_scalar_arg, "args[2].kind: C is a buffer");
    expect_refused(r_edited, "key: does not match the job's contents");
}

Test(gemm, writer_and_maker_refuse_what_the_reader_would)
{
    aoe_gemm_desc d = linear_bf16();
    aoe_job j;
    d.lda = 1;
    errno = 0;
    cr_expect_eq(aoe_gemm_job_make(&j, FP, &d, NULL), -1);
    cr_expect_eq(errno, EINVAL);
    d = linear_bf16();
    cr_assert_eq(aoe_gemm_job_make(&j, FP, &d, NULL), 0);
    j.args[3].size += 2; /* D no longer matches the description */
    errno = 0;
    cr_expect_eq(aoe_job_write(path_of("bad.job"), &j), -1);
    cr_expect_eq(errno, EINVAL);
    cr_expect_neq(access(path_of("bad.job"), F_OK), 0, "a refused job left a file");
    aoe_job_free(&j);
}

/* Library calls under another runtime (or another name) key as before. */
Test(gemm, other_library_calls_keep_their_keys)
{
    aoe_gemm_desc d = sgemm();
    aoe_job j;
    cr_assert_eq(aoe_gemm_job_make(&j, FP, &d, NULL), 0);
    aoe_key gemm_key = aoe_job_compute_key(&j);
    free(j.runtime);
    j.runtime = strdup("cublaslt");
    cr_expect(!aoe_job_is_gemm(&j));
    cr_expect(!key_eq(aoe_job_compute_key(&j), gemm_key));
    /* a GEMM job whose description fails keys like nothing the hook computes */
    free(j.runtime);
    j.runtime = strdup("cublas");
    j.args[0].size = 4;
    aoe_key none = aoe_job_compute_key(&j);
    cr_expect(none.hi == 0 && none.lo == 0);
    aoe_job_free(&j);
}

static aoe_gemm_algo sample_algo(void)
{
    aoe_gemm_algo a;
    aoe_gemm_algo_init(&a);
    a.algo = 66;
    a.tile = 20;
    a.stages = 35;
    a.splitk = 4;
    a.reduction = 2;
    a.swizzle = 1;
    a.custom = 3;
    a.inner_shape = 5;
    a.cluster_shape = 2;
    a.workspace = 4u << 20;
    return a;
}

Test(gemm, algo_policy_round_trip)
{
    char err[256];
    aoe_gemm_algo a = sample_algo(), back;
    aoe_policy p;
    cr_assert_eq(aoe_gemm_algo_to_policy(&a, &p, err, sizeof err), 0, "%s", err);
    static const char *const names[] = {"algo",          "tile",     "stages", "splitk",
                                        "reduction",     "swizzle",  "custom", "inner_shape",
                                        "cluster_shape", "workspace"};
    cr_assert_eq(p.n_params, 10);
    for (int i = 0; i < 10; i++) {
        cr_expect_str_eq(p.params[i].name, names[i]);
        cr_expect_eq(p.params[i].kind, AOE_PARAM_LIBRARY_ATTR);
    }
    cr_assert_eq(aoe_gemm_algo_from_policy(&p, &back, err, sizeof err), 0, "%s", err);
    cr_expect_eq(memcmp(&a, &back, sizeof a), 0);
    /* the largest values of every field pass the record rules too */
    a.algo = 2147483647, a.tile = a.stages = a.custom = a.workspace = 4294967295u;
    a.splitk = 2147483647, a.reduction = 4, a.inner_shape = a.cluster_shape = 65535;
    cr_assert_eq(aoe_gemm_algo_to_policy(&a, &p, err, sizeof err), 0, "%s", err);
    aoe_record rec;
    memset(&rec, 0, sizeof rec);
    strcpy(rec.runtime, "cublas");
    strcpy(rec.kernel_name, "gemm");
    rec.policy = p;
    cr_expect_eq(aoe_record_check(&rec, err, sizeof err), 0, "%s", err);
    cr_assert_eq(aoe_gemm_algo_from_policy(&p, &back, err, sizeof err), 0, "%s", err);
    cr_expect_eq(memcmp(&a, &back, sizeof a), 0);
    /* order does not matter; absent attributes take their defaults */
    aoe_policy q;
    memset(&q, 0, sizeof q);
    q.work_dim = 1;
    q.n_params = 2;
    q.params[0] = (aoe_param){"swizzle", 1, {AOE_PARAM_LIBRARY_ATTR}};
    q.params[1] = (aoe_param){"algo", 7, {AOE_PARAM_LIBRARY_ATTR}};
    cr_assert_eq(aoe_gemm_algo_from_policy(&q, &back, err, sizeof err), 0, "%s", err);
    cr_expect_eq(back.algo, 7);
    cr_expect_eq(back.swizzle, 1);
    cr_expect_eq(back.splitk, 1);
}

Test(gemm, algo_refusals)
{
    char err[256];
    aoe_gemm_algo a = sample_algo(), back;
    aoe_policy p;
    a.swizzle = 2;
    cr_expect_eq(aoe_gemm_algo_to_policy(&a, &p, err, sizeof err), -1);
    cr_expect_str_eq(err, "swizzle: 2 is outside 0..1 (CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING)");
    a = sample_algo();
    a.splitk = 0;
    cr_expect_eq(aoe_gemm_algo_check(&a, err, sizeof err), -1);
    cr_expect(strstr(err, "splitk: 0 is outside 1..") == err, "%s", err);
    a = sample_algo();
    a.reduction = 3;
    cr_expect_eq(aoe_gemm_algo_check(&a, err, sizeof err), -1);
    cr_expect(strstr(err, "reduction: 3 is not one") == err, "%s", err);
    a = sample_algo();
    a.algo = -1;
    cr_expect_eq(aoe_gemm_algo_check(&a, err, sizeof err), -1);
#define FROM(mutate, message)                                                                      \
    do {                                                                                           \
        aoe_gemm_algo s = sample_algo();                                                           \
        cr_assert_eq(aoe_gemm_algo_to_policy(&s, &p, err, sizeof err), 0);                         \
        mutate;                                                                                    \
        err[0] = '\0';                                                                             \
        cr_expect_eq(aoe_gemm_algo_from_policy(&p, &back, err, sizeof err), -1, #mutate);          \
        cr_expect(strstr(err, message) == err, "'%s', expected '%s...'", err, message);            \
    } while (0)
    FROM(strcpy(p.params[2].name, "STAGES"), "param STAGES: not a GEMM algorithm attribute");
    FROM(p.params[1].kind = AOE_PARAM_DEFINE,
         "param tile: kind define, expected library_attribute");
    FROM(strcpy(p.params[1].name, "algo"), "param algo appears twice");
    FROM(p.params[3].value = 1LL << 31, "splitk: 2147483648 is outside 1..2147483647");
    FROM(p.params[8].value = 65536, "cluster_shape: 65536 is outside 0..65535");
    FROM(p.params[9].value = -1, "workspace: -1 is outside 0..4294967295");
    FROM((p.params[0] = p.params[9], p.n_params = 9), "param algo: missing");
    FROM(p.global[0] = 64, "work sizes set");
#undef FROM
}

/* A GEMM record is a library call's policy: the kernel-launch path refuses it. */
Test(gemm, record_never_applied_to_a_kernel_launch)
{
    char err[256], defines[256];
    aoe_gemm_algo a = sample_algo();
    aoe_record rec;
    memset(&rec, 0, sizeof rec);
    strcpy(rec.runtime, "cublas");
    strcpy(rec.kernel_name, "gemm");
    rec.tuned_us = 10;
    cr_assert_eq(aoe_gemm_algo_to_policy(&a, &rec.policy, err, sizeof err), 0);
    cr_assert_eq(aoe_record_check(&rec, err, sizeof err), 0, "%s", err);
    aoe_policy_sizes sizes;
    cr_expect_eq(aoe_policy_prepare(&rec, &sizes, defines, sizeof defines, err, sizeof err), -1);
    cr_expect_str_eq(err, "param algo: a library attribute, not applicable to a kernel launch");
    cr_expect_str_eq(defines, "");
    /* also when the record also holds a define (one stray parameter of a kernel policy) */
    rec.policy.params[9] = (aoe_param){"TILE", 8, {AOE_PARAM_DEFINE}};
    cr_expect_eq(aoe_policy_prepare(&rec, &sizes, defines, sizeof defines, err, sizeof err), -1);
    cr_expect_str_eq(defines, "");
}

static int count_records(void *ctx, const char *fp, const aoe_key *key, const aoe_record *rec)
{
    (void)fp, (void)key, (void)rec;
    ++*(int *)ctx;
    return 0;
}

Test(gemm, bank_round_trip_with_export_and_import)
{
    char err[512] = "", bank1[128], bank2[128];
    snprintf(bank1, sizeof bank1, "%s/bank1", dir);
    snprintf(bank2, sizeof bank2, "%s/bank2", dir);
    aoe_gemm_desc d = bias_batched_f16();
    aoe_key key = aoe_gemm_key(FP, &d);
    aoe_gemm_algo a = sample_algo(), back;
    aoe_record rec, got;
    memset(&rec, 0, sizeof rec);
    strcpy(rec.runtime, "cublas");
    strcpy(rec.kernel_name, "gemm");
    rec.default_us = 30, rec.tuned_us = 21.5, rec.evaluations = 40;
    strcpy(rec.strategy, "gemm_candidates");
    strcpy(rec.summary, "gemm f16 128x64x32 batch 8 bias");
    cr_assert_eq(aoe_gemm_algo_to_policy(&a, &rec.policy, err, sizeof err), 0);
    aoe_bank *b = aoe_bank_open(bank1, AOE_BANK_READWRITE, err, sizeof err);
    cr_assert_not_null(b, "%s", err);
    cr_assert_eq(aoe_bank_put_if_better(b, FP, &key, &rec, 0.02), AOE_PUT_ADDED);
    cr_assert_eq(aoe_bank_get(b, FP, &key, &got), 1);
    cr_assert_eq(aoe_gemm_algo_from_policy(&got.policy, &back, err, sizeof err), 0, "%s", err);
    cr_expect_eq(memcmp(&a, &back, sizeof a), 0, "the bank changed the configuration");
    /* export: the library attributes by name and kind */
    FILE *f = fopen(path_of("export.json"), "w+");
    cr_assert_not_null(f);
    cr_assert_eq(aoe_bank_export_json(b, NULL, f, err, sizeof err), 1, "%s", err);
    aoe_bank_close(b);
    long len = ftell(f);
    rewind(f);
    char *text = calloc(1, (size_t)len + 1);
    cr_assert_eq(fread(text, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    cr_expect_not_null(
        strstr(text, "{\"name\":\"splitk\",\"value\":4,\"kind\":\"library_attribute\""), "%s",
        text);
    cr_expect_not_null(strstr(text, "\"runtime\":\"cublas\""));
    /* import into another bank: the same configuration under the same key */
    aoe_bank *b2 = aoe_bank_open(bank2, AOE_BANK_READWRITE, err, sizeof err);
    cr_assert_not_null(b2, "%s", err);
    aoe_bank_counts counts;
    cr_assert_eq(
        aoe_bank_import_json(b2, text, (size_t)len, 0.02, NULL, NULL, &counts, err, sizeof err), 0,
        "%s", err);
    cr_expect_eq(counts.added, 1);
    cr_expect_eq(counts.rejected, 0);
    memset(&got, 0, sizeof got);
    cr_assert_eq(aoe_bank_get(b2, FP, &key, &got), 1);
    cr_assert_eq(aoe_gemm_algo_from_policy(&got.policy, &back, err, sizeof err), 0, "%s", err);
    cr_expect_eq(memcmp(&a, &back, sizeof a), 0, "export/import changed the configuration");
    int n = 0;
    cr_expect_eq(aoe_bank_foreach(b2, FP, count_records, &n), 0);
    cr_expect_eq(n, 1);
    aoe_bank_close(b2);
    free(text);
}

/* The library-default form (no parameters): "the library's own call is the
 * best known". It passes the record rules, survives the bank, export and
 * import, is told apart from every configuration and is no configuration. */
Test(gemm, library_default_form)
{
    char err[512] = "", bank1[128], bank2[128];
    aoe_policy p, q;
    aoe_gemm_algo back;
    memset(&p, 0xa5, sizeof p);
    aoe_gemm_library_default_policy(&p);
    cr_expect_eq(p.work_dim, 1);
    cr_expect_eq(p.n_params, 0);
    cr_expect(aoe_gemm_policy_is_library_default(&p));
    cr_expect_eq(aoe_gemm_algo_from_policy(&p, &back, err, sizeof err), -1);
    cr_expect(strstr(err, "no parameters: the library-default form") == err, "%s", err);
    /* not the form: a configuration, work sizes, another work_dim */
    aoe_gemm_algo a = sample_algo();
    cr_assert_eq(aoe_gemm_algo_to_policy(&a, &q, err, sizeof err), 0);
    cr_expect_not(aoe_gemm_policy_is_library_default(&q));
    q = p, q.global[0] = 64;
    cr_expect_not(aoe_gemm_policy_is_library_default(&q));
    q = p, q.local[2] = 1;
    cr_expect_not(aoe_gemm_policy_is_library_default(&q));
    q = p, q.work_dim = 2;
    cr_expect_not(aoe_gemm_policy_is_library_default(&q));
    q = p, q.work_dim = 0;
    cr_expect_not(aoe_gemm_policy_is_library_default(&q));
    /* a record of it passes the record rules and round-trips the bank */
    aoe_record rec, got;
    memset(&rec, 0, sizeof rec);
    strcpy(rec.runtime, "cublas");
    strcpy(rec.kernel_name, "gemm");
    rec.default_us = rec.tuned_us = 12.5;
    strcpy(rec.summary, "gemm policy: default");
    rec.policy = p;
    cr_assert_eq(aoe_record_check(&rec, err, sizeof err), 0, "%s", err);
    snprintf(bank1, sizeof bank1, "%s/bank1", dir);
    snprintf(bank2, sizeof bank2, "%s/bank2", dir);
    aoe_gemm_desc d = linear_bf16();
    d.path = AOE_GEMM_PATH_BLAS;
    strcpy(d.library, "cublas");
    aoe_key key = aoe_gemm_key(FP, &d);
    aoe_bank *b = aoe_bank_open(bank1, AOE_BANK_READWRITE, err, sizeof err);
    cr_assert_not_null(b, "%s", err);
    cr_assert_eq(aoe_bank_put_if_better(b, FP, &key, &rec, 0.02), AOE_PUT_ADDED);
    memset(&got, 0, sizeof got);
    cr_assert_eq(aoe_bank_get(b, FP, &key, &got), 1);
    cr_expect(aoe_gemm_policy_is_library_default(&got.policy));
    FILE *f = fopen(path_of("export.json"), "w+");
    cr_assert_not_null(f);
    cr_assert_eq(aoe_bank_export_json(b, NULL, f, err, sizeof err), 1, "%s", err);
    aoe_bank_close(b);
    long len = ftell(f);
    rewind(f);
    char *text = calloc(1, (size_t)len + 1);
    cr_assert_eq(fread(text, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    aoe_bank *b2 = aoe_bank_open(bank2, AOE_BANK_READWRITE, err, sizeof err);
    cr_assert_not_null(b2, "%s", err);
    aoe_bank_counts counts;
    cr_assert_eq(
        aoe_bank_import_json(b2, text, (size_t)len, 0.02, NULL, NULL, &counts, err, sizeof err), 0,
        "%s", err);
    cr_expect_eq(counts.added, 1, "%s", text);
    cr_expect_eq(counts.rejected, 0, "%s", text);
    memset(&got, 0, sizeof got);
    cr_assert_eq(aoe_bank_get(b2, FP, &key, &got), 1);
    cr_expect(aoe_gemm_policy_is_library_default(&got.policy), "%s", text);
    aoe_bank_close(b2);
    free(text);
}

/* Where the program's cuBLASLt lies travels with the job (the tuner loads
 * that one), survives a write and a read, and is not part of the key. */
Test(gemm, the_library_directory_travels_outside_the_key)
{
    aoe_gemm_desc d = linear_bf16();
    aoe_job j, plain, r;
    char dir[64], err[256] = "";
    cr_assert_eq(aoe_gemm_job_make(&j, FP, &d, "/opt/wheel/nvidia/cublas/lib"), 0);
    cr_assert_eq(aoe_gemm_job_make(&plain, FP, &d, NULL), 0);
    cr_expect(key_eq(j.key, plain.key), "the directory changed the key");
    cr_assert_eq(aoe_job_write(path_of("dir.job"), &j), 0, "%s", strerror(errno));
    cr_assert_eq(aoe_job_read(path_of("dir.job"), &r, err, sizeof err), 0, "%s", err);
    cr_expect_eq(aoe_gemm_job_lib_dir(&r, dir, sizeof dir, err, sizeof err), 0, "%s", err);
    cr_expect_str_eq(dir, "/opt/wheel/nvidia/cublas/lib");
    cr_expect_eq(aoe_gemm_job_lib_dir(&plain, dir, sizeof dir, err, sizeof err), 0);
    cr_expect_str_eq(dir, "", "a job without one names none");
    /* one that does not fit, and a relative one, are refused with the field's name */
    cr_expect_eq(aoe_gemm_job_lib_dir(&r, dir, 8, err, sizeof err), -1);
    cr_expect(strstr(err, "runtime_extra.cublas_dir: expected an absolute path") == err, "%s", err);
    free(r.runtime_extra);
    r.runtime_extra = strdup("{\"gemm\": {}, \"cublas_dir\": \"lib\"}");
    cr_expect_eq(aoe_gemm_job_lib_dir(&r, dir, sizeof dir, err, sizeof err), -1);
    free(r.runtime_extra);
    r.runtime_extra = strdup("{\"gemm\": {}, \"cublas_dir\": 7}");
    cr_expect_eq(aoe_gemm_job_lib_dir(&r, dir, sizeof dir, err, sizeof err), -1);
    errno = 0;
    aoe_job_free(&j);
    cr_expect_eq(aoe_gemm_job_make(&j, FP, &d, "relative/lib"), -1);
    cr_expect_eq(errno, EINVAL);
    aoe_job_free(&plain);
    aoe_job_free(&r);
}
