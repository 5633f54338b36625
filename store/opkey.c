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

/* ---- builder ---- */

_Static_assert(sizeof(XXH3_state_t) <= sizeof(((aoe_opkey_builder *)0)->state),
               "aoe_opkey_builder.state too small for XXH3_state_t");
_Static_assert(_Alignof(XXH3_state_t) <= 64, "aoe_opkey_builder.state under-aligned");

static inline XXH3_state_t *stream_state(aoe_opkey_builder *b)
{
    return (XXH3_state_t *)(void *)b->state;
}

/* The fill level travels as a value (n in, n out) through the inline
 * helpers: the launch key keeps it in a register, and only the builder's
 * public functions store it. */

/* Hands buf[0..n) on: into the stream, or folded into the seed. */
static __attribute__((noinline, cold)) void flush(aoe_opkey_builder *b, size_t n)
{
    if (b->stream)
        XXH3_64bits_update(stream_state(b), b->buf, n);
    else
        b->seed = aoe_hash64_bytes(b->buf, n, b->seed);
}

/* A piece that does not fit is moved whole into an emptied buffer (the
 * launch keys' layout since format 1); only a piece longer than the whole
 * buffer (a long string) is cut, at buffer boundaries. Out of line: the
 * launch path's common case never gets here. */
static __attribute__((noinline, cold)) size_t put_slow(aoe_opkey_builder *b, size_t n,
                                                       const uint8_t *s, size_t len)
{
    flush(b, n);
    while (len > sizeof b->buf) {
        memcpy(b->buf, s, sizeof b->buf);
        flush(b, sizeof b->buf);
        s += sizeof b->buf, len -= sizeof b->buf;
    }
    memcpy(b->buf, s, len);
    return len;
}

static inline size_t put(aoe_opkey_builder *b, size_t n, const void *p, size_t len)
{
    if (__builtin_expect(n + len > sizeof b->buf, 0)) return put_slow(b, n, p, len);
    memcpy(b->buf + n, p, len);
    return n + len;
}

/* Fixed-size fields: never longer than the buffer, so "full: flush, then
 * copy" (the value never leaves registers on the common path). */
#define PUT_FIXED(b, n, v)                                                                         \
    do {                                                                                           \
        if (__builtin_expect((n) + sizeof(v) > sizeof(b)->buf, 0)) flush((b), (n)), (n) = 0;       \
        memcpy((b)->buf + (n), &(v), sizeof(v));                                                   \
        (n) += sizeof(v);                                                                          \
    } while (0)

static inline size_t put_u8(aoe_opkey_builder *b, size_t n, uint8_t v)
{
    PUT_FIXED(b, n, v);
    return n;
}

static inline size_t put_u32(aoe_opkey_builder *b, size_t n, uint32_t v)
{
    PUT_FIXED(b, n, v);
    return n;
}

static inline size_t put_u64(aoe_opkey_builder *b, size_t n, uint64_t v)
{
    PUT_FIXED(b, n, v);
    return n;
}

static inline size_t put_bytes(aoe_opkey_builder *b, size_t n, const void *data, uint32_t len)
{
    n = put_u32(b, n, len);
    if (len <= 64) return put(b, n, data, len);
    return put_u64(b, n, aoe_hash64_bytes(data, len, len));
}

static inline size_t put_shape(aoe_opkey_builder *b, size_t n, uint32_t ndim, const size_t *dims)
{
    n = put_u32(b, n, ndim);
    for (uint32_t d = 0; d < ndim; d++) n = put_u64(b, n, dims ? (uint64_t)dims[d] : 0);
    return n;
}

static inline size_t put_arg(aoe_opkey_builder *b, size_t n, const aoe_arg_shape *a)
{
    n = put_u8(b, n, a->kind);
    if (a->kind == AOE_ARGK_SCALAR) return put_bytes(b, n, a->bytes, a->size);
    if (a->kind == AOE_ARGK_BUFFER || a->kind == AOE_ARGK_LOCAL || a->kind == AOE_ARGK_IMAGE ||
        a->kind == AOE_ARGK_SAMPLER)
        return put_u64(b, n, a->extent);
    return n;
}

uint64_t aoe_opkey_image_extent(uint32_t type, uint32_t order, uint32_t data_type, uint64_t width,
                                uint64_t height, uint64_t depth, uint64_t array_size)
{
    aoe_opkey_builder b;
    aoe_opkey_begin(&b, 0x696d616765ULL); /* "image" */
    aoe_opkey_add_u32(&b, type);
    aoe_opkey_add_u32(&b, order);
    aoe_opkey_add_u32(&b, data_type);
    aoe_opkey_add_u64(&b, width);
    aoe_opkey_add_u64(&b, height);
    aoe_opkey_add_u64(&b, depth);
    aoe_opkey_add_u64(&b, array_size);
    aoe_key k = aoe_opkey_finish(&b);
    uint64_t v = k.lo >> 2; /* below 2^62: the OpenCL shim keeps it in a tagged table value */
    return v ? v : 1;
}

uint64_t aoe_opkey_sampler_extent(uint32_t normalized, uint32_t addressing, uint32_t filter)
{
    return ((uint64_t)(normalized != 0) << 48) | ((uint64_t)(addressing & 0xffffff) << 24) |
           (filter & 0xffffff);
}

void aoe_opkey_begin(aoe_opkey_builder *b, uint64_t seed)
{
    b->seed = seed;
    b->n = 0;
    b->stream = 0;
}

void aoe_opkey_begin64(aoe_opkey_builder *b, uint64_t seed)
{
    b->seed = seed;
    b->n = 0;
    b->stream = 1;
    /* A seeded reset trusts the state's old seed and secret: without this a
     * stale stack that holds our seed leaves a garbage secret (keys vary). */
    XXH3_INITSTATE(stream_state(b));
    XXH3_64bits_reset_withSeed(stream_state(b), seed);
}

void aoe_opkey_add_u8(aoe_opkey_builder *b, uint8_t v)
{
    b->n = (uint32_t)put_u8(b, b->n, v);
}

void aoe_opkey_add_u32(aoe_opkey_builder *b, uint32_t v)
{
    b->n = (uint32_t)put_u32(b, b->n, v);
}

void aoe_opkey_add_u64(aoe_opkey_builder *b, uint64_t v)
{
    b->n = (uint32_t)put_u64(b, b->n, v);
}

void aoe_opkey_add_bytes(aoe_opkey_builder *b, const void *data, uint32_t len)
{
    b->n = (uint32_t)put_bytes(b, b->n, data, len);
}

void aoe_opkey_add_string(aoe_opkey_builder *b, const char *s)
{
    if (!s) s = "";
    b->n = (uint32_t)put(b, b->n, s, strlen(s) + 1);
}

void aoe_opkey_add_shape(aoe_opkey_builder *b, uint32_t ndim, const size_t *dims)
{
    b->n = (uint32_t)put_shape(b, b->n, ndim, dims);
}

void aoe_opkey_add_arg(aoe_opkey_builder *b, const aoe_arg_shape *arg)
{
    b->n = (uint32_t)put_arg(b, b->n, arg);
}

static inline aoe_key finish(aoe_opkey_builder *b, size_t n)
{
    aoe_hash128 h = aoe_hash128_bytes(b->buf, n, b->seed);
    return (aoe_key){h.hi, h.lo};
}

aoe_key aoe_opkey_finish(aoe_opkey_builder *b)
{
    return finish(b, b->n);
}

uint64_t aoe_opkey_finish64(aoe_opkey_builder *b)
{
    flush(b, b->n);
    b->n = 0;
    return XXH3_64bits_digest(stream_state(b));
}

/* ---- the OpenCL operator key ---- */

uint64_t aoe_opkey_kernel(const char *fingerprint, aoe_hash128 program, const char *kernel_name,
                          const char *options)
{
    aoe_opkey_builder b;
    char norm[4096];
    aoe_opkey_begin64(&b, 0x414f454b45524eull); /* "AOEKERN" */
    aoe_opkey_add_string(&b, fingerprint);
    aoe_opkey_add_u64(&b, program.hi);
    aoe_opkey_add_u64(&b, program.lo);
    aoe_opkey_add_string(&b, kernel_name);
    aoe_opkey_add_string(&b, aoe_options_normalise(options, norm, sizeof norm));
    return aoe_opkey_finish64(&b);
}

/* The builder sequence spelled out inline (same fields as aoe_opkey_add_*):
 * this runs whenever a kernel's launch shape changes. */
aoe_key aoe_opkey_launch(uint64_t kernel_part, uint32_t work_dim, const size_t *global,
                         const size_t *local, uint32_t nargs, const aoe_arg_shape *args)
{
    aoe_opkey_builder b;
    size_t n = 0;
    if (work_dim > 3) work_dim = 3;
    aoe_opkey_begin(&b, kernel_part);
    n = put_shape(&b, n, work_dim, global);
    n = put_u8(&b, n, local != NULL);
    for (uint32_t d = 0; local && d < work_dim; d++) n = put_u64(&b, n, local[d]);
    n = put_u32(&b, n, nargs);
    for (uint32_t i = 0; i < nargs; i++) n = put_arg(&b, n, &args[i]);
    return finish(&b, n);
}

/* The family key: the launch key's fields under another seed, for a NULL
 * local size only, scalars by kind and size (their bytes only when kept). */
aoe_key aoe_opkey_family(uint64_t kernel_part, uint32_t work_dim, const size_t *global,
                         uint32_t nargs, const aoe_arg_shape *args, uint64_t keep_scalars)
{
    aoe_opkey_builder b;
    size_t n = 0;
    if (work_dim > 3) work_dim = 3;
    aoe_opkey_begin(&b, kernel_part ^ 0x414f4546414d4c59ull); /* "AOEFAMLY" */
    n = put_shape(&b, n, work_dim, global);
    n = put_u32(&b, n, nargs);
    for (uint32_t i = 0; i < nargs; i++) {
        const aoe_arg_shape *a = &args[i];
        int keep = i < 64 && (keep_scalars >> i & 1);
        if (a->kind != AOE_ARGK_SCALAR) {
            n = put_arg(&b, n, a);
            continue;
        }
        n = put_u8(&b, n, a->kind);
        n = put_u8(&b, n, (uint8_t)keep);
        n = keep ? put_bytes(&b, n, a->bytes, a->size) : put_u32(&b, n, a->size);
    }
    return finish(&b, n);
}
