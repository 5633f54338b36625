/* `aoe`: the command-line entry point. */
#include "tuner/cli.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Tells a preloaded shim (preload/shim_init.c) that this is AOE's own
 * process: with LD_PRELOAD=libaoe_hook.so exported in a shell, the shim
 * would otherwise apply bank policies to the tuner's default measurement and
 * capture the tuner's variants as the program's. Exported from the
 * executable by name (tuner/CMakeLists.txt). */
__attribute__((visibility("default"), used)) const char aoe_shim_stay_out[] = "aoe";

static void usage(FILE *out)
{
    fprintf(out,
            "usage: aoe COMMAND [ARGS]\n"
            "\n"
            "commands:\n"
            "  run [--offline] [--repeat] -- CMD ARGS   run a program with the AOE shim\n"
            "  tune JOB... | --spool DIR | --simulate F  tune operators (or score strategies)\n"
            "  bank list|show|stats|verify|export|import|merge|delete\n"
            "                                           inspect and manage the knowledge bank\n"
            "  config [--json|--markdown]               print the effective configuration\n"
            "\n"
            "`aoe COMMAND --help` describes each command. Exit status: 0 ok, 1 failure,\n"
            "2 usage error.\n");
}

/* Output that never reached its file (a full disk, a closed descriptor) is
 * a failure: `aoe bank list > saved.txt` must not exit 0 with the file
 * empty. stdout is flushed here, where exit would do it without a word. */
static int output_written(int rc)
{
    errno = 0;
    if (!fflush(stdout) && !ferror(stdout)) return rc;
    fprintf(stderr, "aoe: the output could not be written: %s\n",
            errno ? strerror(errno) : "a write failed");
    return rc == AOE_EXIT_OK ? AOE_EXIT_FAIL : rc;
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return AOE_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout);
        return AOE_EXIT_OK;
    }
    if (!strcmp(cmd, "--version")) {
        printf("aoe %s\n", AOE_VERSION);
        return AOE_EXIT_OK;
    }
    if (!strcmp(cmd, "config")) return aoe_cmd_config(argc - 1, argv + 1);
    if (!strcmp(cmd, "bank")) return aoe_cmd_bank(argc - 1, argv + 1);
    if (!strcmp(cmd, "tune")) return aoe_cmd_tune(argc - 1, argv + 1);
    if (!strcmp(cmd, "run")) return aoe_cmd_run(argc - 1, argv + 1);
    fprintf(stderr, "aoe: unknown command '%s'\n", cmd);
    usage(stderr);
    return AOE_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    return output_written(dispatch(argc, argv));
}
