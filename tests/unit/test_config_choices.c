/* Choice variables: each one's enum, its `allowed` string and (for
 * AOE_STRATEGY) the tuner's strategy names are one list, so a value added in
 * one place only is caught here: counts differ or a value parses to another
 * index. */
#include "core/config.h"
#include "tuner/strategy.h"
#include "core/strategy_list.h"

#include <criterion/criterion.h>
#include <string.h>

#define STRAT_NAME(id, name, fn, in_all) name,
static const char *const log_names[] = {AOE_LOG_LEVELS(AOE_CHOICE_NAME)};
static const char *const mode_names[] = {AOE_TUNE_MODES(AOE_CHOICE_NAME)};
static const char *const strat_names[] = {AOE_STRATEGY_LIST(STRAT_NAME)};

#define N(a) (sizeof(a) / sizeof((a)[0]))
static const struct {
    aoe_cfg_id id;
    long count; /* the enum's *_COUNT */
    const char *const *names;
    size_t n_names;
} choices[] = {
    {AOE_CFG_LOG_LEVEL, AOE_LOG_COUNT, log_names, N(log_names)},
    {AOE_CFG_TUNE_MODE, AOE_MODE_COUNT, mode_names, N(mode_names)},
    {AOE_CFG_STRATEGY, AOE_STRAT_COUNT, strat_names, N(strat_names)},
};

static long count_allowed(const char *allowed)
{
    long n = 1;
    for (const char *p = allowed; *p; p++) n += *p == '|';
    return n;
}

Test(config_choices, every_choice_variable_has_a_value_list)
{
    for (int i = 0; i < AOE_CFG_COUNT; i++) {
        if (aoe_cfg_table[i].type != AOE_CFG_ENUM) continue;
        bool found = false;
        for (size_t c = 0; c < N(choices); c++) found |= choices[c].id == (aoe_cfg_id)i;
        cr_expect(found, "%s has no value list in this test", aoe_cfg_table[i].name);
    }
}

Test(config_choices, enum_count_equals_allowed_and_each_value_parses_to_its_index)
{
    for (size_t c = 0; c < N(choices); c++) {
        const aoe_cfg_decl *d = &aoe_cfg_table[choices[c].id];
        cr_assert_not_null(d->allowed, "%s", d->name);
        cr_expect_eq(count_allowed(d->allowed), choices[c].count,
                     "%s: allowed \"%s\" has %ld values, enum %ld", d->name, d->allowed,
                     count_allowed(d->allowed), choices[c].count);
        cr_expect_eq((long)choices[c].n_names, choices[c].count, "%s", d->name);
        for (size_t k = 0; k < choices[c].n_names; k++) {
            long v = -1;
            char err[256] = "";
            cr_expect_eq(
                aoe_config_parse_one(choices[c].id, choices[c].names[k], &v, err, sizeof err), 0,
                "%s", err);
            cr_expect_eq(v, (long)k, "%s=%s parses to %ld", d->name, choices[c].names[k], v);
        }
    }
}

Test(config_choices, named_constants_parse_to_their_spelling)
{
    static const struct {
        aoe_cfg_id id;
        const char *value;
        long want;
    } cases[] = {
        {AOE_CFG_LOG_LEVEL, "error", AOE_LOG_ERROR},
        {AOE_CFG_LOG_LEVEL, "debug", AOE_LOG_DEBUG},
        {AOE_CFG_TUNE_MODE, "online", AOE_MODE_ONLINE},
        {AOE_CFG_TUNE_MODE, "off", AOE_MODE_OFF},
        {AOE_CFG_STRATEGY, "auto", AOE_STRAT_AUTO},
        {AOE_CFG_STRATEGY, "surrogate", AOE_STRAT_SURROGATE},
    };
    for (size_t i = 0; i < N(cases); i++) {
        long v = -1;
        char err[256] = "";
        cr_expect_eq(aoe_config_parse_one(cases[i].id, cases[i].value, &v, err, sizeof err), 0,
                     "%s", err);
        cr_expect_eq(v, cases[i].want, "%s", cases[i].value);
    }
}

/* The tuner's names, AOE_STRATEGY's allowed values and the list agree, in order. */
Test(config_choices, strategy_names_are_the_allowed_values)
{
    int n = 0;
    for (; aoe_strategy_names[n]; n++) {
        long v = -1;
        char err[256] = "";
        cr_expect_eq(
            aoe_config_parse_one(AOE_CFG_STRATEGY, aoe_strategy_names[n], &v, err, sizeof err), 0,
            "%s", err);
        cr_expect_eq(v, n, "%s", aoe_strategy_names[n]);
    }
    cr_expect_eq(n, AOE_STRAT_COUNT);
    cr_expect_eq(count_allowed(aoe_cfg_table[AOE_CFG_STRATEGY].allowed), n);
}
