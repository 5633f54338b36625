#include "store/opkey.h"

#include <ctype.h>
#include <string.h>
#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t on the stack */
#include <xxhash.h>

aoe_hash128 aoe_hash128_bytes(const void *data, size_t len, uint64_t seed)
{
    XXH128_hash_t h = XXH3_128bits_withSeed(data, len, seed);
    return (aoe_hash128){h.high64, h.low64};
}

uint64_t aoe_hash64_bytes(const void *data, size_t len, uint64_t seed)
{
    return XXH3_64bits_withSeed(data, len, seed);
}

aoe_hash128 aoe_program_hash(const void *data, size_t len)
{
    return aoe_hash128_bytes(data, len, 0x414f4550524f47ull); /* "AOEPROG" */
}

char *aoe_options_normalise(const char *options, char *out, size_t outlen)
{
    size_t n = 0;
    int space = 0;
    if (!outlen) return out;
    for (const char *p = options ? options : ""; *p && n + 1 < outlen; p++) {
        if (isspace((unsigned char)*p)) {
            space = n > 0;
            continue;
        }
        if (space && n + 2 < outlen) out[n++] = ' ';
        space = 0;
        out[n++] = *p;
    }
    out[n] = '\0';
    return out;
}

uint64_t aoe_opkey_kernel(const char *fingerprint, aoe_hash128 program, const char *kernel_name,
                          const char *options)
{
    XXH3_state_t st;
    char norm[4096];
    /* A seeded reset trusts the state's old seed and secret: without this a
     * stale stack that holds our seed leaves a garbage secret (keys vary). */
    XXH3_INITSTATE(&st);
    XXH3_64bits_reset_withSeed(&st, 0x414f454b45524eull); /* "AOEKERN" */
    XXH3_64bits_update(&st, fingerprint, strlen(fingerprint) + 1);
    XXH3_64bits_update(&st, &program, sizeof program);
    XXH3_64bits_update(&st, kernel_name, strlen(kernel_name) + 1);
    aoe_options_normalise(options, norm, sizeof norm);
    XXH3_64bits_update(&st, norm, strlen(norm) + 1);
    return XXH3_64bits_digest(&st);
}

aoe_key aoe_opkey_launch(uint64_t kernel_part, uint32_t work_dim, const size_t *global,
                         const size_t *local, uint32_t nargs, const aoe_arg_shape *args)
{
    /* Serialise into a stack buffer; scalars longer than the buffer are hashed
     * through their own 64-bit hash. */
    uint8_t buf[512];
    size_t n = 0;
    uint64_t seed = kernel_part;
    /* A full buffer is folded into the seed, so any number of arguments counts. */
#define PUT(ptr, len)                                                                              \
    do {                                                                                           \
        if (n + (len) > sizeof buf) {                                                              \
            seed = aoe_hash64_bytes(buf, n, seed);                                                 \
            n = 0;                                                                                 \
        }                                                                                          \
        memcpy(buf + n, (ptr), (len));                                                             \
        n += (len);                                                                                \
    } while (0)
    uint64_t v;
    if (work_dim > 3) work_dim = 3;
    PUT(&work_dim, sizeof work_dim);
    for (uint32_t d = 0; d < work_dim; d++) {
        v = global ? global[d] : 0;
        PUT(&v, sizeof v);
    }
    uint8_t has_local = local != NULL;
    PUT(&has_local, 1);
    for (uint32_t d = 0; has_local && d < work_dim; d++) {
        v = local[d];
        PUT(&v, sizeof v);
    }
    PUT(&nargs, sizeof nargs);
    for (uint32_t i = 0; i < nargs; i++) {
        const aoe_arg_shape *a = &args[i];
        PUT(&a->kind, 1);
        if (a->kind == AOE_ARGK_SCALAR) {
            PUT(&a->size, sizeof a->size);
            if (a->size <= 64) {
                PUT(a->bytes, a->size);
            } else {
                uint64_t h = aoe_hash64_bytes(a->bytes, a->size, a->size);
                PUT(&h, sizeof h);
            }
        } else if (a->kind == AOE_ARGK_BUFFER || a->kind == AOE_ARGK_LOCAL) {
            PUT(&a->extent, sizeof a->extent);
        }
    }
#undef PUT
    aoe_hash128 h = aoe_hash128_bytes(buf, n, seed);
    return (aoe_key){h.hi, h.lo};
}
