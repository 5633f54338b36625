/* The fake NVRTC compiler's kernel scan (fn_internal.h): the __global__
 * functions of a text and their lowered names (the name in extern "C", else
 * the Itanium mangling of simple parameter lists). */
#include "fn_internal.h"

#include <stdio.h>
#include <string.h>

/* The Itanium code of a builtin type spelled by words (a bit set), or NULL. */
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
static const char *builtin_code(int w)
{
    static const struct {
        int words;
        const char *code;
    } table[] = {{W_VOID, "v"},
                 {W_BOOL, "b"},
                 {W_CHAR, "c"},
                 {W_SIGNED | W_CHAR, "a"},
                 {W_UNSIGNED | W_CHAR, "h"},
                 {W_SHORT, "s"},
                 {W_UNSIGNED | W_SHORT, "t"},
                 {W_INT, "i"},
                 {W_SIGNED, "i"},
                 {W_UNSIGNED, "j"},
                 {W_UNSIGNED | W_INT, "j"},
                 {W_LONG, "l"},
                 {W_UNSIGNED | W_LONG, "m"},
                 {W_LONGLONG, "x"},
                 {W_UNSIGNED | W_LONGLONG, "y"},
                 {W_FLOAT, "f"},
                 {W_DOUBLE, "d"},
                 {W_LONG | W_DOUBLE, "e"}};
    w &= ~(W_SIGNED * !!(w & ~(W_SIGNED | W_CHAR))); /* "signed int" = "int" */
    if ((w & W_INT) && (w & (W_SHORT | W_LONG | W_LONGLONG))) w &= ~W_INT; /* "long int" = "long" */
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].words == w) return table[i].code;
    return NULL;
}

/* Appends the code of one parameter (tokens [b, e)) to m; -1 when not understood. */
static int mangle_param(const char *b, const char *e, char *m, size_t mlen)
{
    static const struct {
        const char *word;
        int bit;
    } words[] = {{"unsigned", W_UNSIGNED}, {"signed", W_SIGNED}, {"char", W_CHAR},
                 {"short", W_SHORT},       {"int", W_INT},       {"long", W_LONG},
                 {"float", W_FLOAT},       {"double", W_DOUBLE}, {"bool", W_BOOL},
                 {"void", W_VOID}};
    int w = 0, ptrs = 0, konst = 0;
    char named[FAKE_IMAGE_MAX_NAME + 8] = "";
    const char *q = b;
    for (fn_token t = fn_next_token(&q); t.kind && t.p < e; t = fn_next_token(&q)) {
        if (t.kind == '*')
            ptrs++;
        else if (fn_tok_is(t, "const") && !ptrs)
            konst = 1;
        else if (t.kind == 'i') {
            int bit = 0;
            for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
                if (fn_tok_is(t, words[i].word)) bit = words[i].bit;
            if (bit == W_LONG && (w & W_LONG)) bit = W_LONGLONG, w &= ~W_LONG;
            if (bit)
                w |= bit;
            else if (fn_tok_is(t, "size_t"))
                w |= W_UNSIGNED | W_LONG;
            else if (fn_tok_is(t, "const") || fn_tok_is(t, "volatile") ||
                     fn_tok_is(t, "__restrict__") || fn_tok_is(t, "__restrict") ||
                     fn_tok_is(t, "restrict"))
                ;
            else if (!w && !named[0])
                snprintf(named, sizeof named, "%zu%.*s", t.len, (int)t.len, t.p);
            /* else: the parameter's name */
        } else if (t.kind != '&') {
            return -1; /* arrays, templates, function pointers: not modelled */
        }
    }
    const char *base = named[0] ? named : builtin_code(w);
    if (!base) return -1;
    size_t used = strlen(m);
    int n = snprintf(m + used, mlen - used, "%.*s%s%s", ptrs, "PPPPPPPP", ptrs && konst ? "K" : "",
                     base);
    return n < 0 || (size_t)n >= mlen - used || ptrs > 8 ? -1 : 0;
}

/* _Z<len><name><parameter codes>: the Itanium mangling for simple
 * parameter lists; other lists get the stand-in "v". */
static void mangle(fn_kernel *k, const char *params, const char *params_end)
{
    char m[FAKE_IMAGE_MAX_NAME + 1];
    int n = snprintf(m, sizeof m, "_Z%zu%s", strlen(k->name), k->name);
    int ok = n > 0 && (size_t)n < sizeof m;
    const char *b = params;
    int depth = 0, any = 0;
    for (const char *q = params; ok && q <= params_end; q++) {
        if (q < params_end && (*q == '(' || *q == '<' || *q == '['))
            depth++;
        else if (q < params_end && (*q == ')' || *q == '>' || *q == ']'))
            depth--;
        else if (q == params_end || (*q == ',' && !depth)) {
            const char *s = b;
            fn_token t = fn_next_token(&s);
            if (t.kind && t.p < q && !(fn_tok_is(t, "void") && fn_next_token(&s).p >= q)) {
                ok = mangle_param(b, q, m, sizeof m) == 0;
                any = 1;
            }
            b = q + 1;
        }
    }
    if (ok && !any) {
        size_t used = strlen(m);
        ok = used + 1 < sizeof m;
        if (ok) memcpy(m + used, "v", 2);
    }
    if (!ok) { /* a name too long for m is cut; the result is kept so that gcc at -O0
                * does not report the cut as an error (-Wformat-truncation) */
        int w = snprintf(m, sizeof m, "_Z%zu%sv", strlen(k->name), k->name);
        (void)w;
    }
    snprintf(k->lowered, sizeof k->lowered, "%s", m);
}

static const char *const skipped_attributes[] = {
    "__launch_bounds__", "__cluster_dims__", "__maxnreg__", "__attribute__",
    "__declspec",        "alignas",          NULL};

int fn_scan_kernels(const char *file, const char *text, fn_output *out, char *log, size_t loglen)
{
    char extern_c_block[256] = {0}; /* per brace depth: 1 when an extern "C" { } opened it */
    int depth = 0, decl_extern_c = 0, in_c = 0;
    fn_token prev = {0}, prev2 = {0};
    const char *p = text;
    for (fn_token t = fn_next_token(&p); t.kind; prev2 = prev, prev = t, t = fn_next_token(&p)) {
        if (t.kind == '{') {
            int c =
                fn_tok_is(prev2, "extern") && prev.kind == 's' && prev.len == 3 && prev.p[1] == 'C';
            if (depth < (int)sizeof extern_c_block) extern_c_block[depth] = (char)c;
            depth++;
            in_c += c;
            decl_extern_c = 0;
        } else if (t.kind == '}') {
            if (depth > 0) depth--;
            if (depth < (int)sizeof extern_c_block && extern_c_block[depth])
                in_c--, extern_c_block[depth] = 0;
            decl_extern_c = 0;
        } else if (t.kind == ';') {
            decl_extern_c = 0;
        } else if (t.kind == 's' && fn_tok_is(prev, "extern") && t.len == 3 && t.p[1] == 'C') {
            decl_extern_c = 1;
        } else if (fn_tok_is(t, "__global__")) {
            /* the name: the identifier before the first '(' that opens no attribute */
            const char *q = p;
            fn_token u, last = {0};
            for (u = fn_next_token(&q); u.kind && u.kind != ';' && u.kind != '{';
                 u = fn_next_token(&q)) {
                if (u.kind != '(') {
                    last = u;
                    continue;
                }
                int attr = 0;
                for (const char *const *a = skipped_attributes; *a; a++)
                    attr |= fn_tok_is(last, *a);
                const char *open = u.p + 1;
                int d = 1;
                while (d && (u = fn_next_token(&q)).kind) d += (u.kind == '(') - (u.kind == ')');
                if (attr) continue;
                if (last.kind != 'i' || last.len > FAKE_IMAGE_MAX_NAME) break;
                if (out->n_kernels == FAKE_IMAGE_MAX_KERNELS)
                    return fn_log(log, loglen, FN_COMPILATION,
                                  "fake nvrtc: error: %s: more than %d kernels\n", file,
                                  FAKE_IMAGE_MAX_KERNELS);
                fn_kernel *k = &out->kernels[out->n_kernels++];
                snprintf(k->name, sizeof k->name, "%.*s", (int)last.len, last.p);
                if (in_c || decl_extern_c)
                    memcpy(k->lowered, k->name, sizeof k->lowered);
                else
                    mangle(k, open, u.p);
                break;
            }
        }
    }
    return FN_SUCCESS;
}
