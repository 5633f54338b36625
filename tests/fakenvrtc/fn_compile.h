/* The fake NVRTC's "compiler" (tests/fakenvrtc, README.md): options parsed,
 * a trivial preprocessing (-D values, `#ifndef NAME / #define NAME <int>`
 * defaults, `#error`, one level of `#include` of the program's headers),
 * the __global__ functions found, and the image of tests/fakecuda/fake_image.h
 * written. No CUDA header: unit-tested in every build
 * (tests/unit/test_fakenvrtc_compile.c). */
#ifndef FN_COMPILE_H
#define FN_COMPILE_H

#include "fake_image.h"

#include <stddef.h>
#include <stdint.h>

/* The nvrtcResult values the compiler answers (nvrtc.h's numbers). */
enum { FN_SUCCESS = 0, FN_INVALID_OPTION = 5, FN_COMPILATION = 6, FN_OUT_OF_MEMORY = 1 };

/* The default target when no --gpu-architecture is given (NVRTC 13's). */
#define FN_DEFAULT_ARCH "compute_75"

typedef struct {
    char name[FAKE_IMAGE_MAX_NAME + 1];
    char value[256];
} fn_define;

typedef struct {
    char name[FAKE_IMAGE_MAX_NAME + 1];    /* as written in the source */
    char lowered[FAKE_IMAGE_MAX_NAME + 1]; /* extern "C": the name; else a mangled one */
} fn_kernel;

typedef struct {
    char arch[32]; /* sm_XY[a|f] or compute_XY[a|f] */
    int n_defines;
    fn_define defines[FAKE_IMAGE_MAX_DEFINES]; /* -D in option order, then source defaults */
    int n_kernels;
    fn_kernel kernels[FAKE_IMAGE_MAX_KERNELS]; /* in source order */
    uint64_t hash;                             /* FNV-1a 64 of the source text */
} fn_output;

/* The program's headers, as nvrtcCreateProgram received them. */
typedef struct {
    int n;
    const char *const *contents;
    const char *const *names;
} fn_headers;

/* Compiles source (program name for the log) with the options: fills out
 * and returns FN_SUCCESS, or returns an error with the message in log
 * (NUL-terminated, at most loglen bytes, NVRTC's wording where it has one). */
int fn_compile(const char *name, const char *source, const fn_headers *headers, int n_options,
               const char *const *options, fn_output *out, char *log, size_t loglen);

/* The image text of out: FAKE_IMAGE_MAGIC (cubin) or FAKE_IMAGE_PTX_MAGIC
 * first. Returns a malloc'd NUL-terminated string, or NULL (no memory). */
char *fn_image(const fn_output *out, int ptx);

/* 1 when arch (sm_XY or compute_XY, with an optional a/f suffix) names an
 * architecture NVRTC 13 supports; *real (when given) = 1 for sm_. */
int fn_arch_supported(const char *arch, int *real);
/* The architectures, as nvrtcGetSupportedArchs lists them. */
extern const int fn_supported_archs[];
extern const int fn_n_supported_archs;

/* 64-bit FNV-1a. */
uint64_t fn_fnv1a(const void *data, size_t len);

#endif
