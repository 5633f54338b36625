/* A library the program links: makes the lookups from inside a library. It
 * also defines aoe_dlsym_twice, as later.c does: RTLD_NEXT from the program
 * finds this one, from here the later one. */
#include "lookups.h"

int aoe_dlsym_twice(void)
{
    return 0;
}

void linked_lookups(void)
{
    lookups("linked");
}
