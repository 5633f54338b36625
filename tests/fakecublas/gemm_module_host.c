/* Loads a module with an RTLD_LOCAL dlopen, as Python loads an extension,
 * and runs its gemm_module_run(): gemm_module_host MODULE.so. Links no
 * cuBLAS itself, so the module's library stays out of the global scope.
 * Exit status: the module's, or 2 when it cannot be loaded. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2) return fprintf(stderr, "usage: gemm_module_host MODULE.so\n"), 2;
    void *m = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    int (*run)(void) = m ? (int (*)(void))dlsym(m, "gemm_module_run") : NULL;
    if (!run) return fprintf(stderr, "gemm_module_host: %s\n", dlerror()), 2;
    return run();
}
