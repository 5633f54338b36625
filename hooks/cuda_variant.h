/* Variants of a tuned CUDA kernel (hooks/cuda_variant.c): its NVRTC program
 * compiled again with a policy's -D values added to its own options, for the
 * device of its context, through the real NVRTC and driver, and loaded into
 * the kernel's context. Built once, on the poller thread (never on a
 * launching thread); a variant that fails to build is never asked for again
 * and its kernel launches the program's own code. docs/design.md,
 * "Tuning CUDA kernels". */
#ifndef AOE_CUDA_VARIANT_H
#define AOE_CUDA_VARIANT_H

#include "hooks/cuda_internal.h"

/* The variant function of t's kernel with these defines (" -DNAME=value
 * ..."), or NULL while it is being built or when it failed (the caller
 * launches the program's own function). The first ask requests the build.
 * Lock-free once the variant exists (a launch may call it every time). */
CUfunction aoe_cu_variant_function(aoe_cu_tunable *t, const char *defines);

/* The poller thread: builds every requested variant (the cuda runtime's
 * build_variants). */
void aoe_cu_build_variants(void);
void aoe_cu_variant_atfork_child(void);

#endif
