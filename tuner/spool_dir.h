/* aoe_spool_mkdir with its reason: the spool directory created 0700, or an
 * existing one checked (not a link, ours, not writable by others; parents
 * only root's or ours). Returns 0, or -1 with errno and one message in err
 * naming the path and why. */
#ifndef AOE_SPOOL_DIR_H
#define AOE_SPOOL_DIR_H

#include <stddef.h>

int aoe_spool_mkdir_err(const char *dir, char *err, size_t errlen);

#endif
