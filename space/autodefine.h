/* What a program fixes itself, and what it leaves open: macros its build
 * options set with -D, macros its source #defines unconditionally, and the
 * `#ifndef NAME / #define NAME <int>` defaults that opt-in auto-tuning may vary. */
#ifndef AOE_AUTODEFINE_H
#define AOE_AUTODEFINE_H

#include "store/record.h"

#include <stdint.h>

#define AOE_AUTODEFINE_MAX 16

typedef struct {
    char name[AOE_NAME_LEN];
    int64_t def; /* the source's default */
} aoe_autodefine;

/* 1 if the build options set macro `name` (-DNAME, -DNAME=V, -D NAME[=V]);
 * when they give an integer value it is stored in *value (if not NULL). */
int aoe_options_define(const char *options, const char *name, int64_t *value, int *has_value);

/* 1 if the source #defines `name` other than as the default of its own
 * `#ifndef name` guard (an unconditional or otherwise conditional definition);
 * its integer value, when it has one, goes to *value. */
int aoe_source_defines(const char *source, const char *name, int64_t *value, int *has_value);

/* Finds `#ifndef NAME` directly followed by `#define NAME <integer>` in the
 * source, in order of appearance, skipping names the options set. Returns
 * the number found (at most max). */
int aoe_autodefine_scan(const char *source, const char *options, aoe_autodefine *out, int max);

/* 1 when the source has a default the tuner's auto-defines would vary (the
 * scan above, a default with at least two candidates below): the rule the
 * shim applies at a kernel's first sight and space.c when building a space. */
int aoe_autodefine_any(const char *source, const char *options);

/* Candidate values around a default: powers of two times the default from
 * def/4 to def*4 (integers >= 1 only). Returns how many (at most 5). */
int aoe_autodefine_candidates(int64_t def, int64_t out[5]);

#endif
