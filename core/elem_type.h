/* Element types of argument data (jobs, verification): declared once. A
 * runtime maps its own type names onto these; BYTES is opaque data compared
 * exactly. */
#ifndef AOE_ELEM_TYPE_H
#define AOE_ELEM_TYPE_H

#include <stddef.h>
#include <stdint.h>

/* X(enum suffix, name in job files, bytes per element) */
#define AOE_ELEM_TYPES(X)                                                                          \
    X(BYTES, "bytes", 1)                                                                           \
    X(F32, "f32", 4)                                                                               \
    X(F16, "f16", 2)                                                                               \
    X(BF16, "bf16", 2)                                                                             \
    X(F64, "f64", 8)                                                                               \
    X(I8, "i8", 1)                                                                                 \
    X(U8, "u8", 1)                                                                                 \
    X(I16, "i16", 2)                                                                               \
    X(U16, "u16", 2)                                                                               \
    X(I32, "i32", 4)                                                                               \
    X(U32, "u32", 4)                                                                               \
    X(I64, "i64", 8)                                                                               \
    X(U64, "u64", 8)

#define AOE_ELEM_ENUM(sfx, name, size) AOE_ELEM_##sfx,
typedef enum { AOE_ELEM_TYPES(AOE_ELEM_ENUM) AOE_ELEM_COUNT } aoe_elem_type;
#undef AOE_ELEM_ENUM

/* "f32", ...; "?" for a value outside the enum. */
const char *aoe_elem_name(aoe_elem_type t);
/* Bytes per element (0 for a value outside the enum). */
size_t aoe_elem_size(aoe_elem_type t);
/* 0 and *out set when name is one of the names above; -1 otherwise. */
int aoe_elem_parse(const char *name, aoe_elem_type *out);
/* The element type an argument of C type `type_name` holds, as a runtime
 * reports it (OpenCL's CL_KERNEL_ARG_TYPE_NAME: "float*", "half4*", "uchar*",
 * "unsigned int"; CUDA C: "__half*", "__nv_bfloat16*", "int8_t*"). Vectors
 * count as their element type; BYTES for anything else (structs, size_t,
 * bool, images) and when `size` bytes are not whole elements. */
aoe_elem_type aoe_elem_of_type_name(const char *type_name, uint64_t size);
/* 1 for F32, F16, BF16, F64. */
int aoe_elem_is_float(aoe_elem_type t);

#endif
