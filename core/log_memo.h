/* A message logged again only when it changed: a persisting error is
 * reported once, a different later error is reported too (not once per
 * process ever). */
#ifndef AOE_LOG_MEMO_H
#define AOE_LOG_MEMO_H

#include <stdatomic.h>
#include <stdint.h>

typedef _Atomic uint64_t aoe_log_memo; /* zero-initialise; hash of the last line */

void aoe_log_changed(aoe_log_memo *memo, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
