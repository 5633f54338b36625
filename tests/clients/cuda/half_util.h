/* Host-side f16/bf16 conversion and filling for the CUDA test clients (no
 * cuda_fp16.h: that header is C++). Round to nearest even. */
#ifndef HALF_UTIL_H
#define HALF_UTIL_H

#include <math.h>
#include <stdint.h>
#include <string.h>

static inline uint16_t to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    x += 0x7fff + ((x >> 16) & 1);
    return (uint16_t)(x >> 16);
}

static inline float from_bf16(uint16_t b)
{
    uint32_t x = (uint32_t)b << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}

/* Normal values only (the clients' data lie in [-2, 2]). */
static inline uint16_t to_f16(float f)
{
    uint16_t sign = f < 0 ? 0x8000 : 0;
    float a = fabsf(f);
    if (a < ldexpf(1.0f, -14)) return sign | (uint16_t)lrintf(a * ldexpf(1.0f, 24));
    int e;
    float m = frexpf(a, &e);
    long mant = lrintf((m * 2.0f - 1.0f) * 1024.0f);
    if (mant == 1024) mant = 0, e++;
    return sign | (uint16_t)(((e - 1 + 15) << 10) | mant);
}

static inline float from_f16(uint16_t h)
{
    int exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    float v = exp ? ldexpf((float)(man | 0x400), exp - 25) : ldexpf((float)man, -24);
    if (exp == 0x1f) v = man ? NAN : INFINITY;
    return (h & 0x8000) ? -v : v;
}

/* A deterministic value in [-1, 1] for element i of matrix seed. */
static inline float test_value(unsigned seed, long i)
{
    uint32_t x = (uint32_t)(seed * 2654435761u) ^ (uint32_t)(i * 40503u + 1);
    x ^= x >> 13, x *= 0x5bd1e995u, x ^= x >> 15;
    return (float)(x % 2001) / 1000.0f - 1.0f;
}

#endif
