/* A small preprocessor-directive scanner: enough to see which macros a
 * program fixes itself (never to be overridden) and which `#ifndef` defaults
 * it leaves open. Comments and line continuations are removed first, so a
 * commented-out directive does not count. */
#include "space/autodefine.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Copy of src with comments blanked and "\\\n" joined (newlines kept so lines
 * stay lines). */
static char *strip_comments(const char *src)
{
    size_t n = strlen(src);
    char *out = malloc(n + 1);
    if (!out) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (src[i] == '\\' && src[i + 1] == '\n') {
            out[o++] = ' ', out[o++] = ' ', i++;
        } else if (src[i] == '/' && src[i + 1] == '/') {
            while (i < n && src[i] != '\n') i++;
            if (i < n) out[o++] = '\n';
        } else if (src[i] == '/' && src[i + 1] == '*') {
            for (i += 2; i < n && !(src[i] == '*' && src[i + 1] == '/'); i++)
                if (src[i] == '\n') out[o++] = '\n';
            i++; /* the '/' of the closing */
            out[o++] = ' ';
        } else {
            out[o++] = src[i];
        }
    }
    out[o] = '\0';
    return out;
}

static const char *skip_blank(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\v' || *p == '\f') p++;
    return p;
}

/* Copies an identifier at p into out; returns the character after it. */
static const char *read_ident(const char *p, char *out, size_t cap)
{
    size_t n = 0;
    while ((isalnum((unsigned char)*p) || *p == '_')) {
        if (n + 1 < cap) out[n++] = *p;
        p++;
    }
    out[n] = '\0';
    return p;
}

/* Parses "<int>" or "(<int>)" followed only by blanks up to the end of line. */
static int read_int_value(const char *p, int64_t *v)
{
    p = skip_blank(p);
    int paren = *p == '(';
    if (paren) p = skip_blank(p + 1);
    if (!isdigit((unsigned char)*p)) return 0;
    int64_t x = 0;
    for (; isdigit((unsigned char)*p); p++) {
        if (x > (INT64_MAX - 9) / 10) return 0;
        x = x * 10 + (*p - '0');
    }
    while (*p == 'u' || *p == 'U' || *p == 'l' || *p == 'L') p++;
    p = skip_blank(p);
    if (paren) {
        if (*p != ')') return 0;
        p = skip_blank(p + 1);
    }
    if (*p && *p != '\n') return 0;
    *v = x;
    return 1;
}

/* One directive line: kind and (for define/ifndef/ifdef/undef) its name. */
typedef struct {
    char word[16];
    char name[AOE_NAME_LEN * 2];
    const char *rest; /* after the name */
} directive;

static int parse_directive(const char *line, directive *d)
{
    const char *p = skip_blank(line);
    if (*p != '#') return 0;
    p = read_ident(skip_blank(p + 1), d->word, sizeof d->word);
    d->rest = read_ident(skip_blank(p), d->name, sizeof d->name);
    return 1;
}

typedef void (*line_fn)(const directive *d, const char *guard, void *ctx);

/* Walks the directives; guard is the name of the innermost `#ifndef NAME`
 * when the current line sits directly inside one, else "". */
static void walk(const char *text, line_fn fn, void *ctx)
{
    enum { MAX_DEPTH = 64 };
    char guards[MAX_DEPTH][AOE_NAME_LEN * 2];
    int depth = 0;
    for (const char *line = text; line && *line;) {
        directive d;
        if (parse_directive(line, &d)) {
            const char *guard = depth > 0 && depth <= MAX_DEPTH ? guards[depth - 1] : "";
            if (!strcmp(d.word, "if") || !strcmp(d.word, "ifdef") || !strcmp(d.word, "ifndef")) {
                if (depth < MAX_DEPTH)
                    strcpy(guards[depth], !strcmp(d.word, "ifndef") ? d.name : "");
                depth++;
            } else if (!strcmp(d.word, "else") || !strcmp(d.word, "elif")) {
                if (depth > 0 && depth <= MAX_DEPTH) guards[depth - 1][0] = '\0';
            } else if (!strcmp(d.word, "endif")) {
                if (depth > 0) depth--;
            } else {
                fn(&d, guard, ctx);
            }
        }
        line = strchr(line, '\n');
        if (line) line++;
    }
}

typedef struct {
    const char *name;
    int found;
    int64_t *value;
    int *has_value;
} defines_ctx;

static void on_define(const directive *d, const char *guard, void *vctx)
{
    defines_ctx *c = vctx;
    if (strcmp(d->word, "define") || strcmp(d->name, c->name) || !strcmp(guard, c->name)) return;
    c->found = 1;
    int64_t v;
    int ok = read_int_value(d->rest, &v);
    if (c->has_value) *c->has_value = ok;
    if (ok && c->value) *c->value = v;
}

int aoe_source_defines(const char *source, const char *name, int64_t *value, int *has_value)
{
    if (!source) return 0;
    char *text = strip_comments(source);
    if (!text) return 1; /* out of memory: assume fixed, the safe answer */
    defines_ctx c = {name, 0, value, has_value};
    if (has_value) *has_value = 0;
    walk(text, on_define, &c);
    free(text);
    return c.found;
}

int aoe_options_define(const char *options, const char *name, int64_t *value, int *has_value)
{
    size_t nlen = strlen(name);
    int found = 0;
    if (has_value) *has_value = 0;
    for (const char *p = options ? options : ""; *p;) {
        while (isspace((unsigned char)*p)) p++;
        const char *tok = p;
        while (*p && !isspace((unsigned char)*p)) p++;
        if (strncmp(tok, "-D", 2)) continue;
        const char *m = tok + 2;
        if (m == p) { /* "-D NAME": the name is the next token */
            while (isspace((unsigned char)*p)) p++;
            m = p;
            while (*p && !isspace((unsigned char)*p)) p++;
        }
        if (strncmp(m, name, nlen) || (m + nlen != p && m[nlen] != '=')) continue;
        found = 1; /* the last definition wins, as in the compiler */
        int64_t v = 0;
        int ok = m[nlen] == '=' && m + nlen + 1 < p;
        for (const char *q = m + nlen + 1; ok && q < p; q++) {
            if (!isdigit((unsigned char)*q) || v > (INT64_MAX - 9) / 10)
                ok = 0;
            else
                v = v * 10 + (*q - '0');
        }
        if (has_value) *has_value = ok;
        if (ok && value) *value = v;
    }
    return found;
}

int aoe_autodefine_scan(const char *source, const char *options, aoe_autodefine *out, int max)
{
    if (!source) return 0;
    char *text = strip_comments(source);
    if (!text) return 0;
    int n = 0;
    const char *prev = NULL; /* name of an `#ifndef` on the previous non-blank line */
    char prevname[AOE_NAME_LEN * 2] = "";
    for (const char *line = text; *line && n < max;) {
        directive d;
        const char *next = strchr(line, '\n');
        int blank = *skip_blank(line) == '\n' || !*skip_blank(line);
        if (!blank) {
            int is_dir = parse_directive(line, &d);
            if (is_dir && prev && !strcmp(d.word, "define") && !strcmp(d.name, prevname)) {
                int64_t v;
                int dup = 0;
                for (int i = 0; i < n; i++) dup |= !strcmp(out[i].name, d.name);
                if (read_int_value(d.rest, &v) && strlen(d.name) < AOE_NAME_LEN && !dup &&
                    !aoe_options_define(options, d.name, NULL, NULL) &&
                    !aoe_source_defines(source, d.name, NULL, NULL)) {
                    strcpy(out[n].name, d.name);
                    out[n].def = v;
                    n++;
                }
            }
            prev = is_dir && !strcmp(d.word, "ifndef") ? prevname : NULL;
            if (prev) strcpy(prevname, d.name);
        }
        line = next ? next + 1 : line + strlen(line);
    }
    free(text);
    return n;
}

int aoe_autodefine_candidates(int64_t def, int64_t out[5])
{
    int n = 0;
    if (def < 1 || def > (INT64_MAX / 4)) return 0;
    if (def % 4 == 0) out[n++] = def / 4;
    if (def % 2 == 0) out[n++] = def / 2;
    out[n++] = def;
    out[n++] = def * 2;
    out[n++] = def * 4;
    return n;
}

int aoe_autodefine_any(const char *source, const char *options)
{
    aoe_autodefine found[AOE_AUTODEFINE_MAX];
    int n = aoe_autodefine_scan(source, options, found, AOE_AUTODEFINE_MAX);
    int64_t c[5];
    for (int i = 0; i < n; i++)
        if (aoe_autodefine_candidates(found[i].def, c) >= 2) return 1;
    return 0;
}
