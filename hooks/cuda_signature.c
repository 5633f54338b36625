/* See cuda_signature.h. One pass over the source's tokens (comments,
 * literals and preprocessor lines skipped), tracking extern "C" blocks and
 * `template` heads; each __global__ declaration's name is compared with the
 * one asked for, plain and lowered. */
#include "hooks/cuda_signature.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    int kind; /* 'i' identifier, 's' string, 'c' char literal, 'n' number, else the character; 0:
                 end */
    const char *p;
    size_t len;
} tok;

typedef struct {
    const char *p;
    int line_start; /* nothing but white space since the last newline */
} lexer;

static int is_id(char c, int first)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (!first && c >= '0' && c <= '9');
}

static void skip_line(lexer *lx) /* a preprocessor line, with its continuations */
{
    const char *p = lx->p;
    while (*p && *p != '\n') p += p[0] == '\\' && p[1] ? 2 : 1;
    lx->p = p;
}

static tok next(lexer *lx)
{
    for (;;) {
        const char *p = lx->p;
        if (*p == '\n') {
            lx->line_start = 1, lx->p++;
        } else if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\v') {
            lx->p++;
        } else if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n') p++;
            lx->p = p;
        } else if (p[0] == '/' && p[1] == '*') {
            const char *e = strstr(p + 2, "*/");
            lx->p = e ? e + 2 : p + strlen(p);
        } else if (*p == '#' && lx->line_start) {
            skip_line(lx);
        } else {
            break;
        }
    }
    lx->line_start = 0;
    const char *p = lx->p;
    tok t = {*p ? (unsigned char)*p : 0, p, *p ? 1 : 0};
    if (!*p) return t;
    if (is_id(*p, 1)) {
        while (is_id(p[t.len], 0)) t.len++;
        t.kind = 'i';
    } else if (*p >= '0' && *p <= '9') {
        while (is_id(p[t.len], 0) || p[t.len] == '.') t.len++;
        t.kind = 'n';
    } else if (*p == '"' || *p == '\'') {
        while (p[t.len] && p[t.len] != *p && p[t.len] != '\n')
            t.len += p[t.len] == '\\' && p[t.len + 1] ? 2 : 1;
        if (p[t.len] == *p) t.len++;
        t.kind = *p == '"' ? 's' : 'c';
    }
    lx->p = p + t.len;
    return t;
}

static int is(tok t, const char *w)
{
    return t.kind == 'i' && t.len == strlen(w) && !memcmp(t.p, w, t.len);
}

/* ---- one parameter ---- */

enum {
    W_UNSIGNED = 1,
    W_SIGNED = 2,
    W_CHAR = 4,
    W_SHORT = 8,
    W_INT = 16,
    W_LONG = 32,
    W_LONGLONG = 64,
    W_FLOAT = 128,
    W_DOUBLE = 256,
    W_BOOL = 512,
    W_VOID = 1024
};

/* A builtin type spelled by words: Itanium code, element type, size. */
typedef struct {
    int words;
    const char *code;
    aoe_elem_type elem;
    uint32_t size;
} builtin;

static const builtin g_builtins[] = {
    {W_VOID, "v", AOE_ELEM_BYTES, 0},
    {W_BOOL, "b", AOE_ELEM_BYTES, 1},
    {W_CHAR, "c", AOE_ELEM_I8, 1},
    {W_SIGNED | W_CHAR, "a", AOE_ELEM_I8, 1},
    {W_UNSIGNED | W_CHAR, "h", AOE_ELEM_U8, 1},
    {W_SHORT, "s", AOE_ELEM_I16, 2},
    {W_UNSIGNED | W_SHORT, "t", AOE_ELEM_U16, 2},
    {W_INT, "i", AOE_ELEM_I32, 4},
    {W_UNSIGNED, "j", AOE_ELEM_U32, 4},
    {W_LONG, "l", AOE_ELEM_I64, 8},
    {W_UNSIGNED | W_LONG, "m", AOE_ELEM_U64, 8},
    {W_LONGLONG, "x", AOE_ELEM_I64, 8},
    {W_UNSIGNED | W_LONGLONG, "y", AOE_ELEM_U64, 8},
    {W_FLOAT, "f", AOE_ELEM_F32, 4},
    {W_DOUBLE, "d", AOE_ELEM_F64, 8},
    {W_LONG | W_DOUBLE, "e", AOE_ELEM_BYTES, 16},
};

/* Type names that stand for a builtin (typedefs: mangled as what they name)
 * or a CUDA struct of known size. */
static const struct {
    const char *name;
    const char *code; /* the Itanium code */
    aoe_elem_type elem;
    uint32_t size;
} g_named[] = {
    {"size_t", "m", AOE_ELEM_U64, 8},
    {"ptrdiff_t", "l", AOE_ELEM_I64, 8},
    {"intptr_t", "l", AOE_ELEM_I64, 8},
    {"uintptr_t", "m", AOE_ELEM_U64, 8},
    {"int8_t", "a", AOE_ELEM_I8, 1},
    {"uint8_t", "h", AOE_ELEM_U8, 1},
    {"int16_t", "s", AOE_ELEM_I16, 2},
    {"uint16_t", "t", AOE_ELEM_U16, 2},
    {"int32_t", "i", AOE_ELEM_I32, 4},
    {"uint32_t", "j", AOE_ELEM_U32, 4},
    {"int64_t", "l", AOE_ELEM_I64, 8},
    {"uint64_t", "m", AOE_ELEM_U64, 8},
    {"__half", "6__half", AOE_ELEM_F16, 2},
    {"half", "6__half", AOE_ELEM_F16, 2},
    {"__nv_bfloat16", "13__nv_bfloat16", AOE_ELEM_BF16, 2},
    {"nv_bfloat16", "13__nv_bfloat16", AOE_ELEM_BF16, 2},
};

typedef struct {
    int words, ptrs, konst;
    char named[128];
} param_text;

/* Reads one parameter's tokens [b, e). 1: empty, 0: read, -1: not understood. */
static int read_param(const char *b, const char *e, param_text *pt)
{
    static const struct {
        const char *word;
        int bit;
    } words[] = {{"unsigned", W_UNSIGNED}, {"signed", W_SIGNED}, {"char", W_CHAR},
                 {"short", W_SHORT},       {"int", W_INT},       {"long", W_LONG},
                 {"float", W_FLOAT},       {"double", W_DOUBLE}, {"bool", W_BOOL},
                 {"void", W_VOID}};
    memset(pt, 0, sizeof *pt);
    int any = 0, named_var = 0;
    lexer lx = {b, 0};
    for (tok t = next(&lx); t.kind && t.p < e; t = next(&lx)) {
        any = 1;
        if (t.kind == '*') {
            if (!pt->words && !pt->named[0]) return -1;
            if (named_var) return -1; /* "float x *" */
            pt->ptrs++;
            continue;
        }
        if (t.kind != 'i') return -1; /* references, arrays, defaults, function pointers */
        if (is(t, "const")) {
            if (!pt->ptrs) pt->konst = 1; /* after a '*': the pointer's own (ignored) */
            continue;
        }
        if (is(t, "volatile") || is(t, "__restrict__") || is(t, "__restrict") ||
            is(t, "restrict") || is(t, "struct") || is(t, "class") || is(t, "union") ||
            is(t, "__grid_constant__"))
            continue;
        int bit = 0;
        for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
            if (is(t, words[i].word)) bit = words[i].bit;
        if (bit && (pt->named[0] || named_var)) return -1;
        if (bit == W_LONG && (pt->words & W_LONG)) bit = W_LONGLONG, pt->words &= ~W_LONG;
        if (bit) {
            if (pt->words & bit) return -1;
            pt->words |= bit;
        } else if (!pt->words && !pt->named[0]) {
            if (t.len >= sizeof pt->named) return -1;
            memcpy(pt->named, t.p, t.len);
            pt->named[t.len] = '\0';
        } else if (!named_var) {
            named_var = 1; /* the parameter's name */
        } else {
            return -1;
        }
    }
    if (!any) return 1;
    return pt->words || pt->named[0] ? 0 : -1;
}

static const builtin *builtin_of(int w)
{
    if (w & (W_CHAR | W_SHORT | W_LONG | W_LONGLONG | W_UNSIGNED)) w &= ~W_INT;
    if ((w & W_SIGNED) && !(w & W_CHAR)) w = (w & ~W_SIGNED) | (w ? 0 : W_INT);
    if (!w) w = W_INT; /* "signed" alone */
    for (size_t i = 0; i < sizeof g_builtins / sizeof g_builtins[0]; i++)
        if (g_builtins[i].words == w) return &g_builtins[i];
    return NULL;
}

/* What a parameter is: -1 when its type is not known well enough. */
static int describe(const param_text *pt, aoe_cu_sig_param *out, const char **code, int *is_builtin)
{
    memset(out, 0, sizeof *out);
    aoe_elem_type elem = AOE_ELEM_BYTES;
    uint32_t size = 0;
    *is_builtin = 0;
    if (pt->words) {
        const builtin *bt = builtin_of(pt->words);
        if (!bt) return -1;
        *code = bt->code, *is_builtin = 1;
        elem = bt->elem, size = bt->size;
        if (bt->words == W_VOID && !pt->ptrs) return -1;
    } else {
        *code = NULL;
        for (size_t i = 0; i < sizeof g_named / sizeof g_named[0]; i++)
            if (!strcmp(pt->named, g_named[i].name)) {
                *code = g_named[i].code, *is_builtin = g_named[i].code[1] == '\0';
                elem = g_named[i].elem, size = g_named[i].size;
            }
        if (!*code) elem = aoe_elem_of_type_name(pt->named, 0); /* float4: f32 */
    }
    out->pointer = pt->ptrs > 0;
    out->pointee_const = pt->ptrs == 1 && pt->konst;
    out->elem = pt->ptrs > 1 ? AOE_ELEM_BYTES : elem;
    out->size = pt->ptrs ? 8 : size;
    return 0;
}

/* ---- lowered names (Itanium mangling of simple parameter lists) ---- */

#define MAX_SUBS 96
typedef struct {
    char m[1024];             /* the name being built */
    char subs[MAX_SUBS][160]; /* substitution candidates, in order */
    int nsubs, ok;
} mangler;

static void put(mangler *mg, const char *s)
{
    size_t n = strlen(mg->m), k = strlen(s);
    if (n + k >= sizeof mg->m) {
        mg->ok = 0;
        return;
    }
    memcpy(mg->m + n, s, k + 1);
}

static int sub_find(const mangler *mg, const char *s)
{
    for (int i = 0; i < mg->nsubs; i++)
        if (!strcmp(mg->subs[i], s)) return i;
    return -1;
}

static void sub_add(mangler *mg, const char *s)
{
    if (mg->nsubs == MAX_SUBS || strlen(s) >= sizeof mg->subs[0]) {
        mg->ok = 0;
        return;
    }
    snprintf(mg->subs[mg->nsubs++], sizeof mg->subs[0], "%s", s);
}

static void sub_ref(int i, char *out, size_t len) /* S_, S0_, ..., S9_, SA_, ..., SZ_, S10_ */
{
    if (i == 0) {
        snprintf(out, len, "S_");
        return;
    }
    char digits[16];
    int n = 0;
    unsigned v = (unsigned)(i - 1);
    do {
        unsigned d = v % 36;
        digits[n++] = (char)(d < 10 ? '0' + d : 'A' + d - 10);
        v /= 36;
    } while (v && n < 15);
    size_t o = 0;
    out[o++] = 'S';
    while (n && o + 2 < len) out[o++] = digits[--n];
    out[o++] = '_';
    out[o] = '\0';
}

/* One parameter's type: the innermost first, each level substitutable
 * unless it is a builtin. */
static void mangle_type(mangler *mg, const char *base, int is_builtin, int konst, int ptrs)
{
    char full[160], emit[160], ref[16];
    snprintf(full, sizeof full, "%s", base);
    snprintf(emit, sizeof emit, "%s", base);
    int i;
    if (!is_builtin) {
        if ((i = sub_find(mg, full)) >= 0)
            sub_ref(i, emit, sizeof emit);
        else
            sub_add(mg, full);
    }
    for (int level = 0; level < (konst ? 1 : 0) + ptrs && mg->ok; level++) {
        const char *q = konst && level == 0 ? "K" : "P";
        char f2[160], e2[160];
        if (snprintf(f2, sizeof f2, "%s%s", q, full) >= (int)sizeof f2 ||
            snprintf(e2, sizeof e2, "%s%s", q, emit) >= (int)sizeof e2) {
            mg->ok = 0;
            return;
        }
        memcpy(full, f2, sizeof full);
        if ((i = sub_find(mg, full)) >= 0) {
            sub_ref(i, ref, sizeof ref);
            snprintf(emit, sizeof emit, "%s", ref);
        } else {
            memcpy(emit, e2, sizeof emit);
            sub_add(mg, full);
        }
    }
    put(mg, emit);
}

/* ---- the scan ---- */

typedef struct {
    const char *open, *close; /* the parameter list, without its parentheses */
    char name[256];
} decl;

static const char *const g_attributes[] = {"__launch_bounds__", "__cluster_dims__", "__maxnreg__",
                                           "__attribute__",     "__declspec",       "alignas",
                                           "__noinline__",      "__forceinline__",  NULL};

/* After `__global__`: the declared name and its parameter list. */
static int read_decl(lexer *lx, decl *d)
{
    tok last = {0};
    for (tok u = next(lx); u.kind && u.kind != ';' && u.kind != '{' && u.kind != '}';
         u = next(lx)) {
        if (u.kind != '(') {
            last = u;
            continue;
        }
        int attr = 0;
        for (const char *const *a = g_attributes; *a; a++) attr |= is(last, *a);
        const char *open = u.p + 1;
        int depth = 1;
        while (depth && (u = next(lx)).kind) depth += (u.kind == '(') - (u.kind == ')');
        if (depth) return -1;
        if (attr) continue;
        if (last.kind != 'i' || last.len >= sizeof d->name) return -1;
        memcpy(d->name, last.p, last.len);
        d->name[last.len] = '\0';
        d->open = open, d->close = u.p;
        return 0;
    }
    return -1;
}

/* One parameter [b, e) of d: described into out[*n] and mangled. 0, or AOE_CU_SIG_*. */
static int one_param(const char *b, const char *e, int last, aoe_cu_sig_param *out, int max, int *n,
                     mangler *mg)
{
    param_text pt;
    int r = read_param(b, e, &pt);
    if (r < 0) return AOE_CU_SIG_UNREAD;
    if (r == 1) return last && !*n ? 0 : AOE_CU_SIG_UNREAD;      /* "()", not "(int, )" */
    if (pt.words == W_VOID && !pt.ptrs && !*n && last) return 0; /* (void) */
    if (*n == max) return AOE_CU_SIG_TOO_MANY;
    const char *code;
    int is_builtin;
    if (describe(&pt, &out[*n], &code, &is_builtin)) return AOE_CU_SIG_UNREAD;
    if (mg) {
        char named_code[sizeof pt.named + 20]; /* the length (any size_t), then the name */
        if (!code) {
            snprintf(named_code, sizeof named_code, "%zu%s", strlen(pt.named), pt.named);
            code = named_code;
        }
        mangle_type(mg, code, is_builtin, pt.konst && pt.ptrs, pt.ptrs);
    }
    (*n)++;
    return 0;
}

/* The parameters of d (and its lowered name into lowered, when asked for). */
static int read_params(const decl *d, aoe_cu_sig_param *out, int max, char *lowered, size_t len)
{
    mangler mg_local, *mg = lowered ? &mg_local : NULL;
    if (mg) {
        memset(mg, 0, sizeof *mg);
        mg->ok = 1;
        snprintf(mg->m, sizeof mg->m, "_Z%zu%s", strlen(d->name), d->name);
    }
    int n = 0, depth = 0, r;
    const char *b = d->open;
    lexer lx = {d->open, 0};
    for (tok t = next(&lx); t.kind && t.p < d->close; t = next(&lx)) {
        if (t.kind == '(' || t.kind == '<' || t.kind == '[') depth++;
        if (t.kind == ')' || t.kind == '>' || t.kind == ']') depth--;
        if (t.kind != ',' || depth) continue;
        if ((r = one_param(b, t.p, 0, out, max, &n, mg))) return r;
        b = t.p + 1;
    }
    if ((r = one_param(b, d->close, 1, out, max, &n, mg))) return r;
    if (mg) {
        if (!n) put(mg, "v");
        if (!mg->ok) return AOE_CU_SIG_UNREAD;
        snprintf(lowered, len, "%s", mg->m);
    }
    return n;
}

int aoe_cu_signature(const char *source, const char *name, aoe_cu_sig_param *out, int max)
{
    if (!source || !name || !*name || max < 0) return AOE_CU_SIG_NOT_FOUND;
    char extern_c[256] = {0}; /* per brace depth: 1 when an extern "C" { opened it */
    int depth = 0, in_c = 0, decl_c = 0, templ = 0, result = AOE_CU_SIG_NOT_FOUND;
    tok prev = {0}, prev2 = {0};
    lexer lx = {source, 1};
    for (tok t = next(&lx); t.kind; prev2 = prev, prev = t, t = next(&lx)) {
        if (t.kind == '{') {
            int c = is(prev2, "extern") && prev.kind == 's' && prev.len == 3 && prev.p[1] == 'C';
            if (depth < (int)sizeof extern_c) extern_c[depth] = (char)c;
            depth++;
            in_c += c;
            decl_c = templ = 0;
        } else if (t.kind == '}') {
            if (depth > 0) depth--;
            if (depth < (int)sizeof extern_c && extern_c[depth]) in_c--, extern_c[depth] = 0;
            decl_c = templ = 0;
        } else if (t.kind == ';') {
            decl_c = templ = 0;
        } else if (t.kind == 's' && is(prev, "extern") && t.len == 3 && t.p[1] == 'C') {
            decl_c = 1;
        } else if (is(t, "template")) {
            templ = 1;
        } else if (is(t, "__global__")) {
            decl d;
            if (read_decl(&lx, &d)) continue;
            int plain = !strcmp(d.name, name);
            char prefix[300];
            snprintf(prefix, sizeof prefix, "_Z%zu%s", strlen(d.name), d.name);
            int mangled_here = !in_c && !decl_c && !strncmp(name, prefix, strlen(prefix));
            if (!plain && !mangled_here) continue;
            if (templ) return AOE_CU_SIG_TEMPLATE;
            char lowered[1024];
            int n = read_params(&d, out, max, mangled_here ? lowered : NULL, sizeof lowered);
            if (n >= 0 && (plain || !strcmp(lowered, name))) return n;
            if (n < 0) result = n; /* maybe an overload that reads: go on */
        }
    }
    return result;
}

const char *aoe_cu_signature_error(int code)
{
    switch (code) {
    case AOE_CU_SIG_NOT_FOUND:
        return "no __global__ function of that name in the source";
    case AOE_CU_SIG_TEMPLATE:
        return "a template kernel";
    case AOE_CU_SIG_UNREAD:
        return "a parameter type the shim does not read";
    case AOE_CU_SIG_TOO_MANY:
        return "too many parameters";
    default:
        return "parameters read";
    }
}
