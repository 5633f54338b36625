/* AOE_TUNE_OPS: a file of kernel names or shell patterns (one per line,
 * '#' comments); when set, only matching kernels are captured and tuned. */
#ifndef AOE_TUNE_OPS_H
#define AOE_TUNE_OPS_H

#include <stdbool.h>

/* Loads the file (NULL or "" = tune everything). Returns 0, or -1 after one
 * message when the file cannot be read. */
int aoe_tune_ops_load(const char *path);
/* true when kernel_name may be tuned. Not on the launch path (first sight). */
bool aoe_tune_ops_allows(const char *kernel_name);

#endif
