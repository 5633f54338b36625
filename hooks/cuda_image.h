/* A loaded image's identity, shared by the driver hooks (hooks/cuda*) and
 * the NVRTC hooks (hooks/nvrtc*): the length of an image as the driver
 * receives it (a pointer only) and its hash, so a module can be linked to
 * the NVRTC program whose nvrtcGetCUBIN / nvrtcGetPTX output it was.
 * Runtime-neutral C: no CUDA header. */
#ifndef AOE_CUDA_IMAGE_H
#define AOE_CUDA_IMAGE_H

#include "hooks/nvrtc_programs.h"

#include <stddef.h>
#include <stdint.h>

/* What an image is, from its first bytes. */
enum {
    AOE_CU_IMAGE_UNKNOWN = 0, /* length not knowable: not hashed */
    AOE_CU_IMAGE_ELF,         /* a cubin */
    AOE_CU_IMAGE_FATBIN,      /* a fatbin (or the wrapper nvcc emits around one) */
    AOE_CU_IMAGE_TEXT,        /* PTX (or the test doubles' text image), NUL-terminated */
    AOE_CU_IMAGE_FILE,        /* loaded from a path (cuModuleLoad): not read */
};

/* The image's kind and length in bytes (0 when unknown); *start: where its
 * bytes begin (a fatbin wrapper points elsewhere). Reads only the headers. */
int aoe_cu_image_measure(const void *image, const void **start, size_t *len);

/* 64-bit FNV-1a of the bytes: the image hash both sides compute. */
static inline uint64_t aoe_cu_image_hash(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/* THE HOOK POINT for the NVRTC runtime: which NVRTC program produced an
 * image. The NVRTC hooks (hooks/nvrtc*) define this function when they are
 * built (a strong definition in the same shim); until then the reference is
 * weak and NULL, and every module counts as precompiled. Called at module
 * load (never on the launch path) with the image's bytes, length and
 * aoe_cu_image_hash; returns the program holding a reference (the caller
 * keeps it for good: module records are never freed) and sets *kind
 * (AOE_NVRTC_IMAGE_CUBIN or _PTX), or NULL when the image did not come from
 * NVRTC. */
__attribute__((weak, visibility("hidden"))) const aoe_nvrtc_program *
aoe_nvrtc_image_program(const void *image, size_t len, uint64_t hash, int *kind);

#endif
