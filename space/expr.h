/* Integer expressions over named parameters, for tunables constraints
 * ("TS % WPT == 0", "TS*TS/WPT <= 256") and work-size rules ("G1 / WPT").
 * C operators and precedence: || && == != < <= > >= + - * / % unary ! - +,
 * parentheses, decimal integers, identifiers. Parsed once, bound to parameter
 * indices once, then evaluated per configuration without allocation. */
#ifndef AOE_EXPR_H
#define AOE_EXPR_H

#include <stddef.h>
#include <stdint.h>

#define AOE_EXPR_MAX_LEN 1024 /* characters of one expression */
#define AOE_EXPR_MAX_DEPTH 64 /* nesting of parentheses and unary operators */

typedef struct aoe_expr aoe_expr;

/* Parses text. Returns NULL with a message (position and what was expected). */
aoe_expr *aoe_expr_parse(const char *text, char *err, size_t errlen);
void aoe_expr_free(aoe_expr *e);

/* Resolves every identifier to its index in names[0..n-1]. Returns 0, or -1
 * naming the first unknown identifier. */
int aoe_expr_bind(aoe_expr *e, const char *const *names, int n, char *err, size_t errlen);

/* Evaluates a bound expression with values[i] for names[i]. Returns 0, or -1
 * on division by zero or overflow (a constraint that fails this way is false). */
int aoe_expr_eval(const aoe_expr *e, const int64_t *values, int64_t *out);

/* 1 if identifier `name` occurs in the expression. */
int aoe_expr_uses(const aoe_expr *e, const char *name);

/* The text the expression was parsed from. */
const char *aoe_expr_text(const aoe_expr *e);

#endif
