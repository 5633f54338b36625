/* The fake NVRTC's compiler: see fn_compile.h and README.md. Text in, text
 * out; nothing here knows nvrtc.h. */
#include "fn_internal.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int fn_log(char *log, size_t loglen, int rc, const char *fmt, ...)
{
    if (log && loglen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(log, loglen, fmt, ap);
        va_end(ap);
    }
    return rc;
}

/* ---- the preprocessor's few lines ---- */

/* The directive word of a line "# word ..." (pointer past it), or NULL. */
static const char *directive(const char *line, const char *word)
{
    const char *p = fn_skip_blank(line);
    if (*p != '#') return NULL;
    p = fn_skip_blank(p + 1);
    size_t n = strlen(word);
    if (strncmp(p, word, n) || fn_ident_len(p) != n) return NULL;
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

/* The conditionals the fake evaluates, for #error only: #ifdef, #ifndef,
 * #if NAME == INT / != INT (an undefined NAME is 0), #else, #endif, against
 * the -D values and the defaults seen so far. Any other #if or #elif is
 * unknown and counts as true, so an #error under it still fails. */
enum { COND_FALSE = 0, COND_TRUE = 1, COND_UNKNOWN = 2, COND_MAX = 32 };
typedef struct {
    int depth;
    unsigned char v[COND_MAX];
} fn_cond;

static int cond_live(const fn_cond *c)
{
    for (int i = 0; i < c->depth && i < COND_MAX; i++)
        if (c->v[i] == COND_FALSE) return 0;
    return 1;
}

static int cond_defined(const char *p, fn_output *out)
{
    p = fn_skip_blank(p);
    size_t n = fn_ident_len(p);
    return !n ? COND_UNKNOWN : fn_find_define(out, p, n) ? COND_TRUE : COND_FALSE;
}

/* NAME == INT or NAME != INT filling the rest of the line (len bytes). */
static int cond_compare(const char *p, size_t len, fn_output *out)
{
    char expr[128], name[FAKE_IMAGE_MAX_NAME + 1], op[3], rest[2];
    long long want;
    if (len >= sizeof expr) return COND_UNKNOWN;
    memcpy(expr, p, len);
    expr[len] = '\0';
    if (sscanf(expr, " %255[A-Za-z0-9_] %2[=!] %lld %1s", name, op, &want, rest) != 3 ||
        (strcmp(op, "==") && strcmp(op, "!=")))
        return COND_UNKNOWN;
    fn_define *d = fn_find_define(out, name, strlen(name));
    char *end = NULL;
    long long have = d ? strtoll(d->value, &end, 0) : 0;
    if (d && (end == d->value || *fn_skip_blank(end))) return COND_UNKNOWN;
    return (have == want) == (op[0] == '=') ? COND_TRUE : COND_FALSE;
}

static void cond_line(fn_cond *c, const char *line, size_t len, fn_output *out)
{
    const char *p;
    int v;
    unsigned char *top = c->depth && c->depth <= COND_MAX ? &c->v[c->depth - 1] : NULL;
    if ((p = directive(line, "ifdef"))) {
        v = cond_defined(p, out);
    } else if ((p = directive(line, "ifndef"))) {
        v = cond_defined(p, out);
        v = v == COND_UNKNOWN ? v : !v;
    } else if ((p = directive(line, "if"))) {
        v = cond_compare(p, len - (size_t)(p - line), out);
    } else {
        if (directive(line, "elif") && top) *top = COND_UNKNOWN;
        if (directive(line, "else") && top && *top != COND_UNKNOWN) *top = !*top;
        if (directive(line, "endif") && c->depth) c->depth--;
        return;
    }
    if (c->depth < COND_MAX) c->v[c->depth] = (unsigned char)v;
    c->depth++;
}

/* #error, the #ifndef defaults, and (main source only) the includes of the
 * program's headers, appended to files[]. */
static int scan_lines(const fn_file *f, int main_file, const fn_headers *h, fn_file *files,
                      int *n_files, fn_output *out, char *log, size_t loglen)
{
    int lineno = 1;
    fn_cond cond = {0, {0}};
    for (const char *line = f->text; *line; lineno++) {
        size_t len = line_len(line);
        const char *next = line[len] ? line + len + 1 : line + len;
        const char *p;
        cond_line(&cond, line, len, out);
        if ((p = directive(line, "error")) && cond_live(&cond)) {
            p = fn_skip_blank(p);
            int msg_len = (int)(len - (size_t)(p - line));
            const char *shown = fn_skip_blank(line);
            return fn_log(log, loglen, FN_COMPILATION,
                          "%s(%d): catastrophic error: #error directive: %.*s\n  %.*s\n   ^\n\n"
                          "1 catastrophic error detected in the compilation of \"%s\".\n"
                          "Compilation terminated.\n",
                          f->name, lineno, msg_len, p, (int)(len - (size_t)(shown - line)), shown,
                          f->name);
        }
        if ((p = directive(line, "ifndef")) && *next) {
            p = fn_skip_blank(p);
            size_t n = fn_ident_len(p);
            const char *d = directive(next, "define");
            if (n && d && (d = fn_skip_blank(d)) && !strncmp(d, p, n) && fn_ident_len(d) == n) {
                const char *v = fn_skip_blank(d + n);
                size_t avail = line_len(v);
                size_t vl = int_literal(v, avail);
                fn_define *have = fn_find_define(out, p, n);
                /* a -D value wins; a default seen twice keeps the first */
                if (vl && !have) {
                    char value[64];
                    snprintf(value, sizeof value, "%.*s", (int)(vl < 63 ? vl : 63), v);
                    int rc = fn_add_define(out, p, n, value, log, loglen);
                    if (rc) return rc;
                }
            }
        }
        if (main_file && (p = directive(line, "include"))) {
            p = fn_skip_blank(p);
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

int fn_compile(const char *name, const char *source, const fn_headers *headers, int n_options,
               const char *const *options, fn_output *out, char *log, size_t loglen)
{
    static const fn_headers none = {0, NULL, NULL};
    memset(out, 0, sizeof *out);
    if (log && loglen) log[0] = '\0';
    snprintf(out->arch, sizeof out->arch, "%s", FN_DEFAULT_ARCH);
    int rc = fn_parse_options(out, n_options, options, log, loglen);
    if (rc) return rc;
    fn_file files[1 + FAKE_IMAGE_MAX_KERNELS];
    int n_files = 1;
    files[0] = (fn_file){name, source};
    rc = scan_lines(&files[0], 1, headers ? headers : &none, files, &n_files, out, log, loglen);
    /* the headers' kernels first (in include order), then the source's */
    for (int i = 1; !rc && i <= n_files; i++)
        rc = fn_scan_kernels(files[i % n_files].name, files[i % n_files].text, out, log, loglen);
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
