/* The fake NVRTC's compiler: see fn_compile.h and README.md. Text in, text
 * out; nothing here knows nvrtc.h. */
#include "fn_compile.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const int fn_supported_archs[] = {75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121};
const int fn_n_supported_archs = (int)(sizeof fn_supported_archs / sizeof fn_supported_archs[0]);

uint64_t fn_fnv1a(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

int fn_arch_supported(const char *arch, int *real)
{
    const char *p;
    if (!strncmp(arch, "sm_", 3))
        p = arch + 3;
    else if (!strncmp(arch, "compute_", 8))
        p = arch + 8;
    else
        return 0;
    if (!isdigit((unsigned char)*p)) return 0;
    char *end;
    long v = strtol(p, &end, 10);
    if (*end && !((*end == 'a' || *end == 'f') && !end[1])) return 0;
    for (int i = 0; i < fn_n_supported_archs; i++)
        if (fn_supported_archs[i] == v) {
            if (real) *real = arch[0] == 's';
            return 1;
        }
    return 0;
}

static int logf_(char *log, size_t loglen, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int logf_(char *log, size_t loglen, int rc, const char *fmt, ...)
{
    if (log && loglen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(log, loglen, fmt, ap);
        va_end(ap);
    }
    return rc;
}

static int is_ident(const char *s, size_t n)
{
    if (!n || n > FAKE_IMAGE_MAX_NAME || !(isalpha((unsigned char)s[0]) || s[0] == '_')) return 0;
    for (size_t i = 1; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_')) return 0;
    return 1;
}

static fn_define *find_define(fn_output *out, const char *name, size_t n)
{
    for (int i = 0; i < out->n_defines; i++)
        if (strlen(out->defines[i].name) == n && !strncmp(out->defines[i].name, name, n))
            return &out->defines[i];
    return NULL;
}

/* NAME or NAME=VALUE; a later definition of a name replaces the earlier. */
static int add_define(fn_output *out, const char *def, size_t name_len, const char *value,
                      char *log, size_t loglen)
{
    if (!is_ident(def, name_len))
        return logf_(log, loglen, FN_INVALID_OPTION, "nvrtc: error: invalid macro name in -D%s\n",
                     def);
    if (strlen(value) >= sizeof out->defines[0].value || strchr(value, '\n'))
        return logf_(log, loglen, FN_INVALID_OPTION,
                     "fake nvrtc: error: -D%.*s: value too long or multi-line\n", (int)name_len,
                     def);
    fn_define *d = find_define(out, def, name_len);
    if (!d) {
        if (out->n_defines == FAKE_IMAGE_MAX_DEFINES)
            return logf_(log, loglen, FN_INVALID_OPTION,
                         "fake nvrtc: error: more than %d macro definitions\n",
                         FAKE_IMAGE_MAX_DEFINES);
        d = &out->defines[out->n_defines++];
        memcpy(d->name, def, name_len);
        d->name[name_len] = '\0';
    }
    snprintf(d->value, sizeof d->value, "%s", value);
    return FN_SUCCESS;
}

static int option_define(fn_output *out, const char *def, char *log, size_t loglen)
{
    while (*def == ' ') def++;
    const char *eq = strchr(def, '=');
    return add_define(out, def, eq ? (size_t)(eq - def) : strlen(def), eq ? eq + 1 : "1", log,
                      loglen);
}

static int option_arch(fn_output *out, const char *arch, char *log, size_t loglen)
{
    if (!fn_arch_supported(arch, NULL) || strlen(arch) >= sizeof out->arch)
        return logf_(log, loglen, FN_INVALID_OPTION,
                     "nvrtc: error: invalid value for --gpu-architecture (-arch)\n");
    snprintf(out->arch, sizeof out->arch, "%s", arch);
    return FN_SUCCESS;
}

/* The value of an option spelled OPT=V, OPT V (one string) or OPT then V (the
 * next string); NULL when opt is not this option. */
static const char *option_value(const char *opt, const char *name, int attached, int i, int n,
                                const char *const *options, int *consumed)
{
    size_t len = strlen(name);
    if (strncmp(opt, name, len)) return NULL;
    const char *rest = opt + len;
    if (*rest == '=' || *rest == ' ') return rest + 1;
    if (*rest && attached) return rest; /* -DNAME, -I/dir */
    if (*rest) return NULL;             /* a longer option sharing the prefix */
    if (i + 1 < n && options[i + 1]) {
        *consumed = 1;
        return options[i + 1];
    }
    return "";
}

static int parse_options(fn_output *out, int n, const char *const *options, char *log,
                         size_t loglen)
{
    for (int i = 0; i < n; i++) {
        const char *o = options[i], *v;
        int consumed = 0, rc = FN_SUCCESS;
        if ((v = option_value(o, "--define-macro", 0, i, n, options, &consumed)) ||
            (v = option_value(o, "-D", 1, i, n, options, &consumed)))
            rc = option_define(out, v, log, loglen);
        else if ((v = option_value(o, "--gpu-architecture", 0, i, n, options, &consumed)) ||
                 (v = option_value(o, "-arch", 0, i, n, options, &consumed)))
            rc = option_arch(out, v, log, loglen);
        else if ((v = option_value(o, "--include-path", 0, i, n, options, &consumed)) ||
                 (v = option_value(o, "-I", 1, i, n, options, &consumed)) ||
                 (v = option_value(o, "--pre-include", 0, i, n, options, &consumed)) ||
                 (v = option_value(o, "-include", 0, i, n, options, &consumed)))
            (void)v; /* accepted; the fake reads no files */
        /* -std=..., --std=..., -default-device, -ftz=true, ...: accepted. */
        if (rc) return rc;
        i += consumed;
    }
    return FN_SUCCESS;
}

/* ---- the preprocessor's few lines ---- */

static const char *skip_blank(const char *p)
{
    while (*p == ' ' || *p == '\t') p++;
    return p;
}

static size_t ident_len(const char *p)
{
    size_t n = 0;
    while (isalnum((unsigned char)p[n]) || p[n] == '_') n++;
    return isdigit((unsigned char)p[0]) ? 0 : n;
}

/* The directive word of a line "# word ..." (pointer past it), or NULL. */
static const char *directive(const char *line, const char *word)
{
    const char *p = skip_blank(line);
    if (*p != '#') return NULL;
    p = skip_blank(p + 1);
    size_t n = strlen(word);
    if (strncmp(p, word, n) || ident_len(p) != n) return NULL;
    return p + n;
}

static size_t line_len(const char *p)
{
    const char *nl = strchr(p, '\n');
    return nl ? (size_t)(nl - p) : strlen(p);
}

/* An integer literal (optional sign, digits, optional u/l suffixes) filling
 * the rest of the line; its length or 0. */
static size_t int_literal(const char *p, size_t avail)
{
    size_t i = 0;
    if (i < avail && (p[i] == '-' || p[i] == '+')) i++;
    size_t d = i;
    while (i < avail && isdigit((unsigned char)p[i])) i++;
    if (i == d) return 0;
    while (i < avail && strchr("uUlL", p[i])) i++;
    size_t end = i;
    while (i < avail && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r')) i++;
    return i == avail ? end : 0;
}

typedef struct {
    const char *name; /* for the log */
    const char *text;
} fn_file;

/* #error, the #ifndef defaults, and (main source only) the includes of the
 * program's headers, appended to files[]. */
static int scan_lines(const fn_file *f, int main_file, const fn_headers *h, fn_file *files,
                      int *n_files, fn_output *out, char *log, size_t loglen)
{
    int lineno = 1;
    for (const char *line = f->text; *line; lineno++) {
        size_t len = line_len(line);
        const char *next = line[len] ? line + len + 1 : line + len;
        const char *p;
        if ((p = directive(line, "error"))) {
            p = skip_blank(p);
            int msg_len = (int)(len - (size_t)(p - line));
            const char *shown = skip_blank(line);
            return logf_(log, loglen, FN_COMPILATION,
                         "%s(%d): catastrophic error: #error directive: %.*s\n  %.*s\n   ^\n\n"
                         "1 catastrophic error detected in the compilation of \"%s\".\n"
                         "Compilation terminated.\n",
                         f->name, lineno, msg_len, p, (int)(len - (size_t)(shown - line)), shown,
                         f->name);
        }
        if ((p = directive(line, "ifndef")) && *next) {
            p = skip_blank(p);
            size_t n = ident_len(p);
            const char *d = directive(next, "define");
            if (n && d && (d = skip_blank(d)) && !strncmp(d, p, n) && ident_len(d) == n) {
                const char *v = skip_blank(d + n);
                size_t avail = line_len(v);
                size_t vl = int_literal(v, avail);
                fn_define *have = find_define(out, p, n);
                /* a -D value wins; a default seen twice keeps the first */
                if (vl && !have) {
                    char value[64];
                    snprintf(value, sizeof value, "%.*s", (int)(vl < 63 ? vl : 63), v);
                    int rc = add_define(out, p, n, value, log, loglen);
                    if (rc) return rc;
                }
            }
        }
        if (main_file && (p = directive(line, "include"))) {
            p = skip_blank(p);
            char close = *p == '"' ? '"' : *p == '<' ? '>' : 0;
            const char *end = close ? memchr(p + 1, close, len - (size_t)(p - line) - 1) : NULL;
            for (int i = 0; end && i < h->n; i++) {
                if (!h->names[i] || !h->contents[i]) continue;
                size_t nl = (size_t)(end - p - 1);
                if (strlen(h->names[i]) != nl || strncmp(h->names[i], p + 1, nl)) continue;
                if (*n_files < 1 + FAKE_IMAGE_MAX_KERNELS)
                    files[(*n_files)++] = (fn_file){h->names[i], h->contents[i]};
                int rc = scan_lines(&files[*n_files - 1], 0, h, files, n_files, out, log, loglen);
                if (rc) return rc;
                break;
            }
        }
        line = next;
    }
    return FN_SUCCESS;
}

/* ---- the __global__ functions ---- */

typedef struct {
    const char *p;
    int kind; /* 'i' identifier, 's' string literal, 'c' character literal, or the punctuation char
               */
    size_t len;
} fn_token;

/* The next token from *pp (comments, preprocessor lines and blanks skipped);
 * kind 0 at the end. */
static fn_token next_token(const char **pp)
{
    const char *p = *pp;
    for (;;) {
        while (isspace((unsigned char)*p)) p++;
        if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n') p++;
        } else if (p[0] == '/' && p[1] == '*') {
            const char *e = strstr(p + 2, "*/");
            p = e ? e + 2 : p + strlen(p);
        } else if (*p == '#') { /* a directive (the scan sees only whole lines' starts here) */
            while (*p && *p != '\n') p += (p[0] == '\\' && p[1] == '\n') ? 2 : 1;
        } else {
            break;
        }
    }
    fn_token t = {p, 0, 0};
    if (!*p) {
        *pp = p;
        return t;
    }
    if (isalpha((unsigned char)*p) || *p == '_') {
        t.kind = 'i';
        t.len = ident_len(p);
    } else if (isdigit((unsigned char)*p)) {
        t.kind = '0';
        while (isalnum((unsigned char)p[t.len]) || p[t.len] == '.') t.len++;
    } else if (*p == '"' || *p == '\'') {
        t.kind = *p == '"' ? 's' : 'c';
        size_t i = 1;
        while (p[i] && p[i] != *p) i += (p[i] == '\\' && p[i + 1]) ? 2 : 1;
        t.len = p[i] ? i + 1 : i;
    } else {
        t.kind = (unsigned char)*p;
        t.len = 1;
    }
    *pp = p + t.len;
    return t;
}

static int tok_is(fn_token t, const char *s)
{
    return t.kind == 'i' && strlen(s) == t.len && !strncmp(t.p, s, t.len);
}

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
    for (fn_token t = next_token(&q); t.kind && t.p < e; t = next_token(&q)) {
        if (t.kind == '*')
            ptrs++;
        else if (tok_is(t, "const") && !ptrs)
            konst = 1;
        else if (t.kind == 'i') {
            int bit = 0;
            for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
                if (tok_is(t, words[i].word)) bit = words[i].bit;
            if (bit == W_LONG && (w & W_LONG)) bit = W_LONGLONG, w &= ~W_LONG;
            if (bit)
                w |= bit;
            else if (tok_is(t, "size_t"))
                w |= W_UNSIGNED | W_LONG;
            else if (tok_is(t, "const") || tok_is(t, "volatile") || tok_is(t, "__restrict__") ||
                     tok_is(t, "__restrict") || tok_is(t, "restrict"))
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
            fn_token t = next_token(&s);
            if (t.kind && t.p < q && !(tok_is(t, "void") && next_token(&s).p >= q)) {
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
    if (!ok) snprintf(m, sizeof m, "_Z%zu%sv", strlen(k->name), k->name);
    snprintf(k->lowered, sizeof k->lowered, "%s", m);
}

static const char *const skipped_attributes[] = {
    "__launch_bounds__", "__cluster_dims__", "__maxnreg__", "__attribute__",
    "__declspec",        "alignas",          NULL};

static int scan_kernels(const fn_file *f, fn_output *out, char *log, size_t loglen)
{
    char extern_c_block[256] = {0}; /* per brace depth: 1 when an extern "C" { } opened it */
    int depth = 0, decl_extern_c = 0, in_c = 0;
    fn_token prev = {0}, prev2 = {0};
    const char *p = f->text;
    for (fn_token t = next_token(&p); t.kind; prev2 = prev, prev = t, t = next_token(&p)) {
        if (t.kind == '{') {
            int c =
                tok_is(prev2, "extern") && prev.kind == 's' && prev.len == 3 && prev.p[1] == 'C';
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
        } else if (t.kind == 's' && tok_is(prev, "extern") && t.len == 3 && t.p[1] == 'C') {
            decl_extern_c = 1;
        } else if (tok_is(t, "__global__")) {
            /* the name: the identifier before the first '(' that opens no attribute */
            const char *q = p;
            fn_token u, last = {0};
            for (u = next_token(&q); u.kind && u.kind != ';' && u.kind != '{'; u = next_token(&q)) {
                if (u.kind != '(') {
                    last = u;
                    continue;
                }
                int attr = 0;
                for (const char *const *a = skipped_attributes; *a; a++) attr |= tok_is(last, *a);
                const char *open = u.p + 1;
                int d = 1;
                while (d && (u = next_token(&q)).kind) d += (u.kind == '(') - (u.kind == ')');
                if (attr) continue;
                if (last.kind != 'i' || last.len > FAKE_IMAGE_MAX_NAME) break;
                if (out->n_kernels == FAKE_IMAGE_MAX_KERNELS)
                    return logf_(log, loglen, FN_COMPILATION,
                                 "fake nvrtc: error: %s: more than %d kernels\n", f->name,
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

int fn_compile(const char *name, const char *source, const fn_headers *headers, int n_options,
               const char *const *options, fn_output *out, char *log, size_t loglen)
{
    static const fn_headers none = {0, NULL, NULL};
    memset(out, 0, sizeof *out);
    if (log && loglen) log[0] = '\0';
    snprintf(out->arch, sizeof out->arch, "%s", FN_DEFAULT_ARCH);
    int rc = parse_options(out, n_options, options, log, loglen);
    if (rc) return rc;
    fn_file files[1 + FAKE_IMAGE_MAX_KERNELS];
    int n_files = 1;
    files[0] = (fn_file){name, source};
    rc = scan_lines(&files[0], 1, headers ? headers : &none, files, &n_files, out, log, loglen);
    /* the headers' kernels first (in include order), then the source's */
    for (int i = 1; !rc && i <= n_files; i++)
        rc = scan_kernels(&files[i % n_files], out, log, loglen);
    if (rc) return rc;
    out->hash = fn_fnv1a(source, strlen(source));
    return FN_SUCCESS;
}

char *fn_image(const fn_output *out, int ptx)
{
    size_t cap = 64 + (size_t)out->n_defines * (FAKE_IMAGE_MAX_NAME + 256 + 10) +
                 (size_t)out->n_kernels * (FAKE_IMAGE_MAX_NAME + 10);
    char *s = malloc(cap);
    if (!s) return NULL;
    size_t n = (size_t)snprintf(s, cap, "%sarch %s\n",
                                ptx ? FAKE_IMAGE_PTX_MAGIC : FAKE_IMAGE_MAGIC, out->arch);
    for (int i = 0; i < out->n_defines; i++)
        n += (size_t)snprintf(s + n, cap - n, "define %s %s\n", out->defines[i].name,
                              out->defines[i].value);
    for (int i = 0; i < out->n_kernels; i++)
        n += (size_t)snprintf(s + n, cap - n, "kernel %s\n", out->kernels[i].lowered);
    snprintf(s + n, cap - n, "hash %016llx\n", (unsigned long long)out->hash);
    return s;
}
