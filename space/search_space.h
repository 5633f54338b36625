/* A search space as the strategies see it: an enumerated list of valid
 * configurations (rows of value indices). Built by space.c from a job and
 * its tunables; searched by tuner/strategy.h. */
#ifndef AOE_SEARCH_SPACE_H
#define AOE_SEARCH_SPACE_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int n_params;
    const int *n_values;     /* values per parameter (value indices 0..n-1, in value order) */
    size_t n_configs;        /* number of valid configurations */
    const uint16_t *configs; /* n_configs rows of n_params value indices */
    /* Per parameter, the first parameter with an identical value list (itself
     * when none): tile_size_x and tile_size_y share one. NULL: not known. */
    const int *value_list_id;
} aoe_search_space;

#endif
