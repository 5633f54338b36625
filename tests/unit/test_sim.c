/* Simulation mode: loading gzipped Kernel Tuner cache files, scoring, and the
 * rejection of bad files. Each test writes its own small dataset with zlib. */
#include "tuner/cli.h"
#include "tuner/sim.h"

#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static char path[64];

static void write_gz(const char *text)
{
    strcpy(path, "/tmp/aoe_test_sim_XXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    gzFile f = gzdopen(fd, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(gzwrite(f, text, (unsigned)strlen(text)), (int)strlen(text));
    cr_assert_eq(gzclose(f), Z_OK);
}

static void cleanup(void)
{
    if (*path) unlink(path);
}

/* X values are listed unsorted on purpose: indices must follow numeric order. */
static const char *good =
    "{\"device_name\": \"GPU\", \"kernel_name\": \"k\", \"tune_params_keys\": [\"X\", \"M\"],"
    " \"tune_params\": {\"X\": [4, 1, 2], \"M\": [\"a\", \"b\"]}, \"objective\": \"time\","
    " \"cache\": {"
    "  \"1,a\": {\"X\": 1, \"M\": \"a\", \"time\": 8.0},"
    "  \"2,a\": {\"X\": 2, \"M\": \"a\", \"time\": 4.0},"
    "  \"4,a\": {\"X\": 4, \"M\": \"a\", \"time\": \"RuntimeFailedConfig\"},"
    "  \"4,b\": {\"X\": 4, \"M\": \"b\", \"time\": 2.0},"
    "  \"2,b\": {\"time\": 16.0}"
    " }}";

Test(sim, loads_a_dataset, .fini = cleanup)
{
    write_gz(good);
    char err[256] = "";
    aoe_sim_dataset *ds = aoe_sim_load(path, err, sizeof err);
    cr_assert_not_null(ds, "%s", err);
    cr_assert_str_eq(ds->kernel, "k");
    cr_assert_str_eq(ds->device, "GPU");
    cr_assert_eq(ds->n_params, 2);
    cr_assert_eq(ds->n_values[0], 3);
    cr_assert_eq(ds->n_values[1], 2);
    cr_assert_eq(ds->space.n_configs, 5);
    cr_assert_eq(ds->n_failed, 1);
    cr_assert_float_eq(ds->optimum, 2.0, 1e-12);
    /* Rows in file order; X=1 -> 0, X=2 -> 1, X=4 -> 2; the key is the fallback. */
    const uint16_t want[] = {0, 0, 1, 0, 2, 0, 2, 1, 1, 1};
    cr_assert_arr_eq(ds->space.configs, want, sizeof want);
    cr_assert_float_eq(ds->times[0], 8.0, 1e-12);
    cr_assert_lt(ds->times[2], 0);
    cr_assert_float_eq(ds->times[4], 16.0, 1e-12);
    aoe_sim_free(ds);
}

/* X and Y hold the same numbers (listed in different orders): one value-list
 * id. M and N hold the same strings in different orders: string values keep
 * file order, so their indices mean different values and the ids differ. */
Test(sim, same_value_lists_share_an_id, .fini = cleanup)
{
    write_gz("{\"tune_params_keys\": [\"X\", \"M\", \"Y\", \"N\"],"
             " \"tune_params\": {\"X\": [4, 1, 2], \"M\": [\"a\", \"b\"], \"Y\": [1, 2, 4],"
             " \"N\": [\"b\", \"a\"]},"
             " \"cache\": {\"1,a,2,b\": {\"time\": 1.0}}}");
    char err[256] = "";
    aoe_sim_dataset *ds = aoe_sim_load(path, err, sizeof err);
    cr_assert_not_null(ds, "%s", err);
    cr_assert_eq(ds->space.value_list_id, ds->value_list_id);
    const int want[] = {0, 1, 0, 3};
    cr_assert_arr_eq(ds->value_list_id, want, sizeof want);
    aoe_sim_free(ds);
}

Test(sim, fraction_of_optimum_arithmetic)
{
    const double trace[] = {-1, 4, 2, 3};
    cr_assert_float_eq(aoe_sim_fraction(1.0, trace, 4, 0), 0.0, 1e-12);
    cr_assert_float_eq(aoe_sim_fraction(1.0, trace, 4, 1), 0.0, 1e-12); /* only a failure */
    cr_assert_float_eq(aoe_sim_fraction(1.0, trace, 4, 2), 0.25, 1e-12);
    cr_assert_float_eq(aoe_sim_fraction(1.0, trace, 4, 3), 0.5, 1e-12);
    cr_assert_float_eq(aoe_sim_fraction(1.0, trace, 4, 100), 0.5, 1e-12); /* run ended early */
}

Test(sim, eval_records_the_trace_and_failures, .fini = cleanup)
{
    write_gz(good);
    char err[256];
    aoe_sim_dataset *ds = aoe_sim_load(path, err, sizeof err);
    cr_assert_not_null(ds, "%s", err);
    double trace[3];
    aoe_sim_run run = {.ds = ds, .trace = trace, .cap = 3};
    cr_assert_float_eq(aoe_sim_eval(&run, 1), 4.0, 1e-12);
    cr_assert_lt(aoe_sim_eval(&run, 2), 0);
    cr_assert_lt(aoe_sim_eval(&run, 99), 0); /* out of range: a failure, not a crash */
    cr_assert_eq(run.n, 3);
    aoe_sim_free(ds);
}

Test(sim, scoring_brute_force_over_the_whole_space_is_perfect, .fini = cleanup)
{
    write_gz(good);
    char err[256];
    aoe_sim_dataset *ds = aoe_sim_load(path, err, sizeof err);
    cr_assert_not_null(ds, "%s", err);
    size_t at[] = {1, 5};
    double mean[2];
    cr_assert_eq(aoe_sim_score(ds, "brute", 5, 10, 1, at, 2, mean), 0);
    cr_assert_float_eq(mean[1], 1.0, 1e-12);
    cr_assert_leq(mean[0], 1.0);
    cr_assert_eq(aoe_sim_score(ds, "nope", 5, 1, 1, at, 2, mean), -1);
    aoe_sim_free(ds);
}

/* Standard errors: brute force over the whole space is perfect every run (0),
 * the first evaluation alone is a random row (fractions 1/4, 1/2 or 1 here:
 * the failed row scores 0), so its error is that of those values. */
Test(sim, standard_errors_and_time_to_choose, .fini = cleanup)
{
    write_gz(good);
    char err[256];
    aoe_sim_dataset *ds = aoe_sim_load(path, err, sizeof err);
    cr_assert_not_null(ds, "%s", err);
    size_t at[] = {1, 5};
    double mean[2], se[2], ms = -1, plain[2];
    cr_assert_eq(aoe_sim_score_stats(ds, "brute", 5, 40, 1, at, 2, mean, se, &ms), 0);
    cr_assert_eq(aoe_sim_score(ds, "brute", 5, 40, 1, at, 2, plain), 0);
    cr_assert_eq(memcmp(mean, plain, sizeof mean), 0, "the means do not depend on the errors");
    cr_assert_float_eq(se[1], 0.0, 1e-12);
    cr_assert_gt(se[0], 0.01);
    cr_assert_lt(se[0], 0.2);
    cr_assert_geq(ms, 0.0);
    cr_assert_eq(aoe_sim_score_stats(ds, "brute", 5, 1, 1, at, 2, mean, se, NULL), 0);
    cr_assert_float_eq(se[0], 0.0, 1e-12, "one run has no spread");
    aoe_sim_free(ds);
}

Test(sim, json_has_standard_errors_and_time_to_choose, .fini = cleanup)
{
    write_gz(good);
    char *args[] = {"tune", "--simulate", path, "--strategy", "auto", "--max-evals",
                    "3",    "--runs",     "4",  "--json",     NULL};
    FILE *out = tmpfile();
    cr_assert_not_null(out);
    fflush(stdout);
    int saved = dup(1);
    dup2(fileno(out), 1);
    int rc = aoe_simulate_main(10, args);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    cr_assert_eq(rc, AOE_EXIT_OK);
    char buf[4096] = "";
    rewind(out);
    size_t n = fread(buf, 1, sizeof buf - 1, out);
    fclose(out);
    buf[n] = 0;
    cr_assert(strstr(buf, "\"strategy\":\"auto\""), "%s", buf);
    cr_assert(strstr(buf, "\"stderr_at\":{\"3\":"), "%s", buf);
    cr_assert(strstr(buf, "\"ms_per_eval\":"), "%s", buf);
}

static void expect_rejected(const char *text, const char *needle)
{
    write_gz(text);
    char err[256] = "";
    aoe_sim_dataset *ds = aoe_sim_load(path, err, sizeof err);
    cr_assert_null(ds, "accepted: %s", text);
    cr_assert(strstr(err, needle), "message '%s' lacks '%s'", err, needle);
    unlink(path);
}

Test(sim, bad_files_are_rejected_with_a_reason, .fini = cleanup)
{
    char err[256] = "";
    cr_assert_null(aoe_sim_load("/nonexistent/x.json.gz", err, sizeof err));
    cr_assert(strstr(err, "cannot open"), "%s", err);
    expect_rejected("", "empty");
    expect_rejected("{\"cache\": ", "not a JSON document");
    expect_rejected("[1, 2]", "tune_params_keys");
    expect_rejected("{\"tune_params_keys\": [], \"tune_params\": {}, \"cache\": {}}", "0 entries");
    expect_rejected("{\"tune_params_keys\": [\"X\"], \"tune_params\": {\"X\": []}, \"cache\": {}}",
                    "array of 1..");
    expect_rejected("{\"tune_params_keys\": [\"X\"], \"tune_params\": {\"X\": [1]},"
                    " \"cache\": {\"3\": {\"X\": 3, \"time\": 1}}}",
                    "not in tune_params");
    expect_rejected("{\"tune_params_keys\": [\"X\"], \"tune_params\": {\"X\": [1]},"
                    " \"cache\": {\"1\": {\"X\": 1, \"time\": \"CompilationFailedConfig\"}}}",
                    "no successful configuration");
    expect_rejected("{\"tune_params_keys\": [\"X\"], \"tune_params\": {\"X\": [1]},"
                    " \"cache\": {\"1\": {\"X\": 1, \"time\": -3}}}",
                    "\"time\"");
    expect_rejected("{\"tune_params_keys\": [7], \"tune_params\": {}, \"cache\": {}}",
                    "not a string");
}

Test(sim, cli_usage_and_failure_exit_codes, .fini = cleanup)
{
    char *help[] = {"tune", "--simulate", "x", "--help", NULL};
    char *no_file[] = {"tune", "--max-evals", "10", NULL};
    char *bad_n[] = {"tune", "--simulate", "x", "--max-evals", "0", NULL};
    char *bad_s[] = {"tune", "--simulate", "x", "--strategy", "nope", NULL};
    char *bad_arg[] = {"tune", "--simulate", "x", "--frobnicate", NULL};
    char *missing[] = {"tune", "--simulate", "/nonexistent.json.gz", NULL};
    cr_redirect_stdout();
    cr_redirect_stderr();
    cr_assert_eq(aoe_simulate_main(4, help), AOE_EXIT_OK);
    cr_assert_eq(aoe_simulate_main(3, no_file), AOE_EXIT_USAGE);
    cr_assert_eq(aoe_simulate_main(5, bad_n), AOE_EXIT_USAGE);
    cr_assert_eq(aoe_simulate_main(5, bad_s), AOE_EXIT_USAGE);
    cr_assert_eq(aoe_simulate_main(4, bad_arg), AOE_EXIT_USAGE);
    cr_assert_eq(aoe_simulate_main(3, missing), AOE_EXIT_FAIL);
    write_gz(good);
    char *ok[] = {"tune", "--simulate", path, "--max-evals", "5", "--runs", "3", "--json", NULL};
    cr_assert_eq(aoe_simulate_main(8, ok), AOE_EXIT_OK);
}
