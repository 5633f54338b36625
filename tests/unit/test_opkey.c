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
