/* libtoyrt.so.1: a fake runtime library for the shim's runtime-registry test
 * (tests/integration/shim_runtime_registry.sh). toyRun calls toyLaunch
 * through the PLT, as a vendor library calls its runtime's launch function:
 * under the shim that call reaches the shim's wrapper. */
#define TOY_EXPORT __attribute__((visibility("default")))

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
