/* A CUDA kernel's parameters as its source declares them: which are
 * pointers, what they point to, which are const, the scalars' sizes. The
 * shim needs them to capture a launch (a pointer is a buffer, its pointee
 * type the job's element type, `const T *` read-only) since the driver only
 * knows offsets and sizes. A pure text scan: no CUDA header, no driver call.
 * Finds `__global__ ... NAME(...)` by its plain name or by the lowered name
 * the driver reports (extern "C": the plain name; else the Itanium mangling
 * of simple parameter lists); templates and parameter lists it cannot read
 * are refused, never guessed. docs/design.md, "Tuning CUDA kernels". */
#ifndef AOE_CUDA_SIGNATURE_H
#define AOE_CUDA_SIGNATURE_H

#include "core/elem_type.h"

#include <stdint.h>

#define AOE_CU_SIG_MAX_PARAMS 64

typedef struct {
    int pointer;        /* a pointer (at a launch: a buffer, or NULL) */
    int pointee_const;  /* declared `const T *`: the kernel only reads it */
    aoe_elem_type elem; /* the pointee's type (pointers) or the scalar's; BYTES: other */
    uint32_t size;      /* bytes passed: 8 for a pointer, a known scalar's size, 0: unknown */
} aoe_cu_sig_param;

enum {
    AOE_CU_SIG_NOT_FOUND = -1, /* no __global__ function of that name */
    AOE_CU_SIG_TEMPLATE = -2,  /* a template: its parameters depend on the instance */
    AOE_CU_SIG_UNREAD = -3,    /* a parameter not understood (reference, array, ...) */
    AOE_CU_SIG_TOO_MANY = -4,  /* more than max parameters */
};

/* The parameters of kernel `name` (plain or lowered) of source into out (at
 * most max): their number, or AOE_CU_SIG_*. */
int aoe_cu_signature(const char *source, const char *name, aoe_cu_sig_param *out, int max);

/* What an AOE_CU_SIG_* code means, for a message. */
const char *aoe_cu_signature_error(int code);

#endif
