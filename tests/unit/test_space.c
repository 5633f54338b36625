/* Search spaces: work-group sizes (divisors, device limits, reqd size),
 * declared tunables (constraints, derived sizes, parameters the program fixes
 * itself are dropped), auto-detected defines, and the refusals. */
#include "space/autodefine.h"
#include "space/space.h"
#include "space/wgsize.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static aoe_job make_job(const char *source, const char *options, uint32_t dim,
                        const uint64_t *global, const uint64_t *local, const char *space)
{
    aoe_job j;
    memset(&j, 0, sizeof j);
    j.runtime = "opencl";
    j.fingerprint = "opencl|v|d|1|cu=1";
    j.kernel_name = "k";
    j.source = (char *)source;
    j.options = (char *)options;
    j.work_dim = dim;
    for (uint32_t d = 0; d < dim; d++) {
        j.global[d] = global[d];
        j.local[d] = local ? local[d] : 0;
    }
    j.has_local = local != NULL;
    j.space_json = (char *)space;
    return j;
}

static const aoe_space_options no_files = {NULL, NULL, false};

static aoe_space *build(const aoe_job *j, const aoe_device_limits *lim,
                        const aoe_space_options *opt)
{
    char err[512] = "";
    aoe_space *sp = aoe_space_build(j, lim, opt, err, sizeof err);
    cr_assert_not_null(sp, "%s", err);
    return sp;
}

static void expect_refused(const aoe_job *j, const aoe_device_limits *lim,
                           const aoe_space_options *opt, const char *why)
{
    char err[512] = "";
    aoe_space *sp = aoe_space_build(j, lim, opt, err, sizeof err);
    cr_expect_null(sp, "built a space that should be refused (%s)", why);
    cr_expect_not_null(strstr(err, why), "expected \"%s\" in \"%s\"", why, err);
    aoe_space_free(sp);
}

Test(space, workgroup_divisors_within_limits)
{
    uint64_t g[1] = {24};
    aoe_job j = make_job("kernel", "", 1, g, NULL, NULL);
    aoe_device_limits lim = {8, {8, 1, 1}, {0, 0, 0}, 1};
    aoe_space *sp = build(&j, &lim, &no_files);
    const aoe_search_space *ss = aoe_space_configs(sp);
    int64_t want[] = {1, 2, 3, 4, 6, 8};
    cr_assert_eq(ss->n_params, 1);
    cr_assert_eq(ss->n_configs, 6);
    for (size_t c = 0; c < ss->n_configs; c++) {
        aoe_policy p;
        cr_assert_eq(aoe_space_policy(sp, &j, c, &p), 0);
        cr_expect_str_eq(p.params[0].name, "WG0");
        cr_expect_eq(p.params[0].is_define, 0);
        cr_expect_eq(p.params[0].value, want[ss->configs[c]]);
        cr_expect_eq((int64_t)p.local[0], p.params[0].value);
        cr_expect_eq(p.global[0], 24);
        cr_expect_eq(p.work_dim, 1);
    }
    cr_expect_eq(aoe_space_default_config(sp), -1, "NULL local size is no row");
    cr_expect_not_null(strstr(aoe_space_describe(sp), "WG0 in {1,2,3,4,6,8}: 6 configurations"),
                       "%s", aoe_space_describe(sp));
    cr_expect(aoe_space_tolerance(sp).exact,
              "work-group size alone must leave the program's results bit-identical");
    aoe_space_free(sp);
}

Test(space, workgroup_product_and_item_limits)
{
    uint64_t g[2] = {8, 8};
    aoe_job j = make_job("kernel", "", 2, g, NULL, NULL);
    aoe_device_limits lim = {16, {8, 8, 8}, {0, 0, 0}, 1};
    aoe_space *sp = build(&j, &lim, &no_files);
    cr_expect_eq(aoe_space_configs(sp)->n_configs, 13, "pairs of {1,2,4,8} with product <= 16");
    for (size_t c = 0; c < aoe_space_configs(sp)->n_configs; c++) {
        aoe_policy p;
        cr_assert_eq(aoe_space_policy(sp, &j, c, &p), 0);
        cr_expect_leq(p.local[0] * p.local[1], 16);
        cr_expect_eq(8 % p.local[0], 0);
        cr_expect_eq(8 % p.local[1], 0);
    }
    aoe_space_free(sp);
    aoe_device_limits narrow = {1024, {16, 2, 1}, {0, 0, 0}, 1};
    uint64_t g2[2] = {16, 16};
    j = make_job("kernel", "", 2, g2, NULL, NULL);
    sp = build(&j, &narrow, &no_files);
    cr_expect_eq(aoe_space_configs(sp)->n_configs, 5 * 2, "WG1 limited to {1,2}");
    aoe_space_free(sp);
    /* no device limits known: the conservative fallback bounds the group */
    uint64_t g3[1] = {1 << 16};
    j = make_job("kernel", "", 1, g3, NULL, NULL);
    aoe_device_limits unknown = {0, {0, 0, 0}, {0, 0, 0}, 0};
    sp = build(&j, &unknown, &no_files);
    aoe_policy p;
    cr_assert_eq(aoe_space_policy(sp, &j, aoe_space_configs(sp)->n_configs - 1, &p), 0);
    cr_expect_eq(p.local[0], AOE_WG_FALLBACK_LIMIT);
    aoe_space_free(sp);
}

Test(space, reqd_work_group_size_is_the_only_size)
{
    uint64_t g[2] = {16, 16};
    aoe_device_limits lim = {256, {256, 256, 256}, {4, 2, 1}, 1};
    aoe_job j = make_job("kernel", "", 2, g, NULL, NULL);
    expect_refused(&j, &lim, &no_files, "only one configuration");
    const char *space = "{\"parameters\":[{\"name\":\"X\",\"values\":[1,2],\"default\":1}]}";
    j = make_job("kernel", "", 2, g, NULL, space);
    aoe_space *sp = build(&j, &lim, &no_files);
    cr_assert_eq(aoe_space_configs(sp)->n_configs, 2);
    for (size_t c = 0; c < 2; c++) {
        aoe_policy p;
        cr_assert_eq(aoe_space_policy(sp, &j, c, &p), 0);
        cr_expect_eq(p.local[0], 4);
        cr_expect_eq(p.local[1], 2);
    }
    aoe_space_free(sp);
}

Test(space, constraints_filter_configurations)
{
    uint64_t g[1] = {64}, l[1] = {8};
    const char *space = "{\"parameters\":[{\"name\":\"A\",\"values\":[1,2,3,4,5,6,7,8],"
                        "\"default\":4},{\"name\":\"B\",\"values\":[4,1,2],\"default\":1}],"
                        "\"constraints\":[\"A % B == 0\", \"A * B <= 8\", \"B % (A - 3) >= 0\"]}";
    aoe_job j = make_job("kernel", "", 1, g, l, space);
    aoe_space *sp = build(&j, NULL, &no_files);
    size_t want = 0;
    for (int a = 1; a <= 8; a++)
        for (int b = 1; b <= 4; b *= 2)
            want += a % b == 0 && a * b <= 8 && a != 3; /* A == 3: division by zero: false */
    const aoe_search_space *ss = aoe_space_configs(sp);
    cr_expect_eq(ss->n_configs, want);
    cr_expect_eq(ss->n_values[1], 3);
    for (size_t c = 0; c < ss->n_configs; c++) {
        aoe_policy p;
        cr_assert_eq(aoe_space_policy(sp, &j, c, &p), 0);
        int64_t a = p.params[0].value, b = p.params[1].value;
        cr_expect(a % b == 0 && a * b <= 8 && a != 3, "A=%lld B=%lld", (long long)a, (long long)b);
        cr_expect_eq(p.params[0].is_define, 1);
        cr_expect_eq(p.local[0], 8, "the program's local size stays");
        /* value indices are in ascending value order */
        static const int64_t bvals[3] = {1, 2, 4};
        cr_expect_eq(b, bvals[ss->configs[c * 2 + 1]]);
    }
    long def = aoe_space_default_config(sp);
    cr_assert_geq(def, 0);
    aoe_policy p;
    aoe_space_policy(sp, &j, (size_t)def, &p);
    cr_expect_eq(p.params[0].value, 4);
    cr_expect_eq(p.params[1].value, 1);
    aoe_tolerance t = aoe_space_tolerance(sp);
    cr_expect_float_eq(t.rel_l2, AOE_TOLERANCE_REL_L2, 1e-15);
    cr_expect_not(t.exact);
    aoe_space_free(sp);
}

Test(space, derived_global_and_local_sizes)
{
    uint64_t g[2] = {64, 64}, l[2] = {16, 16};
    const char *space =
        "{\"parameters\":[{\"name\":\"TS\",\"values\":[8,16,32],\"default\":16},"
        "{\"name\":\"WPT\",\"values\":[1,2,4],\"default\":1}],"
        "\"constraints\":[\"TS % WPT == 0\"], \"global\":[\"G0\",\"G1 / WPT\"],"
        "\"local\":[\"TS\",\"TS / WPT\"], \"tolerance\":{\"rel_l2\":0.001,\"max_abs\":0.5}}";
    aoe_job j = make_job("kernel", "", 2, g, l, space);
    aoe_device_limits lim = {256, {256, 256, 256}, {0, 0, 0}, 1};
    aoe_space *sp = build(&j, &lim, &no_files);
    const aoe_search_space *ss = aoe_space_configs(sp);
    cr_expect_eq(ss->n_params, 2, "no WG parameters: the program gave a local size");
    size_t n = 0;
    for (size_t c = 0; c < ss->n_configs; c++) {
        aoe_policy p;
        cr_assert_eq(aoe_space_policy(sp, &j, c, &p), 0);
        int64_t ts = p.params[0].value, wpt = p.params[1].value;
        cr_expect_eq((int64_t)p.global[0], 64);
        cr_expect_eq((int64_t)p.global[1], 64 / wpt);
        cr_expect_eq((int64_t)p.local[0], ts);
        cr_expect_eq((int64_t)p.local[1], ts / wpt);
        cr_expect_leq(p.local[0] * p.local[1], 256);
        n++;
    }
    /* TS 8 and 16 with any WPT; TS 32 only with WPT 4 (else more than 256 work-items) */
    cr_expect_eq(n, 7);
    aoe_tolerance t = aoe_space_tolerance(sp);
    cr_expect_float_eq(t.rel_l2, 0.001, 1e-12);
    cr_expect_float_eq(t.max_abs, 0.5, 1e-12);
    aoe_space_free(sp);
}

Test(space, declared_with_null_local_adds_workgroup_sizes)
{
    uint64_t g[1] = {64};
    const char *space = "{\"parameters\":[{\"name\":\"PX\",\"values\":[1,2,4],\"default\":1}],"
                        "\"global\":[\"G0 / PX\"]}";
    aoe_job j = make_job("kernel", "", 1, g, NULL, space);
    aoe_device_limits lim = {64, {64, 1, 1}, {0, 0, 0}, 1};
    aoe_space *sp = build(&j, &lim, &no_files);
    const aoe_search_space *ss = aoe_space_configs(sp);
    cr_assert_eq(ss->n_params, 2);
    for (size_t c = 0; c < ss->n_configs; c++) {
        aoe_policy p;
        cr_assert_eq(aoe_space_policy(sp, &j, c, &p), 0);
        cr_expect_eq((int64_t)p.global[0], 64 / p.params[0].value);
        cr_expect_eq(p.global[0] % p.local[0], 0, "local divides the derived global");
    }
    cr_expect_eq(ss->n_configs, 7 + 6 + 5); /* divisors of 64, 32, 16 up to 64 */
    aoe_space_free(sp);
}

Test(space, parameters_the_program_sets_are_never_tuned)
{
    uint64_t g[1] = {64}, l[1] = {4};
    const char *space = "{\"parameters\":[{\"name\":\"TS\",\"values\":[8,16,32],\"default\":16},"
                        "{\"name\":\"WPT\",\"values\":[1,2],\"default\":1},"
                        "{\"name\":\"VW\",\"values\":[1,2],\"default\":1}],"
                        "\"constraints\":[\"G0 % TS == 0\", \"TS >= 32 || WPT == 1\"]}";
    const char *src = "#ifndef TS\n#define TS 16\n#endif\n#define WPT 1\n__kernel void k(){}\n";
    aoe_job j = make_job(src, "-cl-mad-enable -D TS=32", 1, g, l, space);
    aoe_space *sp = build(&j, NULL, &no_files);
    const char *d = aoe_space_describe(sp);
    cr_expect_null(strstr(d, "TS in"), "-D TS dropped: %s", d);
    cr_expect_null(strstr(d, "WPT in"), "#define WPT dropped: %s", d);
    cr_expect_not_null(strstr(d, "VW in {1,2}: 2 configurations"), "%s", d);
    aoe_space_free(sp);
    /* the program's value feeds the constraints: TS=48 does not divide 64 */
    j = make_job(src, "-DTS=48", 1, g, l, space);
    expect_refused(&j, NULL, &no_files, "no configuration");
    /* an #ifndef default is not a fixed value: TS stays tunable */
    const char *src2 = "#ifndef TS\n#define TS 16\n#endif\n";
    j = make_job(src2, "", 1, g, l, space);
    sp = build(&j, NULL, &no_files);
    cr_expect_not_null(strstr(aoe_space_describe(sp), "TS in {8,16,32}"));
    aoe_space_free(sp);
}

Test(space, options_and_source_define_detection)
{
    int64_t v = 0;
    int has = 0;
    cr_expect(aoe_options_define("-DTS=32", "TS", &v, &has) && has && v == 32);
    cr_expect(aoe_options_define("-I x -D TS=8 -DWPT", "TS", &v, &has) && has && v == 8);
    cr_expect(aoe_options_define("-DWPT", "WPT", &v, &has) && !has);
    cr_expect(aoe_options_define("-DTS=1 -DTS=4", "TS", &v, &has) && v == 4, "the last wins");
    cr_expect_not(aoe_options_define("-DTSX=1 -DXTS=2 -UTS", "TS", &v, &has));
    cr_expect_not(aoe_options_define("", "TS", &v, &has));
    cr_expect(aoe_source_defines("  #  define TS (64)\n", "TS", &v, &has) && has && v == 64);
    cr_expect(aoe_source_defines("#ifdef FAST\n#define TS 8\n#endif\n", "TS", &v, &has));
    cr_expect_not(aoe_source_defines("#ifndef TS\n#define TS 8\n#endif\n", "TS", &v, &has));
    cr_expect_not(aoe_source_defines("/* #define TS 8 */\n// #define TS 4\n", "TS", &v, &has));
    cr_expect_not(aoe_source_defines("#define TSX 8\n", "TS", &v, &has));
}

static const char auto_src[] = "#ifndef BLOCK\n#define BLOCK 16\n#endif\n"
                               "#ifndef FLAG\n#define FLAG 0\n#endif\n"
                               "#ifndef EXPR\n#define EXPR (2*8)\n#endif\n"
                               "/*\n#ifndef HIDDEN\n#define HIDDEN 8\n#endif\n*/\n"
                               "#ifndef ODD\n  #  define ODD 3\n#endif\n"
                               "#define FIXED 4\n__kernel void k() {}\n";

Test(space, auto_define_scan_and_candidates)
{
    aoe_autodefine found[8];
    int n = aoe_autodefine_scan(auto_src, "", found, 8);
    cr_assert_eq(n, 3, "BLOCK, FLAG, ODD (EXPR is not an integer, HIDDEN is commented out)");
    cr_expect_str_eq(found[0].name, "BLOCK");
    cr_expect_eq(found[0].def, 16);
    cr_expect_str_eq(found[2].name, "ODD");
    n = aoe_autodefine_scan(auto_src, "-DBLOCK=4", found, 8);
    cr_expect_eq(n, 2, "a name the options set is never a candidate");
    int64_t c[5];
    cr_assert_eq(aoe_autodefine_candidates(16, c), 5);
    cr_expect(c[0] == 4 && c[1] == 8 && c[2] == 16 && c[3] == 32 && c[4] == 64);
    cr_assert_eq(aoe_autodefine_candidates(3, c), 3);
    cr_expect(c[0] == 3 && c[1] == 6 && c[2] == 12);
    cr_expect_eq(aoe_autodefine_candidates(2, c), 4);
    cr_expect_eq(aoe_autodefine_candidates(0, c), 0);
}

Test(space, auto_defines_only_when_asked_and_exact)
{
    uint64_t g[1] = {64}, l[1] = {8};
    aoe_job j = make_job(auto_src, "", 1, g, l, NULL);
    expect_refused(&j, NULL, &no_files, "auto-defines are off");
    aoe_space_options opt = {NULL, NULL, true};
    aoe_space *sp = build(&j, NULL, &opt);
    const char *d = aoe_space_describe(sp);
    cr_expect_not_null(strstr(d, "BLOCK in {4,8,16,32,64}"), "%s", d);
    cr_expect_not_null(strstr(d, "ODD in {3,6,12}"), "%s", d);
    cr_expect_null(strstr(d, "FLAG"), "default 0 is not tunable: %s", d);
    cr_expect(aoe_space_tolerance(sp).exact);
    long def = aoe_space_default_config(sp);
    cr_assert_geq(def, 0);
    aoe_policy p;
    cr_assert_eq(aoe_space_policy(sp, &j, (size_t)def, &p), 0);
    cr_expect_eq(p.params[0].value, 16);
    cr_expect_eq(p.params[0].is_define, 1);
    aoe_space_free(sp);
    j = make_job(auto_src, "-DBLOCK=16 -DODD=1", 1, g, l, NULL);
    expect_refused(&j, NULL, &opt, "nothing to tune");
}

Test(space, refusals)
{
    uint64_t g[1] = {64}, l[1] = {8};
    aoe_job j = make_job("kernel", "", 1, g, l, NULL);
    expect_refused(&j, NULL, &no_files, "nothing to tune");
    char big[4096];
    size_t n = (size_t)snprintf(big, sizeof big, "{\"parameters\":[");
    for (int p = 0; p < 4; p++) {
        n += (size_t)snprintf(big + n, sizeof big - n, "%s{\"name\":\"P%d\",\"values\":[",
                              p ? "," : "", p);
        for (int v = 1; v <= 64; v++)
            n += (size_t)snprintf(big + n, sizeof big - n, "%s%d", v > 1 ? "," : "", v);
        n += (size_t)snprintf(big + n, sizeof big - n, "],\"default\":1}");
    }
    snprintf(big + n, sizeof big - n, "]}");
    j = make_job("kernel", "", 1, g, l, big);
    expect_refused(&j, NULL, &no_files, "too large");
    j = make_job("kernel", "", 1, g, l,
                 "{\"parameters\":[{\"name\":\"X\",\"values\":[1,2],\"default\":1}],"
                 "\"global\":[\"G0\",\"G1\"]}");
    expect_refused(&j, NULL, &no_files, "declares 2 dimensions, the launch has 1");
    j = make_job("kernel", "", 1, g, l, "{\"parameters\":[{\"name\":\"X\"}]}");
    expect_refused(&j, NULL, &no_files, "job space.parameters[0].values");
    j = make_job("kernel", "", 1, g, l,
                 "{\"parameters\":[{\"name\":\"X\",\"values\":[1,2],\"default\":1}],"
                 "\"constraints\":[\"X > 5\"]}");
    expect_refused(&j, NULL, &no_files, "no configuration");
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    return s;
}

Test(space, shipped_gemm_declaration_matches_the_test_kernel)
{
    char *src = read_text(AOE_SOURCE_DIR "/tests/kernels/gemm.cl");
    uint64_t g[2] = {256, 256}, l[2] = {16, 16};
    aoe_job j = make_job(src, "", 2, g, l, NULL);
    j.kernel_name = "gemm_tiled";
    aoe_space_options opt = {AOE_SOURCE_DIR "/etc/tunables", NULL, false};
    aoe_device_limits lim = {1024, {1024, 1024, 1024}, {0, 0, 0}, 8};
    aoe_space *sp = build(&j, &lim, &opt);
    const char *d = aoe_space_describe(sp);
    cr_expect_not_null(strstr(d, "TS in {8,16,32,64} x WPT in {1,2,4,8} x WIDTH in {1,2,4,8}"),
                       "%s", d);
    long def = aoe_space_default_config(sp);
    cr_assert_geq(def, 0);
    aoe_policy p;
    cr_assert_eq(aoe_space_policy(sp, &j, (size_t)def, &p), 0);
    cr_expect(p.global[0] == 256 && p.global[1] == 256 && p.local[0] == 16 && p.local[1] == 16,
              "the default policy reproduces the program's own launch");
    aoe_space_free(sp);
    /* the program fixing TS itself removes it from the space */
    j.options = "-DTS=16";
    sp = build(&j, &lim, &opt);
    cr_expect_null(strstr(aoe_space_describe(sp), "TS in"));
    aoe_space_free(sp);
    free(src);
}

/* Parameters with the same values (in any declared order) share a value-list
 * id, so the surrogate may exchange them; the others keep their own. */
Test(space, same_value_lists_share_an_id)
{
    uint64_t g[2] = {64, 64}, l[2] = {8, 8};
    const char *space = "{\"parameters\":[{\"name\":\"TX\",\"values\":[1,2,4],\"default\":1},"
                        "{\"name\":\"V\",\"values\":[1,2,4,8],\"default\":1},"
                        "{\"name\":\"TY\",\"values\":[4,2,1],\"default\":1},"
                        "{\"name\":\"F\",\"values\":[1,2],\"default\":1}]}";
    aoe_job j = make_job("kernel", "", 2, g, l, space);
    aoe_space *sp = build(&j, NULL, &no_files);
    const aoe_search_space *ss = aoe_space_configs(sp);
    cr_assert_eq(ss->n_params, 4);
    cr_assert_not_null(ss->value_list_id);
    cr_expect_eq(ss->value_list_id[0], 0);
    cr_expect_eq(ss->value_list_id[1], 1);
    cr_expect_eq(ss->value_list_id[2], 0, "TY has TX's values");
    cr_expect_eq(ss->value_list_id[3], 3, "F is a prefix of V's values, not the same list");
    aoe_space_free(sp);
    /* work-group sizes of a square global size have the same divisors */
    j = make_job("kernel", "", 2, g, NULL, NULL);
    aoe_device_limits lim = {1024, {1024, 1024, 64}, {0, 0, 0}, 1};
    sp = build(&j, &lim, &no_files);
    ss = aoe_space_configs(sp);
    cr_assert_eq(ss->n_params, 2);
    cr_expect_eq(ss->value_list_id[1], 0);
    aoe_space_free(sp);
}
