/* The probes' one error check: a failing CUDA, cuBLAS or cuBLASLt call (any
 * non-zero status) prints where and what, and ends the probe. */
#ifndef PROBE_CHECK_H
#define PROBE_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define CK(x)                                                                                      \
    do {                                                                                           \
        int _e = (int)(x);                                                                         \
        if (_e) {                                                                                  \
            fprintf(stderr, "%s:%d %s -> %d\n", __FILE__, __LINE__, #x, _e);                       \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#endif
