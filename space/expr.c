/* Recursive-descent parser into a flat node array; evaluation walks it
 * recursively. Depth and length are bounded so hostile input cannot blow the
 * stack (the tunables reader is fuzzed). */
#include "space/expr.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum {
    OP_NUM,
    OP_VAR,
    OP_NOT,
    OP_NEG,
    OP_OR,
    OP_AND,
    OP_EQ,
    OP_NE,
    OP_LT,
    OP_LE,
    OP_GT,
    OP_GE,
    OP_ADD,
    OP_SUB,
    OP_MUL,
    OP_DIV,
    OP_MOD
} op_kind;

typedef struct {
    op_kind op;
    int a, b;      /* child node indices (-1 = none) */
    int64_t value; /* OP_NUM: the number; OP_VAR: bound index */
    int name;      /* OP_VAR: offset of the identifier in names */
} node;

struct aoe_expr {
    node *nodes;
    int n, cap, root;
    char *names; /* identifiers, NUL-separated */
    size_t names_len;
    char *text;
};

typedef struct {
    const char *s;
    size_t pos;
    int depth;
    aoe_expr *e;
    char *err;
    size_t errlen;
    int failed;
} parser;

static int perr(parser *p, const char *fmt, ...)
{
    if (!p->failed && p->err && p->errlen) {
        char msg[160];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        snprintf(p->err, p->errlen, "expression \"%.80s\": %s at character %zu", p->s, msg,
                 p->pos + 1);
    }
    p->failed = 1;
    return -1;
}

static int add_node(parser *p, op_kind op, int a, int b, int64_t value)
{
    aoe_expr *e = p->e;
    if (e->n == e->cap) {
        int cap = e->cap ? e->cap * 2 : 16;
        node *nn = realloc(e->nodes, (size_t)cap * sizeof *nn);
        if (!nn) return perr(p, "out of memory");
        e->nodes = nn, e->cap = cap;
    }
    e->nodes[e->n] = (node){op, a, b, value, -1};
    return e->n++;
}

static void skip_space(parser *p)
{
    while (isspace((unsigned char)p->s[p->pos])) p->pos++;
}

/* Consumes operator tok if next (and not the prefix of a longer one). */
static int accept(parser *p, const char *tok)
{
    skip_space(p);
    size_t n = strlen(tok);
    if (strncmp(p->s + p->pos, tok, n)) return 0;
    char next = p->s[p->pos + n];
    if (n == 1 && (tok[0] == '<' || tok[0] == '>' || tok[0] == '!') && next == '=') return 0;
    if (n == 1 && (tok[0] == '&' || tok[0] == '|') && next == tok[0]) return 0;
    p->pos += n;
    return 1;
}

static int parse_or(parser *p);

static int parse_primary(parser *p)
{
    skip_space(p);
    const char *c = p->s + p->pos;
    if (isdigit((unsigned char)*c)) {
        int64_t v = 0;
        while (isdigit((unsigned char)p->s[p->pos])) {
            int d = p->s[p->pos] - '0';
            if (v > (INT64_MAX - d) / 10) return perr(p, "number too large");
            v = v * 10 + d;
            p->pos++;
        }
        if (isalpha((unsigned char)p->s[p->pos]) || p->s[p->pos] == '_')
            return perr(p, "expected an operator after the number");
        return add_node(p, OP_NUM, -1, -1, v);
    }
    if (isalpha((unsigned char)*c) || *c == '_') {
        size_t n = 0;
        while (isalnum((unsigned char)c[n]) || c[n] == '_') n++;
        aoe_expr *e = p->e;
        char *names = realloc(e->names, e->names_len + n + 1);
        if (!names) return perr(p, "out of memory");
        e->names = names;
        memcpy(names + e->names_len, c, n);
        names[e->names_len + n] = '\0';
        int id = add_node(p, OP_VAR, -1, -1, -1);
        if (id < 0) return -1;
        e->nodes[id].name = (int)e->names_len;
        e->names_len += n + 1;
        p->pos += n;
        return id;
    }
    if (*c == '(') {
        p->pos++;
        if (++p->depth > AOE_EXPR_MAX_DEPTH) return perr(p, "nested too deeply");
        int r = parse_or(p);
        p->depth--;
        if (r < 0) return -1;
        if (!accept(p, ")")) return perr(p, "expected ')'");
        return r;
    }
    if (!*c) return perr(p, "unexpected end, expected a number, a name or '('");
    return perr(p, "unexpected '%c', expected a number, a name or '('", *c);
}

static int parse_unary(parser *p)
{
    op_kind op;
    if (accept(p, "!"))
        op = OP_NOT;
    else if (accept(p, "-"))
        op = OP_NEG;
    else if (accept(p, "+"))
        op = OP_NUM; /* unary plus: no node */
    else
        return parse_primary(p);
    if (++p->depth > AOE_EXPR_MAX_DEPTH) return perr(p, "nested too deeply");
    int a = parse_unary(p);
    p->depth--;
    if (a < 0 || op == OP_NUM) return a;
    return add_node(p, op, a, -1, 0);
}

/* One precedence level: operands from `next`, operators from toks/ops. */
static int parse_level(parser *p, int (*next)(parser *), const char *const *toks,
                       const op_kind *ops, int ntok)
{
    int a = next(p);
    while (a >= 0) {
        int k = 0;
        while (k < ntok && !accept(p, toks[k])) k++;
        if (k == ntok) break;
        int b = next(p);
        if (b < 0) return -1;
        a = add_node(p, ops[k], a, b, 0);
    }
    return a;
}

static int parse_mul(parser *p)
{
    static const char *const t[] = {"*", "/", "%"};
    static const op_kind o[] = {OP_MUL, OP_DIV, OP_MOD};
    return parse_level(p, parse_unary, t, o, 3);
}

static int parse_add(parser *p)
{
    static const char *const t[] = {"+", "-"};
    static const op_kind o[] = {OP_ADD, OP_SUB};
    return parse_level(p, parse_mul, t, o, 2);
}

static int parse_rel(parser *p)
{
    static const char *const t[] = {"<=", ">=", "<", ">"};
    static const op_kind o[] = {OP_LE, OP_GE, OP_LT, OP_GT};
    return parse_level(p, parse_add, t, o, 4);
}

static int parse_eq(parser *p)
{
    static const char *const t[] = {"==", "!="};
    static const op_kind o[] = {OP_EQ, OP_NE};
    return parse_level(p, parse_rel, t, o, 2);
}

static int parse_and(parser *p)
{
    static const char *const t[] = {"&&"};
    static const op_kind o[] = {OP_AND};
    return parse_level(p, parse_eq, t, o, 1);
}

static int parse_or(parser *p)
{
    static const char *const t[] = {"||"};
    static const op_kind o[] = {OP_OR};
    return parse_level(p, parse_and, t, o, 1);
}

aoe_expr *aoe_expr_parse(const char *text, char *err, size_t errlen)
{
    if (!text || strlen(text) > AOE_EXPR_MAX_LEN) {
        snprintf(err, errlen, "expression longer than %d characters", AOE_EXPR_MAX_LEN);
        return NULL;
    }
    aoe_expr *e = calloc(1, sizeof *e);
    if (!e || !(e->text = strdup(text))) {
        free(e);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    parser p = {text, 0, 0, e, err, errlen, 0};
    e->root = parse_or(&p);
    skip_space(&p);
    if (e->root >= 0 && text[p.pos]) perr(&p, "unexpected '%c'", text[p.pos]);
    if (p.failed) {
        aoe_expr_free(e);
        return NULL;
    }
    return e;
}

void aoe_expr_free(aoe_expr *e)
{
    if (!e) return;
    free(e->nodes);
    free(e->names);
    free(e->text);
    free(e);
}

int aoe_expr_bind(aoe_expr *e, const char *const *names, int n, char *err, size_t errlen)
{
    for (int i = 0; i < e->n; i++) {
        node *nd = &e->nodes[i];
        if (nd->op != OP_VAR) continue;
        const char *id = e->names + nd->name;
        nd->value = -1;
        for (int k = 0; k < n && nd->value < 0; k++)
            if (!strcmp(names[k], id)) nd->value = k;
        if (nd->value < 0) {
            snprintf(err, errlen, "expression \"%.80s\": unknown name \"%s\"", e->text, id);
            return -1;
        }
    }
    return 0;
}

int aoe_expr_uses(const aoe_expr *e, const char *name)
{
    for (int i = 0; i < e->n; i++)
        if (e->nodes[i].op == OP_VAR && !strcmp(e->names + e->nodes[i].name, name)) return 1;
    return 0;
}

const char *aoe_expr_text(const aoe_expr *e)
{
    return e->text;
}

static int eval(const aoe_expr *e, int i, const int64_t *v, int64_t *out)
{
    const node *nd = &e->nodes[i];
    int64_t a, b;
    switch (nd->op) {
    case OP_NUM:
        *out = nd->value;
        return 0;
    case OP_VAR:
        if (nd->value < 0) return -1; /* unbound */
        *out = v[nd->value];
        return 0;
    case OP_NOT:
        if (eval(e, nd->a, v, &a)) return -1;
        *out = !a;
        return 0;
    case OP_NEG:
        if (eval(e, nd->a, v, &a) || a == INT64_MIN) return -1;
        *out = -a;
        return 0;
    case OP_AND: /* short-circuit, as in C */
    case OP_OR:
        if (eval(e, nd->a, v, &a)) return -1;
        if ((nd->op == OP_AND && !a) || (nd->op == OP_OR && a)) {
            *out = nd->op == OP_OR;
            return 0;
        }
        if (eval(e, nd->b, v, &b)) return -1;
        *out = b != 0;
        return 0;
    default:
        break;
    }
    if (eval(e, nd->a, v, &a) || eval(e, nd->b, v, &b)) return -1;
    switch (nd->op) {
    case OP_EQ:
        *out = a == b;
        return 0;
    case OP_NE:
        *out = a != b;
        return 0;
    case OP_LT:
        *out = a < b;
        return 0;
    case OP_LE:
        *out = a <= b;
        return 0;
    case OP_GT:
        *out = a > b;
        return 0;
    case OP_GE:
        *out = a >= b;
        return 0;
    case OP_ADD:
        return __builtin_add_overflow(a, b, out) ? -1 : 0;
    case OP_SUB:
        return __builtin_sub_overflow(a, b, out) ? -1 : 0;
    case OP_MUL:
        return __builtin_mul_overflow(a, b, out) ? -1 : 0;
    case OP_DIV:
    case OP_MOD:
        if (b == 0 || (a == INT64_MIN && b == -1)) return -1;
        *out = nd->op == OP_DIV ? a / b : a % b;
        return 0;
    default:
        return -1;
    }
}

int aoe_expr_eval(const aoe_expr *e, const int64_t *values, int64_t *out)
{
    if (!e || e->root < 0) return -1;
    return eval(e, e->root, values, out);
}
