/* A plugin linked against libcuda and loaded RTLD_LOCAL, as a Python
 * extension is: its RTLD_DEFAULT lookups see its own dependencies, so a
 * wrapped name libcuda defines is found, with the shim or without. */
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>

void cudaplugin_lookups(void);

void cudaplugin_lookups(void)
{
    int v = 0;
    cuDriverGetVersion(&v); /* libcuda is this plugin's own dependency */
    printf("cudaplugin default cuLaunchKernel -> %s\n",
           dlsym(RTLD_DEFAULT, "cuLaunchKernel") ? "found" : "NULL");
}
