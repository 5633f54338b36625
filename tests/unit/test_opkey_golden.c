/* Operator keys are the bank's keys: the key builder must give exactly the
 * keys the code before it gave, or every existing bank entry is lost. The
 * goldens below were computed by that code (store/opkey.c before the
 * builder) for the launches of opkey_golden_cases.h, on x86-64 (keys hash
 * host-endian integers, as they always have). */
#include "opkey_golden_cases.h"

#include <criterion/criterion.h>

static const uint64_t golden_kernel[GOLDEN_KERNELS] = {
    0xcff2376f17e26061ull, 0x72bb78f2ce807784ull, 0x29b4b1a37bb6837aull,
    0x16e90b994bd66bf2ull, 0xfcdb12f110cb25b9ull, 0x28b2c41493f2a000ull,
    0x8646d7f60a354896ull, 0xb22f9a769b519bb9ull, 0xac894b259fa2ee7full,
};

static const aoe_key golden_launch[GOLDEN_LAUNCHES] = {
    {0xbe6ccabb4968a8d4ull, 0x6e07331210745746ull}, {0x20d4b3fe8a8c9b31ull, 0x27f5ad0ff2021842ull},
    {0x2a65c5580c08abefull, 0x3fe191e1ea069375ull}, {0x9dc057f34f1c719bull, 0x9b0ca677b7e3bc92ull},
    {0x97a990b660d6686full, 0x0bebc48ab5e81bafull}, {0xecf7cd4e7c52bb43ull, 0x0083a6d661422bc9ull},
    {0x9df48cb302d2cc47ull, 0xd167841a2eedf0b8ull}, {0x9cb7050b9e18666aull, 0x11a4e8e95a725e76ull},
    {0x824a026e9b8661deull, 0xd1e5b00a5d7e1edfull}, {0x8f997569e7486a95ull, 0x82742fb9bfb364aeull},
    {0x544ec7faa94045a2ull, 0xd87af6af3e1f3042ull}, {0x276a6fc7e0519e7eull, 0x3e3acdb756839e92ull},
    {0x27027e199f68e630ull, 0x2a7ec66225a0f8e7ull}, {0xf82bb07ce1553f85ull, 0xc40d1b2e97f21d81ull},
    {0xa6709faa80aa5297ull, 0xfa9da0e1adb1fc8dull}, {0x46547fc7e5a413d9ull, 0x7d880b4a9c376105ull},
};

Test(opkey_golden, kernel_parts_are_unchanged)
{
    for (int i = 0; i < GOLDEN_KERNELS; i++)
        cr_expect_eq(golden_kernel_part(i), golden_kernel[i], "kernel part %d: %016llx", i,
                     (unsigned long long)golden_kernel_part(i));
}

Test(opkey_golden, launch_keys_are_unchanged)
{
    for (int i = 0; i < GOLDEN_LAUNCHES; i++) {
        aoe_key k = golden_launch_key(i, golden_kernel_part(i % GOLDEN_KERNELS));
        cr_expect(k.hi == golden_launch[i].hi && k.lo == golden_launch[i].lo,
                  "launch %d: %016llx%016llx", i, (unsigned long long)k.hi,
                  (unsigned long long)k.lo);
    }
}
