/* libtoyrt.so.1: a fake runtime library for the shim's runtime-registry test
 * (tests/integration/shim_runtime_registry.sh). toyRun calls toyLaunch
 * through the PLT, as a vendor library calls its runtime's launch function:
 * under the shim that call reaches the shim's wrapper. */
#define TOY_EXPORT __attribute__((visibility("default")))

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

TOY_EXPORT int toyLaunch(int x)
{
    return 2 * x;
}

/* volatile: no tail call, so toyRun's frame is on the stack in toyLaunch. */
TOY_EXPORT int toyRun(int x)
{
    volatile int r = toyLaunch(x);
    return r;
}

TOY_EXPORT int toyVersion(void)
{
    return 7;
}

/* "toy" and a lower-case letter: not one of the runtime's entry points. */
TOY_EXPORT int toy_internal(void)
{
    return 3;
}

/* The toy "compiler": its state is torn down by an exit handler that
 * toyPrepare registers, as clang's function-local statics are registered at
 * a program's first build under PoCL; the teardown takes a while (as freeing
 * a compiler does). A build after it is a use after free: it aborts. */
static volatile int g_torn_down;

static void toy_teardown(void)
{
    g_torn_down = 1;
    nanosleep(&(struct timespec){0, 300 * 1000 * 1000}, NULL);
}

TOY_EXPORT void toyPrepare(void)
{
    atexit(toy_teardown);
}

TOY_EXPORT int toyTornDown(void)
{
    return g_torn_down;
}

TOY_EXPORT int toyBuild(void)
{
    if (g_torn_down) {
        fputs("toyrt: build after the compiler's teardown\n", stderr);
        abort();
    }
    return 0;
}
