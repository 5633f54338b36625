/* A run's outputs judged against the reference as a status code: verify.h
 * gives the reason, this gives its category as AOE_EXEC_WRONG_RESULT,
 * AOE_EXEC_UNWRITTEN_OUTPUT or AOE_EXEC_OOB_WRITE (guard bytes or bytes the
 * default leaves alone written). */
#ifndef AOE_VERIFY_STATUS_H
#define AOE_VERIFY_STATUS_H

#include "tuner/run_protocol.h"
#include "tuner/verify.h"

#include <stddef.h>

/* AOE_EXEC_OK, or the failure's status with verify.h's reason
 * ("<category>: args[i]: ...") in reason. */
aoe_exec_status aoe_verify_run(const aoe_reference *ref, const aoe_outputs *o,
                               const aoe_tolerance *tol, char *reason, size_t len);

#endif
