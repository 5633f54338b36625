/* Verification of a variant's outputs against the default policy's (the
 * reference). Pure functions over byte arrays: no runtime calls.
 *
 * Every buffer is compared bit for bit first. When it differs:
 *  - element type known (aoe_verify_buffer_typed, or aoe_reference.elem):
 *    floats (f32, f16, bf16, f64) are compared as numbers under the type's
 *    tolerance (aoe_verify_tolerance_for), NaN and infinity placement must be
 *    identical; integers and bytes must match exactly.
 *  - unknown (OpenCL buffers are bytes; aoe_verify_buffer): when the
 *    reference looks like float32 data (>= 90 % of its 4-byte words are zero
 *    or finite with magnitude in [1e-30, 1e30]) it is compared as float32
 *    under the tolerances; otherwise (integers, bytes) any difference fails. */
#ifndef AOE_VERIFY_H
#define AOE_VERIFY_H

#include "core/elem_type.h"
#include "jobs/job.h"
#include "space/space.h"

#include <stddef.h>
#include <stdint.h>

/* Two poison patterns: 0xFF bytes are NaN as float32 (so an unwritten float
 * never passes a tolerance), 0x5A the second pattern for the written map. */
#define AOE_POISON_1 0xFFu
#define AOE_POISON_2 0x5Au

/* aoe_reference.elem for an argument whose element type is not known. */
#define AOE_VERIFY_UNTYPED 0xFFu

/* The reference: what the default policy leaves in every buffer argument. */
typedef struct {
    uint32_t nargs;
    uint8_t *elem;      /* aoe_elem_type per argument, or AOE_VERIFY_UNTYPED (init) */
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

/* Compares one buffer of unknown element type (float32 if it looks like it,
 * see above). poisoned/written as in the reference (written may be NULL:
 * every byte). Returns 0 if it passes, else -1 with a reason starting with
 * its category: "wrong result", "unwritten output", "out-of-bounds write". */
int aoe_verify_buffer(const uint8_t *ref, const uint8_t *got, uint64_t size, int poisoned,
                      const uint8_t *written, const aoe_tolerance *tol, char *reason,
                      size_t reasonlen);

/* The same for elements of a known type. Floats: bit-identical elements
 * pass; otherwise a NaN must face a NaN (any payload) and an infinity the
 * same infinity, and the finite elements must satisfy
 *   ||got - ref||_2 / ||ref||_2 <= rel_l2   and
 *   max |got - ref| <= max_abs * max(1, max |ref|)
 * (an allowance for accumulated error, so reductions may reorder) with the
 * type's tolerance from aoe_verify_tolerance_for; an element that is a
 * subnormal of its type (f32, bf16, f64: what a bit-cast small integer looks
 * like) must match exactly. Integers and BYTES: exact.
 * tol->exact: every type bit for bit. A trailing partial element: exact. */
int aoe_verify_buffer_typed(aoe_elem_type type, const uint8_t *ref, const uint8_t *got,
                            uint64_t size, int poisoned, const uint8_t *written,
                            const aoe_tolerance *tol, char *reason, size_t reasonlen);

/* The tolerance a float type is verified with, from the declared (float32)
 * one: f32 as declared; f64 scaled by eps(f64)/eps(f32) = 2^-29 (computed in
 * double, so its error is that much smaller); f16 and bf16 (computed in
 * float, rounded once to the narrow type: two correct results may differ by
 * an ulp) the declared one plus 2 eps of the type (2^-9 and 2^-6). Other
 * types: the declared one (unused: they compare exactly). */
aoe_tolerance aoe_verify_tolerance_for(aoe_elem_type type, const aoe_tolerance *declared);

/* Compares every buffer of a variant's run (got[i], and guard bytes hit)
 * with the reference, typed where ref->elem says so. Returns 0 or -1 with a
 * reason naming the argument. */
int aoe_verify_outputs(const aoe_reference *ref, const uint8_t *const *got, uint64_t oob_bytes,
                       int oob_arg, const aoe_tolerance *tol, char *reason, size_t reasonlen);

/* Types every argument the job declares (elem other than BYTES), so that
 * its outputs are compared as that type; the others stay untyped. */
void aoe_reference_types_from_job(aoe_reference *r, const aoe_job *job);

/* Allocates / frees a reference for nargs arguments (elem all untyped). */
int aoe_reference_init(aoe_reference *r, uint32_t nargs);
void aoe_reference_free(aoe_reference *r);

/* The reason's category: the text before the first ':' (copied to out). */
void aoe_reason_category(const char *reason, char *out, size_t outlen);

#endif
