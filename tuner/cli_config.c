/* `aoe config`: the effective configuration and where each value came from. */
#include "core/layout.h"
#include "core/log.h"
#include "tuner/cli.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The same lookup as the shim's (core/layout). */
void aoe_cli_find_tunables(char *out, size_t len)
{
    char exe[PATH_MAX];
    if (aoe_layout_exe_dir(exe, sizeof exe) ||
        aoe_layout_find(exe, AOE_FROM_BIN, AOE_LAYOUT_TUNABLES, out, len))
        out[0] = '\0';
}

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
                   "whether it came from the environment or the default, then the directory\n"
                   "of the shipped tunables the tuner reads. --markdown prints the README's\n"
                   "table of variables. A bad value is reported and exits 1.\n");
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
    else {
        aoe_config_print(&cfg, stdout);
        char dir[PATH_MAX], real[PATH_MAX];
        aoe_cli_find_tunables(dir, sizeof dir);
        if (dir[0] && realpath(dir, real)) snprintf(dir, sizeof dir, "%s", real);
        printf("\nshipped tunables: %s\n", dir[0] ? dir : "none found beside this aoe");
    }
    return AOE_EXIT_OK;
}
