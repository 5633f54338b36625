/* Verification verdicts as status codes (verify_status.h). verify.h states
 * its reasons' categories; they are the status names, so the category maps
 * back to its code through the one status table. */
#include "tuner/verify_status.h"

aoe_exec_status aoe_verify_run(const aoe_reference *ref, const aoe_outputs *o,
                               const aoe_tolerance *tol, char *reason, size_t len)
{
    if (!aoe_verify_outputs(ref, o->data, o->oob_bytes, o->oob_arg, tol, reason, len))
        return AOE_EXEC_OK;
    char cat[64];
    aoe_reason_category(reason, cat, sizeof cat);
    return aoe_exec_status_from_name(cat, AOE_EXEC_WRONG_RESULT);
}
