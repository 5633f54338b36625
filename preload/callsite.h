/* The call site of a launch: library and function of the code that called
 * the runtime's launch function. Found with libunwind at the first sight of
 * an operator only, never per launch. */
#ifndef AOE_CALLSITE_H
#define AOE_CALLSITE_H

#include <stddef.h>

/* Writes "libfoo.so:function" (or "prog:0xoffset" without a symbol). */
void aoe_callsite_describe(char *out, size_t outlen);

#endif
