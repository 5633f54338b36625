/* The NVRTC programs the shim has seen compiled (hooks/nvrtc*), for the
 * hooks that load modules: "which program (source, headers, options, name
 * expressions) produced this image?". An image is what nvrtcGetCUBIN or
 * nvrtcGetPTX handed the program, identified by its size and the 64-bit
 * hash below over exactly those bytes (a PTX image includes its final NUL,
 * as nvrtcGetPTXSize counts it). Safe from any thread; a lookup takes one
 * lock (module loads are not hot paths). The programs are bounded (the
 * oldest are forgotten first), so a lookup can miss; a program found stays
 * valid until released. docs/design.md, "NVRTC programs". */
#ifndef AOE_NVRTC_PROGRAMS_H
#define AOE_NVRTC_PROGRAMS_H

#include <stddef.h>
#include <stdint.h>

enum { AOE_NVRTC_IMAGE_CUBIN = 1, AOE_NVRTC_IMAGE_PTX = 2 };

/* One compilation of a program, immutable once findable. */
typedef struct {
    const char *name;   /* the program's name ("default_program" when it gave none) */
    const char *source; /* NUL-terminated */
    int num_headers;
    const char *const *headers;       /* contents (an entry may be NULL, as given) */
    const char *const *include_names; /* the names the source includes them by */
    int num_options;
    const char *const *options; /* as passed to nvrtcCompileProgram, in order */
    int num_name_expressions;
    const char *const *name_expressions; /* as added, in order */
    const char *const *lowered_names;    /* NVRTC's lowered name of each; NULL: none */
    /* A program read back from a remembered file (a warm run, no NVRTC call
     * in this process): the libnvrtc it was compiled with; NULL otherwise. */
    const char *nvrtc_library;
} aoe_nvrtc_program;

/* The hash images are found by. */
uint64_t aoe_nvrtc_image_hash(const void *image, size_t size);

/* The program that produced the image of this hash and size, or NULL; *kind
 * (when given) = AOE_NVRTC_IMAGE_CUBIN or _PTX. A found program holds a
 * reference: give it back with aoe_nvrtc_program_release. */
const aoe_nvrtc_program *aoe_nvrtc_program_for_image(uint64_t hash, size_t size, int *kind);
void aoe_nvrtc_program_release(const aoe_nvrtc_program *p);

/* The absolute path of the libnvrtc the shim's NVRTC hooks call (dladdr of
 * its nvrtcCompileProgram), or NULL when unknown. Asked once. */
const char *aoe_nvrtc_library_path(void);
/* The libnvrtc p was compiled with: its remembered one, else the above. */
const char *aoe_nvrtc_program_library(const aoe_nvrtc_program *p);

/* Remembers p (the program of a tuned kernel) for later runs, under the
 * image of kind it produced (hooks/nvrtc_remembered.h): once per program
 * and kind, nothing for a program read back. Not on a launch path. */
void aoe_nvrtc_program_remember(const aoe_nvrtc_program *p, int kind);

#endif
