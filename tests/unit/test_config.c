/* The configuration table: defaults, accepted spellings, and a clear message
 * for every bad value. */
#include "core/config.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static void clear_env(void)
{
    for (int i = 0; i < AOE_CFG_COUNT; i++) unsetenv(aoe_cfg_table[i].name);
}

Test(config, defaults_parse_and_come_from_default)
{
    clear_env();
    aoe_config cfg;
    char err[256] = "";
    cr_assert_eq(aoe_config_load(&cfg, err, sizeof err), 0, "%s", err);
    for (int i = 0; i < AOE_CFG_COUNT; i++)
        cr_expect_not(cfg.from_env[i], "%s", aoe_cfg_table[i].name);
    cr_expect_eq(cfg.num[AOE_CFG_REPEAT_TUNE], 0);
    cr_expect_eq(cfg.num[AOE_CFG_TUNE_MODE], AOE_MODE_ONLINE);
    cr_expect_eq(cfg.num[AOE_CFG_LOG_LEVEL], AOE_LOG_INFO);
}

Test(config, repeat_tune_spellings)
{
    const char *yes[] = {"True", "true", "TRUE", "1"}, *no[] = {"False", "false", "FaLsE", "0"};
    long v;
    char err[256];
    for (size_t i = 0; i < 4; i++) {
        cr_assert_eq(aoe_config_parse_one(AOE_CFG_REPEAT_TUNE, yes[i], &v, err, sizeof err), 0);
        cr_expect_eq(v, 1, "%s", yes[i]);
        cr_assert_eq(aoe_config_parse_one(AOE_CFG_REPEAT_TUNE, no[i], &v, err, sizeof err), 0);
        cr_expect_eq(v, 0, "%s", no[i]);
    }
}

Test(config, every_bad_value_names_variable_value_and_allowed)
{
    struct {
        aoe_cfg_id id;
        const char *bad;
    } cases[] = {
        {AOE_CFG_REPEAT_TUNE, "yes"},      {AOE_CFG_REPEAT_TUNE, "2"},
        {AOE_CFG_LOG_LEVEL, "loud"},       {AOE_CFG_TUNE_MODE, "sometimes"},
        {AOE_CFG_AUTO_DEFINES, "maybe"},   {AOE_CFG_PARALLEL_COMPILE, "0"},
        {AOE_CFG_PARALLEL_COMPILE, "4x"},  {AOE_CFG_VARIANT_TIMEOUT, "-1"},
        {AOE_CFG_CAPTURE_LIMIT_MB, "1e3"}, {AOE_CFG_POLL_MS, "99999999999999999999"},
        {AOE_CFG_MAX_EVALS, " 5"},         {AOE_CFG_TIME_LIMIT, "0"},
        {AOE_CFG_STRATEGY, "magic"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        long v;
        char err[256] = "";
        cr_expect_neq(aoe_config_parse_one(cases[i].id, cases[i].bad, &v, err, sizeof err), 0,
                      "%s=%s accepted", aoe_cfg_table[cases[i].id].name, cases[i].bad);
        cr_expect(strstr(err, aoe_cfg_table[cases[i].id].name), "message lacks name: %s", err);
        cr_expect(strstr(err, cases[i].bad), "message lacks value: %s", err);
        cr_expect(strstr(err, aoe_cfg_table[cases[i].id].allowed), "message lacks allowed: %s",
                  err);
    }
}

Test(config, load_reports_bad_env_and_keeps_defaults)
{
    clear_env();
    setenv("AOE_TUNE_MODE", "later", 1);
    setenv("REPEAT_TUNE", "True", 1);
    aoe_config cfg;
    char err[256] = "";
    cr_assert_neq(aoe_config_load(&cfg, err, sizeof err), 0);
    cr_expect(strstr(err, "AOE_TUNE_MODE") != NULL, "%s", err);
    cr_expect_eq(cfg.num[AOE_CFG_TUNE_MODE], AOE_MODE_ONLINE);
    cr_expect_eq(cfg.num[AOE_CFG_REPEAT_TUNE], 1);
    cr_expect(cfg.from_env[AOE_CFG_REPEAT_TUNE]);
    clear_env();
}

Test(config, bank_path_precedence)
{
    clear_env();
    aoe_config cfg;
    char err[256], path[4096];
    setenv("XDG_DATA_HOME", "/x/data", 1);
    aoe_config_load(&cfg, err, sizeof err);
    cr_assert_eq(aoe_config_bank_path(&cfg, path, sizeof path), 0);
    cr_expect_str_eq(path, "/x/data/aoe/bank");
    unsetenv("XDG_DATA_HOME");
    setenv("HOME", "/home/u", 1);
    aoe_config_load(&cfg, err, sizeof err);
    aoe_config_bank_path(&cfg, path, sizeof path);
    cr_expect_str_eq(path, "/home/u/.local/share/aoe/bank");
    setenv("TUNE_BANK_PATH", "/b", 1);
    aoe_config_load(&cfg, err, sizeof err);
    aoe_config_bank_path(&cfg, path, sizeof path);
    cr_expect_str_eq(path, "/b");
    clear_env();
}
