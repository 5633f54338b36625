/* Test program for the shim's dlsym wrapper: the same lookups from the main
 * program, from a linked library and from a dlopen(RTLD_LOCAL) plugin must
 * give what glibc gives without the shim (compared by the test script).
 * Usage: prog PLUGIN_PATH STUBCL_PATH [CUDAPLUGIN_PATH] */
#include "lookups.h"

#include <stdlib.h>

void linked_lookups(void);

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4) return 2;
    lookups("main");
    linked_lookups();
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        printf("dlopen: %s\n", dlerror());
        return 1;
    }
    void (*pl)(void) = (void (*)(void))dlsym(h, "plugin_lookups");
    if (!pl) return 1;
    pl();
    /* An OpenCL name through RTLD_NEXT: under the shim it is the shim's own
     * wrapper (the next definition after the program), never a crash. */
    lookup_print("main", "next", "clEnqueueNDRangeKernel",
                 dlsym(RTLD_NEXT, "clEnqueueNDRangeKernel"));
    dlclose(h);
    /* A wrapped name found in a library that is not the runtime: the
     * shim's own look-ups for the runtime must leave no error behind. */
    void *s = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    if (!s) return 1;
    dlerror();
    lookup_print("stub", "handle", "clEnqueueNDRangeKernel", dlsym(s, "clEnqueueNDRangeKernel"));
    dlclose(s);
    if (argc == 4) { /* a plugin linked against libcuda (the fake), RTLD_LOCAL */
        void *c = dlopen(argv[3], RTLD_NOW | RTLD_LOCAL);
        void (*cl)(void) = c ? (void (*)(void))dlsym(c, "cudaplugin_lookups") : NULL;
        if (!cl) return printf("dlopen: %s\n", dlerror()), 1;
        cl();
    }
    return 0;
}
