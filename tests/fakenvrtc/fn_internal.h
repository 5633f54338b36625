/* Shared between the fake NVRTC compiler's files (fn_*.c): the log
 * message, the defines, the option parser, the tokenizer and the kernel
 * scan. fn_compile.h is the compiler's interface. */
#ifndef FN_INTERNAL_H
#define FN_INTERNAL_H

#include "fn_compile.h"

#include <stddef.h>

/* Formats the log (when given) and returns rc. */
int fn_log(char *log, size_t loglen, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ---- defines and options (fn_options.c) ---- */
int fn_is_ident(const char *s, size_t n);
fn_define *fn_find_define(fn_output *out, const char *name, size_t n);
/* NAME (name_len bytes of def) = value; a later definition of a name replaces the earlier. */
int fn_add_define(fn_output *out, const char *def, size_t name_len, const char *value, char *log,
                  size_t loglen);
/* -D, --gpu-architecture and the accepted rest into out; FN_SUCCESS or an error with its log. */
int fn_parse_options(fn_output *out, int n, const char *const *options, char *log, size_t loglen);

/* ---- tokens (fn_tokens.c) ---- */
typedef struct {
    const char *p;
    int kind; /* 'i' identifier, 's' string, 'c' character, '0' number, or the punctuation char */
    size_t len;
} fn_token;

const char *fn_skip_blank(const char *p);
/* Length of the identifier at p (0: none). */
size_t fn_ident_len(const char *p);
/* The next token from *pp (comments, preprocessor lines and blanks skipped); kind 0 at the end. */
fn_token fn_next_token(const char **pp);
int fn_tok_is(fn_token t, const char *s);

/* ---- kernels (fn_kernels.c) ---- */
/* Appends text's __global__ functions (file names it in the log) to out. */
int fn_scan_kernels(const char *file, const char *text, fn_output *out, char *log, size_t loglen);

#endif
