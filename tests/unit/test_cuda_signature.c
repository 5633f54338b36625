/* hooks/cuda_signature.c: a CUDA kernel's parameters from its source, found
 * by plain or lowered name (the lowered names below are g++'s Itanium
 * manglings of the same declarations). */
#include "hooks/cuda_signature.h"

#include <criterion/criterion.h>

static aoe_cu_sig_param P[AOE_CU_SIG_MAX_PARAMS];

static void expect(int i, int pointer, int konst, aoe_elem_type elem, uint32_t size)
{
    cr_expect_eq(P[i].pointer, pointer, "param %d pointer", i);
    cr_expect_eq(P[i].pointee_const, konst, "param %d const", i);
    cr_expect_eq(P[i].elem, elem, "param %d elem %d", i, (int)P[i].elem);
    cr_expect_eq(P[i].size, size, "param %d size %u", i, P[i].size);
}

Test(cuda_signature, extern_c_by_plain_name)
{
    const char *src =
        "// __global__ void vadd(int x) in a comment\n"
        "/* __global__ void vadd(double *y) */\n"
        "#define K __global__ void vadd(char c)\n"
        "extern \"C\" __global__ void vadd(float* c, const float* a, const float* b, int n)\n"
        "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] + b[i]; }\n";
    cr_assert_eq(aoe_cu_signature(src, "vadd", P, AOE_CU_SIG_MAX_PARAMS), 4);
    expect(0, 1, 0, AOE_ELEM_F32, 8);
    expect(1, 1, 1, AOE_ELEM_F32, 8);
    expect(2, 1, 1, AOE_ELEM_F32, 8);
    expect(3, 0, 0, AOE_ELEM_I32, 4);
    /* extern "C": the lowered name is the plain one; no mangled name matches */
    cr_expect_eq(aoe_cu_signature(src, "_Z4vaddPfPKfS1_i", P, 8), AOE_CU_SIG_NOT_FOUND);
}

Test(cuda_signature, mangled_with_substitutions)
{
    const char *src =
        "__global__ void k(float *a, const float *b, const float *c, int n) {}\n"
        "__global__ void __launch_bounds__(256, 2)\n"
        "h(__half *o, const __half *i, half s, unsigned long n,\n"
        "  const __nv_bfloat16* b, __nv_bfloat16 *c) {}\n"
        "__global__ void z() {}\n"
        "__global__ void d(double **p, const double *q, size_t n, signed char c,\n"
        "                  long long x, unsigned u, const float * const __restrict__ r) {}\n";
    cr_assert_eq(aoe_cu_signature(src, "_Z1kPfPKfS1_i", P, 8), 4);
    expect(2, 1, 1, AOE_ELEM_F32, 8);
    cr_assert_eq(aoe_cu_signature(src, "_Z1hP6__halfPKS_S_mPK13__nv_bfloat16PS3_", P, 8), 6);
    expect(0, 1, 0, AOE_ELEM_F16, 8);
    expect(1, 1, 1, AOE_ELEM_F16, 8);
    expect(2, 0, 0, AOE_ELEM_F16, 2);
    expect(3, 0, 0, AOE_ELEM_U64, 8);
    expect(4, 1, 1, AOE_ELEM_BF16, 8);
    expect(5, 1, 0, AOE_ELEM_BF16, 8);
    cr_assert_eq(aoe_cu_signature(src, "_Z1zv", P, 8), 0);
    cr_assert_eq(aoe_cu_signature(src, "_Z1dPPdPKdmaxjPKf", P, 8), 7);
    expect(0, 1, 0, AOE_ELEM_BYTES, 8); /* a pointer to pointers: opaque */
    expect(1, 1, 1, AOE_ELEM_F64, 8);
    expect(3, 0, 0, AOE_ELEM_I8, 1);
    expect(4, 0, 0, AOE_ELEM_I64, 8);
    expect(5, 0, 0, AOE_ELEM_U32, 4);
    expect(6, 1, 1, AOE_ELEM_F32, 8); /* the pointer's own const and restrict: not the pointee's */
    /* the wrong mangling of a known name: another overload, not this one */
    cr_expect_eq(aoe_cu_signature(src, "_Z1kPfPKfPKfi", P, 8), AOE_CU_SIG_NOT_FOUND);
}

Test(cuda_signature, extern_c_block_and_void)
{
    const char *src = "extern \"C\" {\n"
                      "__global__ void a(void) {}\n"
                      "__global__ void b(int8_t *p, uint64_t n, float4 *v) {}\n"
                      "}\n"
                      "__global__ void c(int x) {}\n";
    cr_expect_eq(aoe_cu_signature(src, "a", P, 8), 0);
    cr_assert_eq(aoe_cu_signature(src, "b", P, 8), 3);
    expect(0, 1, 0, AOE_ELEM_I8, 8);
    expect(1, 0, 0, AOE_ELEM_U64, 8);
    expect(2, 1, 0, AOE_ELEM_F32, 8);
    cr_expect_eq(aoe_cu_signature(src, "_Z1ci", P, 8), 1); /* outside the block: mangled */
    cr_expect_eq(aoe_cu_signature(src, "_Z1bPalP6float4", P, 8), AOE_CU_SIG_NOT_FOUND);
}

Test(cuda_signature, refusals)
{
    const char *src = "template <int N> __global__ void t(float *p) {}\n"
                      "__global__ void r(float &x) {}\n"
                      "__global__ void arr(float x[4]) {}\n"
                      "__global__ void many(int a, int b, int c) {}\n"
                      "struct S { int v; };\n"
                      "__global__ void s(S value, float *o) {}\n";
    cr_expect_eq(aoe_cu_signature(src, "t", P, 8), AOE_CU_SIG_TEMPLATE);
    cr_expect_eq(aoe_cu_signature(src, "_Z1tILi4EEvPf", P, 8), AOE_CU_SIG_TEMPLATE);
    cr_expect_eq(aoe_cu_signature(src, "r", P, 8), AOE_CU_SIG_UNREAD);
    cr_expect_eq(aoe_cu_signature(src, "arr", P, 8), AOE_CU_SIG_UNREAD);
    cr_expect_eq(aoe_cu_signature(src, "many", P, 2), AOE_CU_SIG_TOO_MANY);
    cr_expect_eq(aoe_cu_signature(src, "missing", P, 8), AOE_CU_SIG_NOT_FOUND);
    cr_assert_eq(aoe_cu_signature(src, "s", P, 8), 2);
    expect(0, 0, 0, AOE_ELEM_BYTES, 0); /* a struct by value: size from the driver */
    expect(1, 1, 0, AOE_ELEM_F32, 8);
    cr_expect_eq(aoe_cu_signature(src, "_Z1s1SPf", P, 8), 2);
    cr_expect_eq(aoe_cu_signature(NULL, "s", P, 8), AOE_CU_SIG_NOT_FOUND);
    cr_expect_eq(aoe_cu_signature("__global__ void x(", "x", P, 8), AOE_CU_SIG_NOT_FOUND);
    cr_expect_eq(aoe_cu_signature("__global__ void x(int, )", "x", P, 8), AOE_CU_SIG_UNREAD);
    cr_expect_str_neq(aoe_cu_signature_error(AOE_CU_SIG_TEMPLATE), "");
}
