/* Loaded with dlopen(RTLD_LOCAL): its own lookups see its local scope. */
#include "lookups.h"

void plugin_lookups(void)
{
    lookups("plugin");
}
