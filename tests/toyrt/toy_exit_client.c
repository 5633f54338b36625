/* Test client of the shim's exit ordering (tests/integration/shim_exit_order.sh),
 * linked against the toy runtime. It registers two exit handlers of its own,
 * makes the toy runtime register its compiler teardown (toyPrepare) before
 * or after requesting a variant build, and exits at once: under the toy shim
 * with TOY_BUILD_AT_EXIT the build starts only once the exit has begun, so
 * the shim's exit handler must run before the teardown (and then no build
 * starts) or the build aborts in libtoyrt.
 * Usage: toy_exit_client prepare-first|request-first */
#include "tests/toyrt/toy_stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int toyLaunch(int x);
void toyPrepare(void);

static void handler_one(void)
{
    puts("exit handler one");
}

static void handler_two(void)
{
    puts("exit handler two");
}

int main(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "prepare-first") && strcmp(argv[1], "request-first"))) {
        fputs("usage: toy_exit_client prepare-first|request-first\n", stderr);
        return 2;
    }
    int prepare_first = !strcmp(argv[1], "prepare-first");
    atexit(handler_one);
    printf("toyLaunch %d\n", toyLaunch(1)); /* the shim initialises here */
    atexit(handler_two);
    if (prepare_first) toyPrepare();
    toyLaunch(TOY_REQUEST_BUILD);
    if (!prepare_first) toyPrepare();
    puts("exiting");
    return 0;
}
