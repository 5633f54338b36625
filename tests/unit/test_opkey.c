/* Operator keys are a pure function of their inputs: whatever ran before on
 * the same stack (another job, another kernel) never changes them. */
#include "store/opkey.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#define SEED_KERN 0x414f454b45524eull /* the kernel part's seed ("AOEKERN") */

/* Leaves stale bytes on the stack where the next call's locals will live:
 * words that look like a hashing state seeded as the key's, next to a NULL
 * pointer, and garbage elsewhere (what an earlier job leaves behind). */
static __attribute__((noinline)) uint64_t scribble(int phase)
{
    volatile uint64_t junk[8192];
    for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++) {
        size_t r = (i + (size_t)phase) % 3;
        junk[i] = r == 0 ? SEED_KERN : r == 1 ? 0x5a5a5a5a5a5a5a5aull ^ i : 0;
    }
    return junk[phase];
}

static __attribute__((noinline)) uint64_t kernel_key(void)
{
    aoe_hash128 prog = aoe_program_hash("kernel void k(global int *a) {}", 31);
    /* over 240 bytes in all: xxHash then hashes with the state's secret */
    return aoe_opkey_kernel("opencl|pocl|cpu|3.0|cu=2", prog, "k",
                            "  -DTILE=16   -cl-mad-enable -DLONG_OPTION_NAME_0=1 "
                            "-DLONG_OPTION_NAME_1=1 -DLONG_OPTION_NAME_2=1 -DLONG_OPTION_NAME_3=1 "
                            "-DLONG_OPTION_NAME_4=1 -DLONG_OPTION_NAME_5=1 -DLONG_OPTION_NAME_6=1 "
                            "-DLONG_OPTION_NAME_7=1 -DLONG_OPTION_NAME_8=1 -DLONG_OPTION_NAME_9=1");
}

Test(opkey, kernel_key_does_not_depend_on_stale_stack)
{
    uint64_t first = kernel_key();
    for (int phase = 0; phase < 3; phase++) {
        (void)scribble(phase);
        cr_assert_eq(kernel_key(), first, "key changed after stale stack (phase %d)", phase);
    }
}

Test(opkey, launch_key_is_stable_between_jobs)
{
    size_t g[2] = {1024, 64}, l[2] = {16, 8};
    int scalar = 7;
    aoe_arg_shape args[3] = {
        {.kind = AOE_ARGK_BUFFER, .extent = 4096},
        {.kind = AOE_ARGK_SCALAR, .size = sizeof scalar, .bytes = &scalar},
        {.kind = AOE_ARGK_LOCAL, .extent = 256},
    };
    uint64_t kp = kernel_key();
    aoe_key a = aoe_opkey_launch(kp, 2, g, l, 3, args);
    (void)scribble(1);
    /* another job's key in between */
    size_t g2[1] = {77};
    (void)aoe_opkey_launch(kernel_key() ^ 1, 1, g2, NULL, 1, args);
    (void)scribble(2);
    aoe_key b = aoe_opkey_launch(kernel_key(), 2, g, l, 3, args);
    cr_assert(a.hi == b.hi && a.lo == b.lo);
}

/* ---- the key builder ---- */

static int same(aoe_key a, aoe_key b)
{
    return a.hi == b.hi && a.lo == b.lo;
}

static aoe_key two_strings(const char *a, const char *b)
{
    aoe_opkey_builder k;
    aoe_opkey_begin(&k, 42);
    aoe_opkey_add_string(&k, a);
    aoe_opkey_add_string(&k, b);
    return aoe_opkey_finish(&k);
}

static aoe_key two_blobs(const char *a, const char *b)
{
    aoe_opkey_builder k;
    aoe_opkey_begin(&k, 42);
    aoe_opkey_add_bytes(&k, a, (uint32_t)strlen(a));
    aoe_opkey_add_bytes(&k, b, (uint32_t)strlen(b));
    return aoe_opkey_finish(&k);
}

Test(opkey_builder, field_boundaries_count)
{
    cr_assert(!same(two_strings("ab", "c"), two_strings("a", "bc")));
    cr_assert(!same(two_strings("", "abc"), two_strings("abc", "")));
    cr_assert(!same(two_blobs("ab", "c"), two_blobs("a", "bc")));
    cr_assert(same(two_strings("ab", "c"), two_strings("ab", "c")));
    /* a shape carries its dimension count: (1 dim: 5), 0 is not (2 dims: 5, 0) */
    size_t d[2] = {5, 0};
    aoe_opkey_builder k;
    aoe_opkey_begin(&k, 1);
    aoe_opkey_add_shape(&k, 1, d);
    aoe_key one = aoe_opkey_finish(&k);
    aoe_opkey_begin(&k, 1);
    aoe_opkey_add_shape(&k, 2, d);
    cr_assert(!same(one, aoe_opkey_finish(&k)));
}

Test(opkey_builder, order_and_seed_matter)
{
    aoe_opkey_builder k;
    aoe_opkey_begin(&k, 7);
    aoe_opkey_add_u64(&k, 1);
    aoe_opkey_add_u64(&k, 2);
    aoe_key a = aoe_opkey_finish(&k);
    aoe_opkey_begin(&k, 7);
    aoe_opkey_add_u64(&k, 2);
    aoe_opkey_add_u64(&k, 1);
    cr_assert(!same(a, aoe_opkey_finish(&k)));
    aoe_opkey_begin(&k, 8);
    aoe_opkey_add_u64(&k, 1);
    aoe_opkey_add_u64(&k, 2);
    cr_assert(!same(a, aoe_opkey_finish(&k)));
    aoe_opkey_begin(&k, 7);
    aoe_opkey_add_u64(&k, 1);
    aoe_opkey_add_u64(&k, 2);
    cr_assert(same(a, aoe_opkey_finish(&k)));
}

Test(opkey_builder, null_shape_is_zeros_and_long_fields_count_whole)
{
    size_t z[3] = {0, 0, 0};
    aoe_opkey_builder k;
    aoe_opkey_begin(&k, 3);
    aoe_opkey_add_shape(&k, 3, NULL);
    aoe_key a = aoe_opkey_finish(&k);
    aoe_opkey_begin(&k, 3);
    aoe_opkey_add_shape(&k, 3, z);
    cr_assert(same(a, aoe_opkey_finish(&k)));
    /* strings longer than the builder's buffer: every byte counts */
    char s1[3000], s2[3000];
    memset(s1, 'x', sizeof s1 - 1), s1[sizeof s1 - 1] = '\0';
    memcpy(s2, s1, sizeof s1);
    s2[2500] = 'y';
    cr_assert(!same(two_strings(s1, "t"), two_strings(s2, "t")));
    cr_assert(same(two_strings(s1, "t"), two_strings(s1, "t")));
    /* byte strings past 64 bytes are hashed: still every byte counts */
    char b1[200], b2[200];
    memset(b1, 1, sizeof b1), memcpy(b2, b1, sizeof b1);
    b2[150] = 2;
    aoe_opkey_begin(&k, 3);
    aoe_opkey_add_bytes(&k, b1, sizeof b1);
    a = aoe_opkey_finish(&k);
    aoe_opkey_begin(&k, 3);
    aoe_opkey_add_bytes(&k, b2, sizeof b2);
    cr_assert(!same(a, aoe_opkey_finish(&k)));
}

Test(opkey_builder, identity_flavour_is_one_hash_of_the_fields)
{
    /* begin64 streams: however the fields are cut, the identity is the hash
     * of their concatenation (what the kernel part always was) */
    aoe_opkey_builder k;
    char big[2000];
    memset(big, 'q', sizeof big - 1), big[sizeof big - 1] = '\0';
    aoe_opkey_begin64(&k, 99);
    aoe_opkey_add_string(&k, "ab");
    aoe_opkey_add_string(&k, big);
    aoe_opkey_add_u32(&k, 5);
    uint64_t id = aoe_opkey_finish64(&k);
    uint8_t flat[3 + sizeof big + 4];
    uint32_t five = 5;
    memcpy(flat, "ab", 3);
    memcpy(flat + 3, big, sizeof big);
    memcpy(flat + 3 + sizeof big, &five, 4);
    cr_assert_eq(id, aoe_hash64_bytes(flat, sizeof flat, 99));
    (void)scribble(0);
    aoe_opkey_begin64(&k, 99);
    aoe_opkey_add_string(&k, "a");
    aoe_opkey_add_string(&k, "b");
    aoe_opkey_add_string(&k, big);
    aoe_opkey_add_u32(&k, 5);
    cr_assert_neq(aoe_opkey_finish64(&k), id);
}

Test(opkey_builder, launch_key_is_the_builder_sequence)
{
    /* aoe_opkey_launch is exactly: shape(global), u8 has_local, local sizes,
     * u32 nargs, each argument (documented order; other runtimes build
     * theirs the same way) */
    size_t g[2] = {128, 4}, l[2] = {32, 2};
    int v = 3;
    aoe_arg_shape args[2] = {{.kind = AOE_ARGK_SCALAR, .size = 4, .bytes = &v},
                             {.kind = AOE_ARGK_BUFFER, .extent = 512}};
    aoe_opkey_builder k;
    aoe_opkey_begin(&k, 0x1234);
    aoe_opkey_add_shape(&k, 2, g);
    aoe_opkey_add_u8(&k, 1);
    aoe_opkey_add_u64(&k, 32);
    aoe_opkey_add_u64(&k, 2);
    aoe_opkey_add_u32(&k, 2);
    aoe_opkey_add_arg(&k, &args[0]);
    aoe_opkey_add_arg(&k, &args[1]);
    cr_assert(same(aoe_opkey_finish(&k), aoe_opkey_launch(0x1234, 2, g, l, 2, args)));
}
