/* Variants of a tuned CUDA kernel (hooks/cuda_variant.c): its NVRTC program
 * compiled again with a policy's -D values added to its own options, for the
 * device of its context, through the real NVRTC and driver, and loaded into
 * the kernel's context. Built once, on the poller thread (never on a
 * launching thread); a variant that fails to build is never asked for again
 * and its kernel launches the program's own code. docs/design.md,
 * "CUDA variants". */
#ifndef AOE_CUDA_VARIANT_H
#define AOE_CUDA_VARIANT_H

#include "hooks/cuda_internal.h"

/* At most this many variants per kernel; a further ask gets NULL (said once). */
#define AOE_CU_MAX_VARIANTS 16

/* The variant function of t's kernel with these defines (" -DNAME=value
 * ..."), or NULL while it is being built or when it failed (the caller
 * launches the program's own function). The first ask requests the build
 * (refused at once, failed for good, when the defines are not -D options or
 * set a macro the program's own options set). Lock-free and allocation-free
 * once the variant exists (a launch may call it every time). */
CUfunction aoe_cu_variant_function(aoe_cu_tunable *t, const char *defines);

/* The poller thread: builds every requested variant (the cuda runtime's
 * build_variants). */
void aoe_cu_build_variants(void);
void aoe_cu_variant_atfork_child(void);

/* cuda_variant_build.c, the poller thread: t's program compiled with
 * defines and its kernel loaded into t's context. 0 and *mod, *fn; or -1
 * and why (the rest of a sentence after "the variant", its first log line). */
int aoe_cu_variant_build(const aoe_cu_tunable *t, const char *defines, CUmodule *mod,
                         CUfunction *fn, char *why, size_t wlen);

#endif
