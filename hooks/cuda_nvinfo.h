/* Kernel parameter layouts from a cubin's ELF `.nv.info.<kernel>` sections
 * (EIATTR_KPARAM_INFO and EIATTR_PARAM_CBANK records), read with elfutils
 * libelf: where the driver has no cuFuncGetParamInfo (before CUDA 12.4).
 * Pure functions over the image's bytes (no CUDA header, no driver call);
 * called at module load for modules the shim may tune. docs/design.md,
 * "Tuning CUDA kernels". */
#ifndef AOE_CUDA_NVINFO_H
#define AOE_CUDA_NVINFO_H

#include <stddef.h>
#include <stdint.h>

/* One parameter: its byte offset in the parameter buffer and its size. */
typedef struct {
    uint32_t offset, size;
} aoe_cu_param;

typedef struct aoe_cu_nvinfo aoe_cu_nvinfo; /* every kernel's layout of one image */

/* The layouts of every kernel of an ELF cubin of len bytes, or NULL (not an
 * ELF cubin, no .nv.info, malformed, out of memory). Copies what it keeps. */
aoe_cu_nvinfo *aoe_cu_nvinfo_read(const void *image, size_t len);
/* Kernel's parameters in order into out (at most max): their number, or -1
 * when the image has no layout for kernel (a lowered name) or it has more
 * than max parameters (never a partial layout). out NULL: the number only. */
int aoe_cu_nvinfo_find(const aoe_cu_nvinfo *t, const char *kernel, aoe_cu_param *out, int max);
void aoe_cu_nvinfo_free(aoe_cu_nvinfo *t);

#endif
