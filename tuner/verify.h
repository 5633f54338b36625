/* Verification of a variant's outputs against the default policy's (the
 * reference). Pure functions over byte arrays: no runtime calls.
 *
 * Element types are unknown to the tuner (OpenCL buffers are bytes), so each
 * buffer is compared bit for bit first; when it differs and the reference
 * looks like float32 data (>= 90 % of its 4-byte words are zero or finite
 * with magnitude in [1e-30, 1e30]), it is compared as float32 under the
 * tolerances; otherwise (integers, bytes) any difference fails. */
#ifndef AOE_VERIFY_H
#define AOE_VERIFY_H

#include "space/space.h"

#include <stddef.h>
#include <stdint.h>

/* Two poison patterns: 0xFF bytes are NaN as float32 (so an unwritten float
 * never passes a tolerance), 0x5A the second pattern for the written map. */
#define AOE_POISON_1 0xFFu
#define AOE_POISON_2 0x5Au

/* The reference: what the default policy leaves in every buffer argument. */
typedef struct {
    uint32_t nargs;
    uint64_t *size;     /* bytes per argument (0: not a buffer) */
    uint8_t **ref;      /* expected contents (NULL: not a buffer) */
    uint8_t *poisoned;  /* 1: pure output, filled with AOE_POISON_1 before each run */
    uint8_t **written;  /* poisoned buffers: 1 per byte the default writes */
    uint64_t oob_bytes; /* guard bytes the default itself overwrote */
} aoe_reference;

/* Classifies buffer `size` bytes long from three default runs: `plain` (all
 * contents restored), `p1`/`p2` (the buffer poisoned with AOE_POISON_1/2
 * beforehand). Fills written (1 per byte the kernel wrote: not p1==P1 &&
 * p2==P2) and returns 1 when the buffer is a pure output (written bytes equal
 * in all three runs: the kernel does not read it), 0 otherwise. */
int aoe_verify_classify(const uint8_t *plain, const uint8_t *p1, const uint8_t *p2, uint64_t size,
                        uint8_t *written);

/* Compares one buffer. poisoned/written as in the reference (written may be
 * NULL: every byte). Returns 0 if it passes, else -1 with a reason starting
 * with its category: "wrong result", "unwritten output", "out-of-bounds write". */
int aoe_verify_buffer(const uint8_t *ref, const uint8_t *got, uint64_t size, int poisoned,
                      const uint8_t *written, const aoe_tolerance *tol, char *reason,
                      size_t reasonlen);

/* Compares every buffer of a variant's run (got[i], and guard bytes hit)
 * with the reference. Returns 0 or -1 with a reason naming the argument. */
int aoe_verify_outputs(const aoe_reference *ref, const uint8_t *const *got, uint64_t oob_bytes,
                       int oob_arg, const aoe_tolerance *tol, char *reason, size_t reasonlen);

/* Allocates / frees a reference for nargs arguments. */
int aoe_reference_init(aoe_reference *r, uint32_t nargs);
void aoe_reference_free(aoe_reference *r);

/* The reason's category: the text before the first ':' (copied to out). */
void aoe_reason_category(const char *reason, char *out, size_t outlen);

#endif
