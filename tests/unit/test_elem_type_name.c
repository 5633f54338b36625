/* C type names as runtimes report them -> element types (core/elem_type_name.c): OpenCL C
 * (clGetKernelArgInfo) and CUDA C spellings. */
#include "core/elem_type.h"

#include <criterion/criterion.h>

Test(elem_type_name, scalar_vector_and_pointer_types)
{
    struct {
        const char *name;
        uint64_t size;
        aoe_elem_type want;
    } cases[] = {
        {"float*", 64, AOE_ELEM_F32},
        {"float", 4, AOE_ELEM_F32},
        {"float4*", 64, AOE_ELEM_F32},
        {"half*", 6, AOE_ELEM_F16},
        {"half8", 16, AOE_ELEM_F16},
        {"double*", 16, AOE_ELEM_F64},
        {"double2", 16, AOE_ELEM_F64},
        {"char*", 3, AOE_ELEM_I8},
        {"uchar*", 3, AOE_ELEM_U8},
        {"uchar16*", 32, AOE_ELEM_U8},
        {"unsigned char*", 3, AOE_ELEM_U8},
        {"short*", 4, AOE_ELEM_I16},
        {"ushort*", 4, AOE_ELEM_U16}, /* bf16 has no OpenCL type: it stays U16 */
        {"int*", 8, AOE_ELEM_I32},
        {"int", 4, AOE_ELEM_I32},
        {"uint*", 8, AOE_ELEM_U32},
        {"unsigned int", 4, AOE_ELEM_U32},
        {"unsigned", 4, AOE_ELEM_U32},
        {"long*", 8, AOE_ELEM_I64},
        {"ulong", 8, AOE_ELEM_U64},
        {"const float *", 8, AOE_ELEM_F32},
        {"__global float*", 8, AOE_ELEM_F32},
        {"float3*", 48, AOE_ELEM_F32},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_expect_eq(aoe_elem_of_type_name(cases[i].name, cases[i].size), cases[i].want,
                     "%s: got %s", cases[i].name,
                     aoe_elem_name(aoe_elem_of_type_name(cases[i].name, cases[i].size)));
}

Test(elem_type_name, anything_else_is_bytes)
{
    struct {
        const char *name;
        uint64_t size;
    } cases[] = {
        {"float*", 6},          /* not whole elements */
        {"double*", 12},        /* not whole elements */
        {"int", 2},             /* not whole elements */
        {"size_t", 8},          /* device dependent */
        {"bool", 1},            /* no fixed size */
        {"struct params*", 64}, /* a structure */
        {"my_real*", 64},       /* a typedef the name does not reveal */
        {"float**", 64},        /* not a buffer of floats */
        {"float5*", 64},        /* no such vector */
        {"float16x*", 64},      /* no such type */
        {"long long", 8},       /* two type words */
        {"image2d_t", 8},
        {"", 4},
        {"01234567890123456789012345678901234567890123456789012345678901234567890123456789", 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_expect_eq(aoe_elem_of_type_name(cases[i].name, cases[i].size), AOE_ELEM_BYTES,
                     "%s: got %s", cases[i].name,
                     aoe_elem_name(aoe_elem_of_type_name(cases[i].name, cases[i].size)));
    cr_expect_eq(aoe_elem_of_type_name(NULL, 4), AOE_ELEM_BYTES);
}

Test(elem_type_name, cuda_spellings)
{
    cr_assert_eq(aoe_elem_of_type_name("__half*", 8), AOE_ELEM_F16);
    cr_assert_eq(aoe_elem_of_type_name("const __nv_bfloat16*", 8), AOE_ELEM_BF16);
    cr_assert_eq(aoe_elem_of_type_name("int8_t*", 3), AOE_ELEM_I8);
    cr_assert_eq(aoe_elem_of_type_name("uint64_t*", 12), AOE_ELEM_BYTES); /* not whole elements */
}
