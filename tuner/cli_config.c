/* `aoe config`: the effective configuration and where each value came from. */
#include "core/log.h"
#include "tuner/cli.h"

#include <stdio.h>
#include <string.h>

int aoe_cli_config(aoe_config *cfg)
{
    char err[512];
    if (aoe_config_load(cfg, err, sizeof err)) {
        fprintf(stderr, "aoe: %s\n", err);
        return -1;
    }
    aoe_log_set_level((int)cfg->num[AOE_CFG_LOG_LEVEL]);
    return 0;
}

int aoe_cmd_config(int argc, char **argv)
{
    int json = 0, markdown = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = 1;
        else if (!strcmp(argv[i], "--markdown"))
            markdown = 1;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: aoe config [--json | --markdown]\n\n"
                   "Prints every environment variable AOE reads, its effective value and\n"
                   "whether it came from the environment or the default. --markdown prints the\n"
                   "README's table of variables. A bad value is reported and exits 1.\n");
            return AOE_EXIT_OK;
        } else {
            fprintf(stderr, "aoe config: unknown argument '%s' (see aoe config --help)\n", argv[i]);
            return AOE_EXIT_USAGE;
        }
    }
    if (markdown) {
        aoe_config_print_markdown(stdout);
        return AOE_EXIT_OK;
    }
    aoe_config cfg;
    if (aoe_cli_config(&cfg)) return AOE_EXIT_FAIL;
    if (json)
        aoe_config_print_json(&cfg, stdout);
    else
        aoe_config_print(&cfg, stdout);
    return AOE_EXIT_OK;
}
