/* Remembered NVRTC programs (warm runs): a program whose kernel the shim
 * tuned is written to "<work>/nvrtc/<hash>-<size>.json", named by the image
 * it produced (aoe_nvrtc_image_hash and size, as the tracker finds images),
 * so a later run that loads the same image from a cache (CuPy, PyTorch,
 * NVRTC's own) without calling NVRTC still finds its program. The text
 * format and its checks here (runtime-neutral: no CUDA header, fuzzed by
 * tests/fuzz/fuzz_nvrtc_remembered.c); the files in nvrtc_remembered.c.
 * docs/formats.md, "Remembered NVRTC programs". */
#ifndef AOE_NVRTC_REMEMBERED_H
#define AOE_NVRTC_REMEMBERED_H

#include "hooks/nvrtc_programs.h"

#include <stddef.h>
#include <stdint.h>

#define AOE_NVRTC_REMEMBERED_FORMAT "aoe-nvrtc-program"
#define AOE_NVRTC_REMEMBERED_VERSION 1
/* Bounds: a program over these is not remembered, a file over them not read. */
#define AOE_NVRTC_REMEMBERED_MAX_SOURCE ((size_t)4 << 20) /* source + headers */
#define AOE_NVRTC_REMEMBERED_MAX_FILE ((size_t)8 << 20)
#define AOE_NVRTC_REMEMBERED_MAX_ITEMS 4096 /* headers, options, name expressions (each) */
#define AOE_NVRTC_REMEMBERED_MAX_FILES 4096 /* files in the directory: no new ones past it */

/* A program read back: every string malloc'ed (an entry of headers or
 * lowered_names may be NULL), owned until aoe_nvrtc_remembered_free or
 * handed to the tracker (nvrtc_internal.h). */
typedef struct {
    char *name, *source;
    int num_headers;
    char **headers, **include_names;
    int num_options;
    char **options;
    int num_name_expressions;
    char **name_expressions, **lowered_names;
    int image_kind;      /* AOE_NVRTC_IMAGE_CUBIN or _PTX */
    char *nvrtc_library; /* absolute path, or NULL */
} aoe_nvrtc_remembered;

/* "<16 hex digits>-<size>.json" */
void aoe_nvrtc_remembered_name(uint64_t hash, size_t size, char *out, size_t len);

/* The file's text for p (its image: kind, hash, size; the NVRTC library it
 * was compiled with, or NULL): malloc'ed, or NULL (out of memory, or over
 * the bounds: why says which). */
char *aoe_nvrtc_remembered_format(const aoe_nvrtc_program *p, int kind, uint64_t hash, size_t size,
                                  const char *library, char *why, size_t wlen);

/* Parses text (len bytes, not necessarily NUL-terminated) into out; the
 * image it names must be hash/size. 0, or -1 with one reason in why (out
 * then holds nothing). */
int aoe_nvrtc_remembered_parse(const char *text, size_t len, uint64_t hash, size_t size,
                               aoe_nvrtc_remembered *out, char *why, size_t wlen);
void aoe_nvrtc_remembered_free(aoe_nvrtc_remembered *r);

/* ---- the files (nvrtc_remembered.c; shim only) ---- */
/* Writes p's file (image kind) unless it exists, the tune mode is off or the
 * directory is full; never fails the caller (one message). */
void aoe_nvrtc_remember(const aoe_nvrtc_program *p, int kind, uint64_t hash, size_t size);
/* The program remembered for the image hash/size, read back and checked
 * into out: 0, or -1 (none, or a bad file: one debug message). */
int aoe_nvrtc_recall(uint64_t hash, size_t size, aoe_nvrtc_remembered *out);

#endif
