/* The run protocol's program cache: each distinct option string is built
 * once through the executor, several at once ahead of time. A failed build is
 * remembered (status and detail) and reported whenever it is asked for. */
#ifndef AOE_RUN_PROGRAMS_H
#define AOE_RUN_PROGRAMS_H

#include "tuner/exec.h"

#include <stddef.h>

typedef struct aoe_programs aoe_programs;

aoe_programs *aoe_programs_new(const aoe_exec_ops *ops, aoe_exec *ex);

/* The program built with `options` (built now if new; thread-safe). */
aoe_exec_status aoe_programs_get(aoe_programs *c, const char *options, aoe_exec_program **out,
                                 char *detail, size_t len);

/* Builds every option string not built yet, up to `parallel` threads. */
void aoe_programs_build(aoe_programs *c, const char *const *options, size_t n, int parallel);

size_t aoe_programs_count(aoe_programs *c);

/* Releases every program (through the executor) and the cache. */
void aoe_programs_free(aoe_programs *c);

#endif
