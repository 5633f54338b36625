/* What the toy runtime's hooks saw (tests/toyrt/toy_hook.c), read by the
 * test client through aoe_toy_stats, which only the toy shim exports. */
#ifndef AOE_TOY_STATS_H
#define AOE_TOY_STATS_H

/* toyLaunch(TOY_REQUEST_BUILD) also requests one variant build, which the
 * poller makes through libtoyrt's toyBuild (toy_hook.c). */
#define TOY_REQUEST_BUILD (-1)

/* Added by the toy wrapper to toyLaunch's result: the wrapper ran. */
#define TOY_WRAPPED 1000

typedef struct {
    int launches;        /* calls of the toyLaunch wrapper in this process */
    int builds;          /* build_variants calls from the poller thread */
    int forks;           /* atfork_child calls (1 in a forked child) */
    int variant_builds;  /* toyBuild calls made by the poller */
    char call_site[256]; /* call site of the last wrapped launch */
} toy_stats;

typedef void (*toy_stats_fn)(toy_stats *out);

#endif
