/* Loads a module with an RTLD_LOCAL dlopen, as Python loads an extension,
 * and runs its gemm_module_run(): gemm_module_host MODULE.so [LIB...]. Links
 * no cuBLAS itself, so the module's library stays out of the global scope.
 * With LIBs: then loads each RTLD_GLOBAL (another cuBLAS major, as a second
 * package would) and runs the module's gemm_module_gemmex(), a function it
 * had not called. Exit status: the module's, or 2 when something cannot be
 * loaded. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc < 2) return fprintf(stderr, "usage: gemm_module_host MODULE.so [LIB...]\n"), 2;
    void *m = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    int (*run)(void) = m ? (int (*)(void))dlsym(m, "gemm_module_run") : NULL;
    if (!run) return fprintf(stderr, "gemm_module_host: %s\n", dlerror()), 2;
    int rc = run();
    if (argc == 2 || rc) return rc;
    for (int i = 2; i < argc; i++)
        if (!dlopen(argv[i], RTLD_NOW | RTLD_GLOBAL))
            return fprintf(stderr, "gemm_module_host: %s\n", dlerror()), 2;
    int (*gemmex)(void) = (int (*)(void))dlsym(m, "gemm_module_gemmex");
    if (!gemmex) return fprintf(stderr, "gemm_module_host: %s\n", dlerror()), 2;
    return gemmex();
}
