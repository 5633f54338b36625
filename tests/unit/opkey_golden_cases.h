/* The launches whose operator keys tests/unit/test_opkey_golden.c pins: kernel
 * parts (fingerprint, program, name, options) and launch parts (work sizes,
 * every argument kind, scalars around the 64-byte hashing limit, argument
 * lists long enough to fold the 512-byte buffer several times). Built
 * deterministically from the case index, so the goldens (computed by the
 * key code before the key builder existed) are reproducible. */
#ifndef AOE_OPKEY_GOLDEN_CASES_H
#define AOE_OPKEY_GOLDEN_CASES_H

#include "store/opkey.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define GOLDEN_KERNELS 9
#define GOLDEN_LAUNCHES 16
#define GOLDEN_MAX_ARGS 150

static const char golden_long_options[] =
    "  -DTILE=16   -cl-mad-enable -DLONG_OPTION_NAME_0=1 \t-DLONG_OPTION_NAME_1=1 "
    "-DLONG_OPTION_NAME_2=1 -DLONG_OPTION_NAME_3=1 -DLONG_OPTION_NAME_4=1 -DLONG_OPTION_NAME_5=1 "
    "-DLONG_OPTION_NAME_6=1 -DLONG_OPTION_NAME_7=1 -DLONG_OPTION_NAME_8=1 -DLONG_OPTION_NAME_9=1 "
    "-DLONG_OPTION_NAME_10=1 -DLONG_OPTION_NAME_11=1 -DLONG_OPTION_NAME_12=1 -I /usr/include "
    "-DLONG_OPTION_NAME_13=1 -DLONG_OPTION_NAME_14=1 -DLONG_OPTION_NAME_15=1 -cl-fast-relaxed-math "
    "-DLONG_OPTION_NAME_16=1 -DLONG_OPTION_NAME_17=1 -DLONG_OPTION_NAME_18=1 -DLAST=1\n";

/* Kernel part i: its fingerprint, program bytes, kernel name and options. */
static uint64_t golden_kernel_part(int i)
{
    static const char *const fps[] = {
        "opencl|pocl|cpu|3.0|cu=2",
        "opencl|NVIDIA Corporation|NVIDIA GeForce RTX 3090|535.104.05|cu=82",
        "",
    };
    static const char *const names[] = {"k", "gemm_tiled", "reduce_sum_float4", ""};
    const char *src = i % 2 ? "kernel void k(global int *a) { a[get_global_id(0)] = 1; }"
                            : "__kernel void gemm(__global float *c) {}";
    static char huge[5000]; /* longer than the 4096 bytes options are normalised into */
    size_t hn = 0;
    while (hn + 16 < sizeof huge)
        hn += (size_t)snprintf(huge + hn, sizeof huge - hn, " -DX%zu=1", hn);
    uint8_t binary[300];
    for (size_t b = 0; b < sizeof binary; b++) binary[b] = (uint8_t)(b * 7 + (size_t)i);
    aoe_hash128 prog =
        i == 5 ? aoe_program_hash(binary, sizeof binary) : aoe_program_hash(src, strlen(src));
    const char *options = i == 0   ? ""
                          : i == 1 ? NULL
                          : i == 2 ? "-DTILE=8 -cl-mad-enable"
                          : i == 3 ? "   -DTILE=8\t\t-cl-mad-enable  "
                          : i == 4 ? golden_long_options
                          : i == 6 ? "-DA=1 -DB=2"
                          : i == 8 ? huge
                                   : "-DB=2 -DA=1";
    return aoe_opkey_kernel(fps[i % 3], prog, names[i % 4], options);
}

/* Launch part i over kernel part kp. */
static aoe_key golden_launch_key(int i, uint64_t kp)
{
    size_t g[3] = {1024, 64, 3}, l[3] = {16, 8, 1};
    uint8_t scalar_bytes[GOLDEN_MAX_ARGS][80];
    aoe_arg_shape args[GOLDEN_MAX_ARGS];
    uint32_t wd = (uint32_t)(i % 3) + 1, nargs = 0;
    const size_t *gp = g, *lp = l;
    memset(args, 0, sizeof args);
    for (int a = 0; a < GOLDEN_MAX_ARGS; a++)
        for (int b = 0; b < 80; b++) scalar_bytes[a][b] = (uint8_t)(a * 31 + b + i);
    switch (i) {
    case 0: /* no arguments, NULL local size */
        lp = NULL;
        break;
    case 1: /* the common case: buffer, scalar, local memory */
        args[0] = (aoe_arg_shape){AOE_ARGK_BUFFER, 0, 4096, NULL};
        args[1] = (aoe_arg_shape){AOE_ARGK_SCALAR, 4, 0, scalar_bytes[1]};
        args[2] = (aoe_arg_shape){AOE_ARGK_LOCAL, 0, 256, NULL};
        nargs = 3;
        break;
    case 2: /* unset and NULL memory objects */
        args[0] = (aoe_arg_shape){AOE_ARGK_UNSET, 0, 99, NULL};
        args[1] = (aoe_arg_shape){AOE_ARGK_NULLMEM, 0, 0, NULL};
        args[2] = (aoe_arg_shape){AOE_ARGK_BUFFER, 0, 1ULL << 40, NULL};
        nargs = 3;
        break;
    case 3: /* scalars at the hashing limit and past it */
        args[0] = (aoe_arg_shape){AOE_ARGK_SCALAR, 64, 0, scalar_bytes[0]};
        args[1] = (aoe_arg_shape){AOE_ARGK_SCALAR, 65, 0, scalar_bytes[1]};
        args[2] = (aoe_arg_shape){AOE_ARGK_SCALAR, 1, 0, scalar_bytes[2]};
        args[3] = (aoe_arg_shape){AOE_ARGK_SCALAR, 0, 0, scalar_bytes[3]};
        nargs = 4;
        break;
    case 4: /* work_dim above 3 is clamped */
        wd = 7;
        break;
    case 5: /* NULL global size */
        gp = NULL;
        break;
    case 6: /* zero work_dim */
        wd = 0;
        break;
    default: /* long lists: the 512-byte buffer folds at different points */
        nargs = (uint32_t)(20 + (i - 7) * 15);
        for (uint32_t a = 0; a < nargs; a++) {
            uint32_t kind = (a + (uint32_t)i) % 5;
            uint32_t size = (a * 13 + (uint32_t)i) % 80;
            args[a] = (aoe_arg_shape){(uint8_t)kind, kind == AOE_ARGK_SCALAR ? size : 0,
                                      kind == AOE_ARGK_SCALAR ? 0 : (uint64_t)a * 1000 + 1,
                                      kind == AOE_ARGK_SCALAR ? scalar_bytes[a] : NULL};
        }
        break;
    }
    return aoe_opkey_launch(kp, wd, gp, lp, nargs, nargs ? args : NULL);
}

#endif
