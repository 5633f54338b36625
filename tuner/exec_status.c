/* Status codes: names and the transient rule (exec_status.h). */
#include "tuner/exec_status.h"

#include <errno.h>
#include <string.h>

static const struct {
    const char *name;
    int transient;
} table[] = {
#define AOE_EXEC_STATUS_ROW(code, name, transient) {name, transient},
    AOE_EXEC_STATUSES(AOE_EXEC_STATUS_ROW)
#undef AOE_EXEC_STATUS_ROW
};

_Static_assert(sizeof table / sizeof *table == AOE_EXEC_STATUS_COUNT, "one row per status");

const char *aoe_exec_status_name(aoe_exec_status st)
{
    return (unsigned)st < AOE_EXEC_STATUS_COUNT ? table[st].name : "unknown";
}

aoe_exec_status aoe_exec_status_from_name(const char *name, aoe_exec_status otherwise)
{
    for (unsigned i = 0; name && i < AOE_EXEC_STATUS_COUNT; i++)
        if (!strcmp(table[i].name, name)) return (aoe_exec_status)i;
    return otherwise;
}

int aoe_exec_status_transient(aoe_exec_status st)
{
    return (unsigned)st < AOE_EXEC_STATUS_COUNT && table[st].transient;
}

aoe_exec_status aoe_exec_status_from_errno(int err, aoe_exec_status otherwise)
{
    switch (err) {
    case ENOMEM:
        return AOE_EXEC_OUT_OF_MEMORY;
    case ENOSPC:
    case EIO:
    case EDQUOT:
    case EROFS:
    case EMFILE:
    case ENFILE:
        return AOE_EXEC_IO_ERROR;
    default:
        return otherwise;
    }
}
