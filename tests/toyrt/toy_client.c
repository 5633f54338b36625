/* Test client of the toy runtime (tests/integration/shim_runtime_registry.sh),
 * built twice: toy_client_linked links libtoyrt and calls toyLaunch directly,
 * through dlsym(RTLD_DEFAULT), dlsym(RTLD_NEXT), a dlopen'ed handle and
 * libtoyrt's own toyRun, then forks; toy_client (TOY_LINKED unset) finds the
 * toy runtime and a fake OpenCL only by dlopen(RTLD_LOCAL) of their paths.
 * Lines starting "same " must be equal with and without the shim.
 * Usage: toy_client_linked | toy_client LIBTOYRT_PATH FAKE_OPENCL_PATH */
#include "tests/toyrt/toy_stats.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef int (*launch_fn)(int);

/* A lookup's result as owner file + offset (equal across runs despite ASLR)
 * with dlerror()'s text. */
static void lookup_print(const char *where, const char *how, const char *sym, void *p)
{
    const char *err = dlerror();
    Dl_info di;
    if (!p) {
        printf("%s %s %s -> NULL | %s\n", where, how, sym, err ? err : "(no error)");
    } else if (dladdr(p, &di) && di.dli_fname) {
        const char *base = strrchr(di.dli_fname, '/');
        printf("%s %s %s -> %s+%#lx | %s\n", where, how, sym, base ? base + 1 : di.dli_fname,
               (unsigned long)((char *)p - (char *)di.dli_fbase), err ? err : "(no error)");
    } else {
        printf("%s %s %s -> unknown object | %s\n", where, how, sym, err ? err : "(no error)");
    }
}

/* Names no runtime wraps: glibc's answer, with or without the shim. */
static void same_lookups(void *h)
{
    static const char *const syms[] = {"getpid",     "toyVersion",      "toy_internal",
                                       "toyMissing", "aoe_toy_missing", "clamp"};
    dlerror();
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        lookup_print("same", "default", syms[i], dlsym(RTLD_DEFAULT, syms[i]));
        lookup_print("same", "handle", syms[i], dlsym(h, syms[i]));
    }
}

#ifdef TOY_LINKED
int toyLaunch(int x);
int toyRun(int x);

/* What the toy shim's hooks saw (zeros without the toy shim). */
static void stats(toy_stats *s)
{
    toy_stats_fn fn = (toy_stats_fn)dlsym(RTLD_DEFAULT, "aoe_toy_stats");
    memset(s, 0, sizeof *s);
    if (fn) fn(s);
}

/* Calls toyLaunch through the toy library: the call site is this function
 * (volatile: no tail call, which would leave no frame of it). */
__attribute__((noinline)) int client_via_library(int x)
{
    volatile int r = toyRun(x);
    return r;
}

int main(void)
{
    printf("direct toyLaunch %d\n", toyLaunch(21));
    launch_fn f = (launch_fn)dlsym(RTLD_DEFAULT, "toyLaunch");
    printf("default toyLaunch %d\n", f ? f(21) : -1);
    f = (launch_fn)dlsym(RTLD_NEXT, "toyLaunch");
    printf("next toyLaunch %d\n", f ? f(21) : -1);
    void *h = dlopen("libtoyrt.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) return 1;
    f = (launch_fn)dlsym(h, "toyLaunch");
    printf("handle toyLaunch %d\n", f ? f(21) : -1);
    printf("library toyRun %d\n", client_via_library(5));
    toy_stats s;
    stats(&s);
    printf("site %s\n", s.call_site[0] ? s.call_site : "-");
    /* The poller thread calls every runtime's build_variants (bounded wait). */
    for (int i = 0; i < 1500 && s.launches && !s.builds; i++) {
        nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
        stats(&s);
    }
    printf("launches %d builds %s forks %d\n", s.launches, s.builds ? "yes" : "no", s.forks);
    same_lookups(h);
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) return 1;
    if (pid == 0) {
        stats(&s);
        printf("child forks %d launches %d toyLaunch %d\n", s.forks, s.launches, toyLaunch(1));
        fflush(stdout);
        _exit(0);
    }
    int st = 0;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) return 1;
    stats(&s);
    printf("parent forks %d\n", s.forks);
    dlclose(h);
    return 0;
}
#else
int main(int argc, char **argv)
{
    if (argc != 3) return 2;
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    void *cl = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    if (!h || !cl) {
        printf("dlopen: %s\n", dlerror());
        return 1;
    }
    launch_fn f = (launch_fn)dlsym(h, "toyLaunch");
    printf("local toyLaunch %d\n", f ? f(21) : -1);
    dlerror();
    lookup_print("cl", "handle", "clEnqueueNDRangeKernel", dlsym(cl, "clEnqueueNDRangeKernel"));
    lookup_print("same", "handle", "clGetPlatformIDs", dlsym(cl, "clGetPlatformIDs"));
    same_lookups(h);
    dlclose(cl);
    dlclose(h);
    return 0;
}
#endif
