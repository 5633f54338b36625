/* The fake NVRTC compiler's tokenizer (fn_internal.h): identifiers,
 * literals and punctuation, with comments and directives skipped. */
#include "fn_internal.h"

#include <ctype.h>
#include <string.h>

const char *fn_skip_blank(const char *p)
{
    while (*p == ' ' || *p == '\t') p++;
    return p;
}

size_t fn_ident_len(const char *p)
{
    size_t n = 0;
    while (isalnum((unsigned char)p[n]) || p[n] == '_') n++;
    return isdigit((unsigned char)p[0]) ? 0 : n;
}

/* The next token from *pp (comments, preprocessor lines and blanks skipped);
 * kind 0 at the end. */
fn_token fn_next_token(const char **pp)
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
        t.len = fn_ident_len(p);
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

int fn_tok_is(fn_token t, const char *s)
{
    return t.kind == 'i' && strlen(s) == t.len && !strncmp(t.p, s, t.len);
}
