#include "space/wgsize.h"

#include <stdlib.h>

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Higher is kept first when there are too many candidates. */
static int rank(uint64_t v, uint64_t preferred)
{
    int pow2 = (v & (v - 1)) == 0;
    int pref = preferred > 1 && v % preferred == 0;
    return pow2 * 2 + pref;
}

int aoe_wgsize_candidates(uint64_t global, uint64_t max_item, uint64_t max_group,
                          uint64_t preferred, int powers_of_two, uint64_t *out, int max)
{
    uint64_t limit = max_group ? max_group : AOE_WG_FALLBACK_LIMIT;
    if (max_item && max_item < limit) limit = max_item;
    if (limit > 1u << 20) limit = 1u << 20; /* bounds the divisor search below */
    uint64_t found[4096];
    int n = 0;
    for (uint64_t v = 1; v <= limit && n < 4096; v++) {
        int pow2 = (v & (v - 1)) == 0;
        if ((global && global % v == 0) || (powers_of_two && pow2)) found[n++] = v;
    }
    if (n > max) { /* keep the best-ranked, larger first within a rank */
        for (int r = 3, k = 0; r >= 0 && k < max; r--)
            for (int i = n - 1; i >= 0 && k < max; i--)
                if (rank(found[i], preferred) == r) out[k++] = found[i];
        n = max;
    } else {
        for (int i = 0; i < n; i++) out[i] = found[i];
    }
    qsort(out, (size_t)n, sizeof *out, cmp_u64);
    return n;
}
