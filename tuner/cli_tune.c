/* Placeholder until `aoe tune` lands. */
#include "tuner/cli.h"

#include <stdio.h>

int aoe_cmd_tune(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "aoe tune: not built yet\n");
    return AOE_EXIT_FAIL;
}
