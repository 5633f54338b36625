/* Inside the tuner's spool loop (spool.c, spool_tidy.c): small private files
 * written beside the jobs, and the housekeeping done at start. */
#ifndef AOE_SPOOL_FILES_H
#define AOE_SPOOL_FILES_H

#include "core/config.h"

#include <stddef.h>
#include <time.h>

/* Writes <key>.failed (key, kernel, reason, time: no payload) and the
 * one-line <key>.failed.txt. */
void aoe_spool_write_failed(int dfd, const char *key, const char *kernel, const char *why,
                            unsigned attempts, time_t when);

/* At start, with the lock held: removes the temporary files of dead writers,
 * expired .failed entries and orphan .retry files, strips .failed files that
 * still hold a payload, and removes the newest jobs beyond the spool's limits.
 * Only files of the user, never through a link. One line on stderr for what
 * was done. */
void aoe_spool_tidy(int dfd, const char *dir, const aoe_config *cfg);

#endif
