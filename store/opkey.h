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

/* Kernel part: fingerprint, program hash, kernel name, normalised build options
 * (runs of whitespace collapsed, leading/trailing removed). */
uint64_t aoe_opkey_kernel(const char *fingerprint, aoe_hash128 program, const char *kernel_name,
                          const char *options);

typedef enum {
    AOE_ARGK_UNSET = 0,  /* never set */
    AOE_ARGK_SCALAR = 1, /* bytes by value */
    AOE_ARGK_BUFFER = 2, /* memory object: its size is part of the shape */
    AOE_ARGK_LOCAL = 3,  /* local memory: its size */
    AOE_ARGK_NULLMEM = 4 /* NULL memory object */
} aoe_argkind;

typedef struct {
    uint8_t kind;      /* aoe_argkind */
    uint32_t size;     /* scalar: bytes in `bytes`; others: 0 */
    uint64_t extent;   /* buffer bytes, local-memory bytes */
    const void *bytes; /* scalar value */
} aoe_arg_shape;

/* Launch part: work dimension, global size, the program's local size (NULL
 * allowed), scalar argument bytes, buffer and local-memory sizes. No
 * allocation, no syscalls: safe on the launch path. */
aoe_key aoe_opkey_launch(uint64_t kernel_part, uint32_t work_dim, const size_t *global,
                         const size_t *local, uint32_t nargs, const aoe_arg_shape *args);

/* Normalises build options into out (collapses whitespace); returns out. */
char *aoe_options_normalise(const char *options, char *out, size_t outlen);

#endif
