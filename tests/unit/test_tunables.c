/* Tunables files: a valid declaration is read in full; every bad file gives
 * one message naming the file, the entry and the field; files in a directory
 * are read in name order and AOE_TUNABLES files override them. */
#include "space/tunables.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/aoe_test_tun.XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
}

TestSuite(tunables, .init = setup, .fini = teardown);

static const char *write_file(const char *name, const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static const char good[] =
    "{\"format\":1, \"tolerance\":{\"rel_l2\":1e-6},\n"
    " \"kernels\":[{\"kernel\":\"gemm\", \"source_contains\":\"TILED\",\n"
    "  \"parameters\":[{\"name\":\"TS\",\"values\":[32,8,16],\"default\":16},\n"
    "                 {\"name\":\"WPT\",\"values\":[1,2],\"default\":1}],\n"
    "  \"constraints\":[\"TS % WPT == 0\", \"G0 % TS == 0\"],\n"
    "  \"global\":[\"G0\", \"G1 / WPT\"], \"local\":[\"TS\", 4],\n"
    "  \"tolerance\":{\"max_abs\":0.5}}]}";

Test(tunables, reads_a_full_declaration)
{
    aoe_tunables t = {0};
    char err[512] = "";
    cr_assert_eq(aoe_tunables_read(write_file("g.json", good), &t, err, sizeof err), 0, "%s", err);
    cr_assert_eq(t.n, 1);
    const aoe_tunable_kernel *k = &t.k[0];
    cr_expect_str_eq(k->kernel, "gemm");
    cr_assert_eq(k->n_params, 2);
    cr_expect_str_eq(k->params[0].name, "TS");
    cr_expect_eq(k->params[0].n_values, 3);
    cr_expect_eq(k->params[0].values[0], 8, "values sorted ascending");
    cr_expect_eq(k->params[0].values[2], 32);
    cr_expect_eq(k->params[0].def, 16);
    cr_expect_eq(k->n_constraints, 2);
    cr_expect_eq(k->n_global_rules, 2);
    cr_expect_eq(k->n_local_rules, 2);
    cr_expect_float_eq(k->rel_l2, 1e-6, 1e-12, "file-level tolerance inherited");
    cr_expect_float_eq(k->max_abs, 0.5, 1e-12, "kernel-level tolerance");
    int64_t env[8] = {16, 2, 128, 64, 1, 0, 0, 0}, v; /* TS WPT G0 G1 G2 L0 L1 L2 */
    cr_expect_eq(aoe_expr_eval(k->global_rule[1], env, &v), 0);
    cr_expect_eq(v, 32);
    cr_expect_eq(aoe_expr_eval(k->local_rule[1], env, &v), 0);
    cr_expect_eq(v, 4);
    aoe_tunables_free(&t);
}

Test(tunables, bad_files_give_one_message_naming_the_field)
{
    struct {
        const char *text, *expect;
    } cases[] = {
        {"{", "not valid JSON"},
        {"[]", "expected a JSON object"},
        {"{\"kernels\":[]}", "kernels"},
        {"{\"kernel\":[]}", "kernel: unknown field"},
        {"{\"format\":2,\"kernels\":[{\"kernel\":\"k\"}]}", "format"},
        {"{\"kernels\":[{\"name\":\"k\"}]}", "kernels[0].name: unknown field"},
        {"{\"kernels\":[{\"kernel\":\"k\",\"runtime\":\"vulkan\"}]}",
         "kernels[0].runtime: expected one of opencl|cuda"},
        {"{\"kernels\":[{\"kernel\":\"k\",\"runtime\":7}]}", "kernels[0].runtime"},
        {"{\"kernels\":[{\"parameters\":[]}]}", "kernels[0].kernel"},
        {"{\"kernels\":[{\"kernel\":\"k\",\"scalars\":2}]}",
         "kernels[0].scalars: expected an array"},
        {"{\"kernels\":[{\"kernel\":\"k\",\"scalars\":[64]}]}",
         "kernels[0].scalars[0]: expected an argument index 0..63"},
        {"{\"kernels\":[{\"kernel\":\"k\",\"scalars\":[1.5]}]}", "kernels[0].scalars[0]"},
        {"{\"kernels\":[{\"kernel\":\"k\",\"scalars\":[\"n\"]}]}", "kernels[0].scalars[0]"},
        {"{\"kernels\":[{\"kernel\":\"k\",\"scalars\":[2,2]}]}",
         "kernels[0].scalars[1]: argument 2 listed twice"},
        {"{\"kernels\":[{\"kernel\":\"k\",\"parameters\":[{\"name\":\"1X\",\"values\":[1],"
         "\"default\":1}]}]}",
         "kernels[0].parameters[0].name"},
        {"{\"kernels\":[{\"kernel\":\"k\",\"parameters\":[{\"name\":\"G0\",\"values\":[1],"
         "\"default\":1}]}]}",
         "reserved"},
        {"{\"kernels\":[{\"kernel\":\"k\",\"parameters\":[{\"name\":\"X\",\"values\":[],"
         "\"default\":1}]}]}",
         "kernels[0].parameters[0].values"},
        {"{\"kernels\":[{\"kernel\":\"k\",\"parameters\":[{\"name\":\"X\",\"values\":[1,1.5],"
         "\"default\":1}]}]}",
         "kernels[0].parameters[0].values[1]"},
        {"{\"kernels\":[{\"kernel\":\"k\",\"parameters\":[{\"name\":\"X\",\"values\":[2,2],"
         "\"default\":2}]}]}",
         "appears twice"},
        {"{\"kernels\":[{\"kernel\":\"k\",\"parameters\":[{\"name\":\"X\",\"values\":[1,2],"
         "\"default\":3}]}]}",
         "kernels[0].parameters[0].default: 3 is not one of the values"},
        {"{\"kernels\":[{\"kernel\":\"k\",\"parameters\":[{\"name\":\"X\",\"values\":[1,2]}]}]}",
         "kernels[0].parameters[0].default: missing"},
        {"{\"kernels\":[{\"kernel\":\"k\",\"parameters\":[{\"name\":\"X\",\"values\":[1],"
         "\"default\":1},{\"name\":\"X\",\"values\":[1],\"default\":1}]}]}",
         "declared twice"},
        {"{\"kernels\":[{\"kernel\":\"k\",\"parameters\":[{\"name\":\"X\",\"values\":[1],"
         "\"default\":1}],\"constraints\":[\"X % Y == 0\"]}]}",
         "kernels[0].constraints[0]"},
        {"{\"kernels\":[{\"kernel\":\"k\",\"constraints\":[\"1 +\"]}]}",
         "kernels[0].constraints[0]: expression"},
        {"{\"kernels\":[{\"kernel\":\"k\",\"constraints\":[3]}]}", "kernels[0].constraints[0]"},
        {"{\"kernels\":[{\"kernel\":\"k\",\"global\":[\"G0\",\"G1\",\"G2\",\"G0\"]}]}",
         "kernels[0].global"},
        {"{\"kernels\":[{\"kernel\":\"k\",\"local\":[\"Q\"]}]}", "kernels[0].local[0]"},
        {"{\"kernels\":[{\"kernel\":\"k\",\"local\":[-1]}]}", "kernels[0].local[0]"},
        {"{\"kernels\":[{\"kernel\":\"k\",\"source_hash\":\"abc\"}]}", "kernels[0].source_hash"},
        {"{\"kernels\":[{\"kernel\":\"k\",\"source_contains\":\"\"}]}",
         "kernels[0].source_contains"},
        {"{\"kernels\":[{\"kernel\":\"k\",\"tolerance\":{\"rel_l2\":-1}}]}",
         "kernels[0].tolerance.rel_l2"},
        {"{\"kernels\":[{\"kernel\":\"k\",\"tolerance\":{\"l2\":1}}]}",
         "kernels[0].tolerance.l2: unknown field"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[512] = "";
        aoe_tunables t = {0};
        const char *path = write_file("bad.json", cases[i].text);
        cr_expect_eq(aoe_tunables_read(path, &t, err, sizeof err), -1, "accepted case %zu", i);
        cr_expect_not_null(strstr(err, "bad.json"), "case %zu: no file name in \"%s\"", i, err);
        cr_expect_not_null(strstr(err, cases[i].expect), "case %zu: expected \"%s\" in \"%s\"", i,
                           cases[i].expect, err);
        cr_expect_null(strchr(err, '\n'), "one line: %s", err);
        aoe_tunables_free(&t);
    }
}

Test(tunables, directory_order_extra_override_and_matching)
{
    char sub[128], err[512] = "";
    snprintf(sub, sizeof sub, "%s/etc", dir);
    cr_assert_eq(mkdir(sub, 0700), 0);
    write_file("etc/b.json", "{\"kernels\":[{\"kernel\":\"k\",\"parameters\":[{\"name\":\"B\","
                             "\"values\":[1,2],\"default\":1}]}]}");
    write_file("etc/a.json", "{\"kernels\":[{\"kernel\":\"k\",\"parameters\":[{\"name\":\"A\","
                             "\"values\":[1,2],\"default\":1}]}]}");
    write_file("etc/notes.txt", "not a declaration");
    char extra[256];
    snprintf(extra, sizeof extra, "%s",
             write_file("x.json", "{\"kernels\":[{\"kernel\":\"k\",\"source_contains\":\"SPECIAL\","
                                  "\"parameters\":[{\"name\":\"X\",\"values\":[1,2],\"default\":1}]"
                                  "},{\"kernel\":\"h\",\"source_hash\":"
                                  "\"0123456789abcdef0123456789ABCDEF\"}]}"));
    aoe_tunables t = {0};
    cr_assert_eq(aoe_tunables_load(sub, extra, &t, err, sizeof err), 0, "%s", err);
    cr_assert_eq(t.n, 4);
    cr_expect_str_eq(t.k[0].params[0].name, "A", "a.json before b.json");
    aoe_hash128 h = {0x0123456789abcdefull, 0x0123456789abcdefull}, other = {1, 2};
    const aoe_tunable_kernel *m = aoe_tunables_match(&t, NULL, "k", "plain source", other);
    cr_assert_not_null(m);
    cr_expect_str_eq(m->params[0].name, "B", "the last file wins");
    m = aoe_tunables_match(&t, NULL, "k", "a SPECIAL source", other);
    cr_assert_not_null(m);
    cr_expect_str_eq(m->params[0].name, "X", "AOE_TUNABLES overrides");
    cr_expect_not_null(aoe_tunables_match(&t, NULL, "h", NULL, h), "matched by program hash");
    cr_expect_null(aoe_tunables_match(&t, NULL, "h", NULL, other));
    cr_expect_null(aoe_tunables_match(&t, NULL, "nope", "x", h));
    aoe_tunables_free(&t);
    /* a missing extra file is an error naming it; a missing directory is not */
    aoe_tunables t2 = {0};
    cr_expect_eq(
        aoe_tunables_load("/nonexistent-aoe", "/nonexistent-aoe/x.json", &t2, err, sizeof err), -1);
    cr_expect_not_null(strstr(err, "/nonexistent-aoe/x.json"), "%s", err);
    aoe_tunables_free(&t2);
}

/* A declaration is for one runtime (opencl when it names none): a CUDA
 * kernel and an OpenCL kernel of one name each find their own. */
Test(tunables, runtime_field_selects_the_runtime)
{
    const char *f =
        write_file("rt.json", "{\"kernels\":[{\"kernel\":\"k\",\"parameters\":[{\"name\":\"A\","
                              "\"values\":[1,2],\"default\":1}]},"
                              "{\"kernel\":\"k\",\"runtime\":\"cuda\",\"parameters\":[{\"name\":"
                              "\"C\",\"values\":[1,2],\"default\":1}]}]}");
    aoe_tunables t = {0};
    char err[512] = "";
    cr_assert_eq(aoe_tunables_read(f, &t, err, sizeof err), 0, "%s", err);
    aoe_hash128 h = {1, 2};
    const aoe_tunable_kernel *m = aoe_tunables_match(&t, "cuda", "k", "src", h);
    cr_assert_not_null(m);
    cr_expect_str_eq(m->params[0].name, "C");
    cr_expect_str_eq(m->runtime, "cuda");
    m = aoe_tunables_match(&t, "opencl", "k", "src", h);
    cr_assert_not_null(m);
    cr_expect_str_eq(m->params[0].name, "A", "the later CUDA declaration does not override it");
    cr_expect_str_eq(m->runtime, "opencl", "no runtime field: opencl");
    cr_expect_eq(aoe_tunables_match(&t, NULL, "k", "src", h),
                 aoe_tunables_match(&t, "opencl", "k", "src", h));
    cr_expect_null(aoe_tunables_match(&t, "cublas", "k", "src", h));
    aoe_tunables_free(&t);
}

Test(tunables, shipped_declarations_are_valid)
{
    aoe_tunables t = {0};
    char err[512] = "";
    cr_assert_eq(aoe_tunables_load(AOE_SOURCE_DIR "/etc/tunables", NULL, &t, err, sizeof err), 0,
                 "%s", err);
    cr_expect_geq(t.n, 2);
    aoe_tunables_free(&t);
}

/* "scalars": the argument indexes whose values a policy depends on (keys
 * across runs); absent and empty are told apart. */
Test(tunables, scalars_field)
{
    aoe_tunables t = {0};
    char err[256];
    const char *text = "{\"kernels\":[{\"kernel\":\"a\",\"scalars\":[2,0,63]},"
                       "{\"kernel\":\"b\",\"scalars\":[]},{\"kernel\":\"c\"}]}";
    cr_assert_eq(aoe_tunables_parse(text, strlen(text), "s.json", &t, err, sizeof err), 0, "%s",
                 err);
    cr_assert_eq(t.n, 3);
    cr_assert_eq(t.k[0].has_scalars, 1);
    cr_assert_eq(t.k[0].scalars, (1ull << 2) | 1ull | (1ull << 63));
    cr_assert_eq(t.k[1].has_scalars, 1);
    cr_assert_eq(t.k[1].scalars, 0);
    cr_assert_eq(t.k[2].has_scalars, 0);
    aoe_tunables_free(&t);
}
