/* The `aoe` command line: one entry point per command. Each returns the exit
 * status: 0 ok, 1 failure, 2 usage error. argv[0] is the command name. */
#ifndef AOE_CLI_H
#define AOE_CLI_H

#include "core/config.h"

#include <stddef.h>

enum { AOE_EXIT_OK = 0, AOE_EXIT_FAIL = 1, AOE_EXIT_USAGE = 2 };

int aoe_cmd_config(int argc, char **argv);
int aoe_cmd_bank(int argc, char **argv);
int aoe_cmd_tune(int argc, char **argv);
int aoe_cmd_run(int argc, char **argv);
int aoe_simulate_main(int argc, char **argv); /* `aoe tune --simulate ...` */

/* Loads the configuration; on a bad value prints the message and returns -1. */
int aoe_cli_config(aoe_config *cfg);

/* The shipped tunables directory: <bin>/../share/aoe/tunables installed, or
 * in any build tree (core/layout); "" when there is none. */
void aoe_cli_find_tunables(char *out, size_t len);

#endif
