/* The result file aoe_result_opat_<timestamp>_<pid>.json (AOE_WORK_PATH or
 * the working directory), rewritten as results arrive and at exit. Format in
 * the README, section "The shim". */
#ifndef AOE_RESULT_FILE_H
#define AOE_RESULT_FILE_H

/* Marks the start of tuning in this process (first launch); idempotent. */
void aoe_result_start(void);
/* Rewrites the file (no-op before the first launch). */
void aoe_result_write(void);
/* Final rewrite at exit, plus the one-line summary on stderr. */
void aoe_result_write_final(void);
/* Seconds since aoe_result_start (0 before). */
double aoe_result_elapsed(void);
void aoe_result_atfork_child(void);

#endif
