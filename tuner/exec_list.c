/* Executors found by runtime name (the list in exec_list.h). */
#include "tuner/exec.h"

#include <stdio.h>
#include <string.h>

static const aoe_exec_ops *const executors[] = {
#define AOE_EXEC_ENTRY(name) &aoe_exec_##name,
    AOE_EXECUTORS(AOE_EXEC_ENTRY)
#undef AOE_EXEC_ENTRY
};

const aoe_exec_ops *aoe_exec_find(const char *runtime)
{
    for (size_t i = 0; runtime && i < sizeof executors / sizeof *executors; i++)
        if (executors[i]->version >= AOE_EXEC_OPS_MIN_VERSION &&
            !strcmp(executors[i]->runtime, runtime))
            return executors[i];
    return NULL;
}

const aoe_exec_ops *aoe_exec_for(const aoe_job *job, char *detail, size_t len)
{
    const char *rt = job && job->runtime ? job->runtime : "";
    const aoe_exec_ops *ops = aoe_exec_find(rt);
    if (!ops && detail && len)
        snprintf(detail, len, "no executor for runtime '%s' in this build", rt);
    return ops;
}
