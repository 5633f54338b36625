/* Operator identity. Computed in two parts so the per-launch cost is one small
 * hash: the kernel part once per kernel object, the shape part per launch.
 * The shim and the tuning-job reader both use these, so a job replayed in
 * another process lands under the key the shim will look up. */
#ifndef AOE_OPKEY_H
#define AOE_OPKEY_H

#include "store/record.h"

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t hi, lo;
} aoe_hash128;

aoe_hash128 aoe_hash128_bytes(const void *data, size_t len, uint64_t seed);
uint64_t aoe_hash64_bytes(const void *data, size_t len, uint64_t seed);

/* Program identity: hash of the sources (concatenated in order) or of the binary. */
aoe_hash128 aoe_program_hash(const void *data, size_t len);

/* ---- The key builder ----
 * A key is a hash over a sequence of typed fields; the sequence (which fields,
 * in which order) is fixed by the kind of key and the seed names that kind,
 * so only values vary. Under a fixed sequence the encoding is unambiguous:
 * strings end with their NUL, byte strings and shapes carry their length, so
 * ("ab","c") and ("a","bc") give different keys. Integers are hashed in host
 * byte order (as every key always has been: keys are per-device anyway).
 *
 * Two flavours, both with no allocation and no syscalls:
 *  - aoe_opkey_begin / aoe_opkey_finish: a 128-bit key (the launch part).
 *    Fields are packed into a 512-byte buffer; a full buffer is folded into
 *    the seed (a field that fits into an empty buffer is never split).
 *  - aoe_opkey_begin64 / aoe_opkey_finish64: a 64-bit identity streamed
 *    through one xxHash state (the kernel part: its strings are unbounded).
 * Both are byte-compatible with the keys AOE has always written
 * (tests/unit/test_opkey_golden.c). */
#define AOE_OPKEY_BUF 512

typedef struct {
    _Alignas(64) uint8_t buf[AOE_OPKEY_BUF]; /* fields not yet hashed */
    uint64_t seed;
    uint32_t n;                      /* bytes in buf */
    uint8_t stream;                  /* 1: 64-bit identity (begin64) */
    _Alignas(64) uint8_t state[640]; /* begin64 only: the xxHash state (opkey.c) */
} aoe_opkey_builder;

void aoe_opkey_begin(aoe_opkey_builder *b, uint64_t seed);
void aoe_opkey_begin64(aoe_opkey_builder *b, uint64_t seed);
void aoe_opkey_add_u8(aoe_opkey_builder *b, uint8_t v);
void aoe_opkey_add_u32(aoe_opkey_builder *b, uint32_t v);
void aoe_opkey_add_u64(aoe_opkey_builder *b, uint64_t v);
/* u32 length, then the bytes (more than 64: their 64-bit hash instead). */
void aoe_opkey_add_bytes(aoe_opkey_builder *b, const void *data, uint32_t len);
/* The string with its NUL (NULL: ""). */
void aoe_opkey_add_string(aoe_opkey_builder *b, const char *s);
/* u32 ndim, then ndim u64 sizes (dims NULL: all 0). */
void aoe_opkey_add_shape(aoe_opkey_builder *b, uint32_t ndim, const size_t *dims);
aoe_key aoe_opkey_finish(aoe_opkey_builder *b);
uint64_t aoe_opkey_finish64(aoe_opkey_builder *b);

/* ---- The OpenCL operator key, built on the builder ---- */

/* Kernel part: fingerprint, program hash, kernel name, normalised build options
 * (runs of whitespace collapsed, leading/trailing removed). */
uint64_t aoe_opkey_kernel(const char *fingerprint, aoe_hash128 program, const char *kernel_name,
                          const char *options);

typedef enum {
    AOE_ARGK_UNSET = 0,   /* never set */
    AOE_ARGK_SCALAR = 1,  /* bytes by value */
    AOE_ARGK_BUFFER = 2,  /* memory object: its size is part of the shape */
    AOE_ARGK_LOCAL = 3,   /* local memory: its size */
    AOE_ARGK_NULLMEM = 4, /* NULL memory object */
    AOE_ARGK_IMAGE = 5,   /* image object: extent = aoe_opkey_image_extent of its descriptor */
    AOE_ARGK_SAMPLER = 6  /* sampler object: extent = aoe_opkey_sampler_extent of its properties */
} aoe_argkind;

typedef struct {
    uint8_t kind;      /* aoe_argkind */
    uint32_t size;     /* scalar: bytes in `bytes`; others: 0 */
    uint64_t extent;   /* buffer bytes, local-memory bytes */
    const void *bytes; /* scalar value */
} aoe_arg_shape;

/* u8 kind, then a scalar's bytes (add_bytes) or a buffer's / local memory's /
 * image's / sampler's extent (u64); nothing more for the other kinds. */
void aoe_opkey_add_arg(aoe_opkey_builder *b, const aoe_arg_shape *arg);

/* An image argument's extent: a 64-bit hash of what its contents' layout and
 * meaning depend on (the runtime's object type, channel order and data type,
 * the four extents; 0 for an extent the type lacks). Never 0, below 2^62
 * (the OpenCL shim tags it into a handle table value). Shim and job
 * reader both call it, so a replayed job keys like the launch. */
uint64_t aoe_opkey_image_extent(uint32_t type, uint32_t order, uint32_t data_type, uint64_t width,
                                uint64_t height, uint64_t depth, uint64_t array_size);
/* A sampler argument's extent: its properties packed (normalized coordinates
 * 0/1, the runtime's addressing and filter modes). */
uint64_t aoe_opkey_sampler_extent(uint32_t normalized, uint32_t addressing, uint32_t filter);

/* Launch part: work dimension, global size, the program's local size (NULL
 * allowed), scalar argument bytes, buffer and local-memory sizes. No
 * allocation, no syscalls: safe on the launch path. */
aoe_key aoe_opkey_launch(uint64_t kernel_part, uint32_t work_dim, const size_t *global,
                         const size_t *local, uint32_t nargs, const aoe_arg_shape *args);

/* The family key of a launch with a NULL local size: the launch part's
 * fields (work dimension, global size, argument kinds and extents) under
 * another seed, with scalar arguments keyed by size only, except those whose
 * bit (argument index < 64) is set in keep_scalars, keyed by value. Launches
 * that differ only in scalar values share it, so a policy that is correct
 * for any scalar values (a work-group size the program left to the
 * implementation, or a declaration's "scalars" rule) is stored and found
 * under it across runs (docs/design.md, "Keys across runs"). */
aoe_key aoe_opkey_family(uint64_t kernel_part, uint32_t work_dim, const size_t *global,
                         uint32_t nargs, const aoe_arg_shape *args, uint64_t keep_scalars);

/* Normalises build options into out (collapses whitespace); returns out. */
char *aoe_options_normalise(const char *options, char *out, size_t outlen);

#endif
