/* Placeholder until `aoe bank` lands. */
#include "tuner/cli.h"

#include <stdio.h>

int aoe_cmd_bank(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "aoe bank: not built yet\n");
    return AOE_EXIT_FAIL;
}
