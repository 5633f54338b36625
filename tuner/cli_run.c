/* Placeholder until `aoe run` lands. */
#include "tuner/cli.h"

#include <stdio.h>

int aoe_cmd_run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "aoe run: not built yet\n");
    return AOE_EXIT_FAIL;
}
