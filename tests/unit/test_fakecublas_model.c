/* The cuBLAS test doubles' model (tests/fakecublas, no CUDA header needed):
 * f16/bf16 conversion, the reference GEMM with transposes, batches and
 * epilogues, the planted errors' positions, the cost model and workspace
 * formula, and the catalogue's JSON form. */
#include "fc_catalogue.h"
#include "fc_gemm.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

Test(fakecublas_model, half_round_trip_every_value)
{
    for (uint32_t v = 0; v < 65536; v++) {
        uint16_t h = (uint16_t)v, back = 0;
        float f = fc_load(&h, FC_F16, 0);
        if (isnan(f)) continue;
        fc_store(&back, FC_F16, 0, f);
        cr_assert_eq(back, h, "f16 %#x -> %g -> %#x", h, f, back);
        fc_store(&back, FC_BF16, 0, fc_load(&h, FC_BF16, 0));
        cr_assert_eq(back, h, "bf16 %#x", h);
    }
}

Test(fakecublas_model, half_rounding)
{
    uint16_t h;
    fc_store(&h, FC_F16, 0, 1.0f + ldexpf(1.0f, -11)); /* halfway: to even */
    cr_assert_eq(h, 0x3c00);
    fc_store(&h, FC_F16, 0, 1.0f + 3 * ldexpf(1.0f, -11));
    cr_assert_eq(h, 0x3c02);
    fc_store(&h, FC_F16, 0, 70000.0f);
    cr_assert_eq(h, 0x7c00);
    fc_store(&h, FC_F16, 0, -ldexpf(1.0f, -24));
    cr_assert_eq(h, 0x8001);
    fc_store(&h, FC_BF16, 0, 1.0f + ldexpf(1.0f, -8)); /* halfway: to even */
    cr_assert_eq(h, 0x3f80);
    fc_store(&h, FC_BF16, 0, 1.0f + 3 * ldexpf(1.0f, -8));
    cr_assert_eq(h, 0x3f82);
    cr_assert_eq(fc_elem_of(0), FC_F32);
    cr_assert_eq(fc_elem_of(2), FC_F16);
    cr_assert_eq(fc_elem_of(14), FC_BF16);
    cr_assert_eq(fc_elem_of(1), -1);
}

/* D[m,n] (ld 3) = alpha * op(A) op(B) + beta * C + bias, 2 batches. */
Test(fakecublas_model, gemm_transposes_batches_epilogue)
{
    enum { M = 2, N = 3, K = 4, LDD = 3, B = 2 };
    float a[B][K * M], b[B][N * K], c[B][LDD * N], d[B][LDD * N], bias[B][M];
    for (int q = 0; q < B; q++) {
        for (int i = 0; i < K * M; i++) a[q][i] = (float)(i % 5) - 2 + q;
        for (int i = 0; i < N * K; i++) b[q][i] = (float)(i % 3) - 1;
        for (int i = 0; i < LDD * N; i++) c[q][i] = (float)i, d[q][i] = -99;
        for (int i = 0; i < M; i++) bias[q][i] = 10.0f * (i + 1) + q;
    }
    /* A stored K x M (transa), B stored N x K (transb). */
    struct fc_gemm g = {.transa = 1,
                        .transb = 1,
                        .m = M,
                        .n = N,
                        .k = K,
                        .batch = B,
                        .alpha = 2,
                        .beta = 0.5f,
                        .a = {a, FC_F32, K, K * M},
                        .b = {b, FC_F32, N, N * K},
                        .c = {c, FC_F32, LDD, LDD * N},
                        .d = {d, FC_F32, LDD, LDD * N},
                        .epilogue = 2 | 4, /* RELU_BIAS */
                        .bias = bias,
                        .bias_type = FC_F32,
                        .bias_stride = M};
    fc_gemm_run(&g, NULL);
    for (int q = 0; q < B; q++)
        for (int j = 0; j < N; j++) {
            for (int i = 0; i < M; i++) {
                float acc = 0;
                for (int l = 0; l < K; l++) acc += a[q][l + i * K] * b[q][j + l * N];
                float want = 2 * acc + 0.5f * c[q][i + j * LDD] + bias[q][i];
                want = want > 0 ? want : 0;
                cr_assert_float_eq(d[q][i + j * LDD], want, 1e-5, "batch %d (%d,%d)", q, i, j);
            }
            cr_assert_eq(d[q][M + j * LDD], -99, "padding row written"); /* ld > m */
        }
}

static void planted_run(enum fc_planted kind, float *d)
{
    float a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1};
    struct fc_algo_info info;
    memset(&info, 0, sizeof info);
    info.planted = kind;
    info.planted_amount = 0.5f;
    struct fc_gemm g = {.m = 2,
                        .n = 2,
                        .k = 2,
                        .batch = 1,
                        .alpha = 1,
                        .beta = 0,
                        .a = {a, FC_F32, 2, 0},
                        .b = {b, FC_F32, 2, 0},
                        .c = {NULL, FC_F32, 2, 0},
                        .d = {d, FC_F32, 2, 0},
                        .epilogue = 1};
    fc_gemm_run(&g, &info);
}

Test(fakecublas_model, planted_errors)
{
    float d[5] = {0, 0, 0, 0, 7};
    planted_run(FC_PLANT_NONE, d);
    cr_assert(d[0] == 1 && d[1] == 2 && d[2] == 3 && d[3] == 4 && d[4] == 7);
    planted_run(FC_PLANT_OFF, d);
    cr_assert(d[0] == 1 && d[2] == 3 && d[4] == 7);
    cr_assert_float_eq(d[3], 4 + 0.5f * 5, 1e-6);
    planted_run(FC_PLANT_NAN, d);
    cr_assert(isnan(d[3]) && d[4] == 7);
    planted_run(FC_PLANT_OOB, d);
    cr_assert(d[3] == 4 && d[4] == 4, "the element past D gets written");
}

Test(fakecublas_model, cost_model_and_workspace)
{
    struct fc_catalogue cat;
    fc_catalogue_default(&cat);
    const struct fc_algo_info *six = fc_catalogue_find(&cat, 6);
    cr_assert_not_null(six);
    cr_assert_null(fc_catalogue_find(&cat, 7));
    cr_assert_eq(cat.cublas_default, 6);
    struct fc_problem skinny = {2, 512, 4096, 1}, small = {64, 64, 64, 1},
                      large = {256, 256, 256, 1};
    cr_assert_eq(fc_problem_class(&skinny), FC_CLASS_SKINNY);
    cr_assert_eq(fc_problem_class(&small), FC_CLASS_SMALL);
    cr_assert_eq(fc_problem_class(&large), FC_CLASS_LARGE);
    struct fc_config c = fc_config_default(six);
    cr_assert(c.tile == 18 && c.stages == 8 && c.split_k == 1);
    double base = fc_cost_us(six, &c, &skinny);
    cr_assert_float_eq(base, 3.0 + 2.0 * 2 * 512 * 4096 / 1e6 / 1.1, 1e-5); /* speed is a float */
    cr_assert_eq(fc_cost_us(six, &c, &skinny), base, "deterministic");
    c.split_k = 8;
    cr_assert_lt(fc_cost_us(six, &c, &skinny), base, "split-K helps a skinny GEMM");
    struct fc_config d = fc_config_default(six);
    double large_base = fc_cost_us(six, &d, &large);
    d.split_k = 8;
    cr_assert_gt(fc_cost_us(six, &d, &large), large_base, "and hurts a large one");
    d.split_k = 1, d.swizzle = 1;
    cr_assert_lt(fc_cost_us(six, &d, &large), large_base, "swizzle helps a large one");
    d.swizzle = 0, d.tile = 20;
    cr_assert_lt(fc_cost_us(six, &d, &large), large_base, "tile 20 is 5 %% faster");
    cr_assert_eq(fc_workspace_need(six, &c, &small), 4u * 8 * 64 * 64);
    c.reduction = 1; /* INPLACE */
    cr_assert_eq(fc_workspace_need(six, &c, &small), 0);
    cr_assert_eq(fc_workspace_need(fc_catalogue_find(&cat, 21), &c, &small), 4u << 20);
}

Test(fakecublas_model, catalogue_json)
{
    struct fc_catalogue cat;
    char why[128];
    cr_assert_eq(
        fc_catalogue_parse("{\"algorithms\": [{\"id\": 3}, {\"id\": 1, \"types\": [\"bf16\"],"
                           " \"tiles\": [5, 6], \"tile_speed\": [1, 2], \"planted\": \"nan\","
                           " \"speed\": {\"large\": 4}, \"heuristic\": false}]}",
                           &cat, why, sizeof why),
        0, "%s", why);
    cr_assert_eq(cat.n, 2);
    cr_assert_eq(cat.cublas_default, 3);
    const struct fc_algo_info *a = fc_catalogue_find(&cat, 3), *b = fc_catalogue_find(&cat, 1);
    cr_assert(a->types == 7 && a->align == 16 && a->heuristic && a->planted == FC_PLANT_NONE);
    cr_assert(a->epilogue_mask == 39 && a->n_tiles == 0 && a->speed[FC_CLASS_SMALL] == 1);
    cr_assert(b->types == 1u << FC_BF16 && b->n_tiles == 2 && b->tiles[1] == 6 &&
              b->tile_speed[1] == 2);
    cr_assert(b->planted == FC_PLANT_NAN && !b->heuristic && b->speed[FC_CLASS_LARGE] == 4);
    static const char *bad[] = {
        "{\"algorithms\": [{\"id\": 1, \"types\": [\"f64\"]}]}",
        "{\"algorithms\": [{\"id\": 1, \"planted\": \"maybe\"}]}",
        "{\"algorithms\": [{\"id\": 1, \"tiles\": [1, 2], \"tile_speed\": [1]}]}",
        "{\"algorithms\": [{\"id\": 1, \"tiles\": [-1]}]}",
        "{\"algorithms\": [{\"id\": 1, \"speed\": {\"small\": 0}}]}",
        "{\"algorithms\": [{\"id\": \"1\"}]}",
        "{\"algorithms\": [{\"id\": 1, \"align\": 0}]}",
        "{\"cublas_default\": 2, \"algorithms\": [{\"id\": 1}]}",
        "{\"algorithms\": {}}",
        "[]",
        "",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        why[0] = '\0';
        cr_assert_eq(fc_catalogue_parse(bad[i], &cat, why, sizeof why), -1, "accepted: %s", bad[i]);
        cr_assert_neq(why[0], '\0', "no reason for: %s", bad[i]);
    }
}
