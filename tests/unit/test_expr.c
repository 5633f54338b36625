/* Constraint and size-rule expressions: C precedence, every operator,
 * division by zero and overflow as failures, clear parse errors. */
#include "space/expr.h"

#include <criterion/criterion.h>
#include <string.h>

static const char *const names[] = {"TS", "WPT", "G0"};

static int eval_text(const char *text, const int64_t *vals, int64_t *out)
{
    char err[256] = "";
    aoe_expr *e = aoe_expr_parse(text, err, sizeof err);
    cr_assert_not_null(e, "%s: %s", text, err);
    cr_assert_eq(aoe_expr_bind(e, names, 3, err, sizeof err), 0, "%s", err);
    int rc = aoe_expr_eval(e, vals, out);
    aoe_expr_free(e);
    return rc;
}

static int64_t value_of(const char *text)
{
    const int64_t vals[3] = {32, 4, 1024};
    int64_t v = -999;
    cr_assert_eq(eval_text(text, vals, &v), 0, "%s failed to evaluate", text);
    return v;
}

Test(expr, operators_and_precedence)
{
    struct {
        const char *text;
        int64_t want;
    } cases[] = {
        {"1 + 2 * 3", 7},
        {"(1 + 2) * 3", 9},
        {"10 - 4 - 3", 3},
        {"100 / 10 / 5", 2},
        {"17 % 5", 2},
        {"-3 + 5", 2},
        {"!0", 1},
        {"!5", 0},
        {"+4", 4},
        {"TS % WPT == 0", 1},
        {"TS * TS / WPT", 256},
        {"TS*TS/WPT <= 256", 1},
        {"TS*TS/WPT < 256", 0},
        {"TS > WPT && WPT >= 4", 1},
        {"TS < WPT || WPT != 4", 0},
        {"1 || 0 && 0", 1},
        {"(1 || 0) && 0", 0},
        {"2 < 3 == 1", 1},
        {"G0 / (TS / WPT)", 128},
        {"--4", 4},
        {"!!7", 1},
        {"  TS>=32&&TS<=32  ", 1},
        {"3 != 3", 0},
        {"-7 % 3", -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_expect_eq(value_of(cases[i].text), cases[i].want, "%s", cases[i].text);
}

Test(expr, division_by_zero_and_overflow_fail)
{
    const int64_t zero[3] = {0, 0, 0}, big[3] = {INT64_MAX, 2, 0};
    int64_t v;
    cr_expect_eq(eval_text("TS / WPT", zero, &v), -1);
    cr_expect_eq(eval_text("TS % WPT == 0", zero, &v), -1);
    cr_expect_eq(eval_text("TS * WPT", big, &v), -1);
    cr_expect_eq(eval_text("TS + 1", big, &v), -1);
    cr_expect_eq(eval_text("-TS - 2", big, &v), -1);
    /* short-circuit as in C: the right side is not evaluated */
    cr_expect_eq(eval_text("WPT != 0 && TS / WPT > 1", zero, &v), 0);
    cr_expect_eq(v, 0);
}

Test(expr, parse_errors_say_where)
{
    const char *bad[] = {"",       "1 +",     "(1 + 2",
                         "1 + 2)", "TS ** 2", "TS = 2",
                         "3TS",    "TS & 1",  "99999999999999999999",
                         "TS $ 2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[256] = "";
        aoe_expr *e = aoe_expr_parse(bad[i], err, sizeof err);
        cr_expect_null(e, "accepted \"%s\"", bad[i]);
        cr_expect_not_null(strstr(err, "at character"), "\"%s\": %s", bad[i], err);
        aoe_expr_free(e);
    }
}

Test(expr, depth_and_length_are_bounded)
{
    char deep[400], err[256];
    size_t n = 0;
    for (int i = 0; i < 150; i++) deep[n++] = '(';
    deep[n++] = '1';
    for (int i = 0; i < 150; i++) deep[n++] = ')';
    deep[n] = '\0';
    cr_expect_null(aoe_expr_parse(deep, err, sizeof err));
    cr_expect_not_null(strstr(err, "nested too deeply"), "%s", err);
    char bangs[200];
    memset(bangs, '!', 150);
    strcpy(bangs + 150, "1");
    cr_expect_null(aoe_expr_parse(bangs, err, sizeof err));
    char longx[AOE_EXPR_MAX_LEN + 10];
    memset(longx, '1', sizeof longx - 1);
    longx[sizeof longx - 1] = '\0';
    cr_expect_null(aoe_expr_parse(longx, err, sizeof err));
}

Test(expr, unknown_names_are_reported_and_uses_works)
{
    char err[256] = "";
    aoe_expr *e = aoe_expr_parse("TS % VW == 0", err, sizeof err);
    cr_assert_not_null(e);
    cr_expect(aoe_expr_uses(e, "VW"));
    cr_expect(aoe_expr_uses(e, "TS"));
    cr_expect_not(aoe_expr_uses(e, "T"));
    cr_expect_eq(aoe_expr_bind(e, names, 3, err, sizeof err), -1);
    cr_expect_not_null(strstr(err, "unknown name \"VW\""), "%s", err);
    cr_expect_str_eq(aoe_expr_text(e), "TS % VW == 0");
    aoe_expr_free(e);
}
