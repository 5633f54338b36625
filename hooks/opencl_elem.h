/* Element types of OpenCL kernel arguments from their type names. No OpenCL
 * header here: the mapping is plain text, unit-tested on its own. */
#ifndef AOE_OPENCL_ELEM_H
#define AOE_OPENCL_ELEM_H

#include "core/elem_type.h"

#include <stdint.h>

/* The element type an argument of OpenCL type `type_name` holds, as
 * clGetKernelArgInfo(CL_KERNEL_ARG_TYPE_NAME) spells it: "float*", "half4*",
 * "uchar*", "unsigned int", "double". Vectors count as their element type;
 * bf16 has no OpenCL type (ushort stays U16). BYTES for anything else (structs,
 * size_t, bool, images) and when `size` bytes are not whole elements. */
aoe_elem_type aoe_cl_elem_of_type_name(const char *type_name, uint64_t size);

#endif
