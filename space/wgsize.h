/* Work-group size candidates for kernels launched with a NULL local size: the
 * OpenCL spec lets the implementation pick any legal size there, so every
 * divisor of the global size within the device and kernel limits is correct. */
#ifndef AOE_WGSIZE_H
#define AOE_WGSIZE_H

#include <stdint.h>

/* Used when the executor could not query CL_KERNEL_WORK_GROUP_SIZE (0 means
 * unknown): larger groups are illegal on most devices. */
#define AOE_WG_FALLBACK_LIMIT 256

/* Candidates for one dimension, ascending: divisors of global (when
 * powers_of_two, also powers of two, for a global size that a rule derives
 * per configuration) that are <= max_item and <= max_group (0 = fallback).
 * When there are more than max, powers of two and multiples of preferred are
 * kept first. Returns the number written. */
int aoe_wgsize_candidates(uint64_t global, uint64_t max_item, uint64_t max_group,
                          uint64_t preferred, int powers_of_two, uint64_t *out, int max);

#endif
