/* What the toy runtime's hooks saw (tests/toyrt/toy_hook.c), read by the
 * test client through aoe_toy_stats, which only the toy shim exports. */
#ifndef AOE_TOY_STATS_H
#define AOE_TOY_STATS_H

/* Added by the toy wrapper to toyLaunch's result: the wrapper ran. */
#define TOY_WRAPPED 1000

typedef struct {
    int launches;        /* calls of the toyLaunch wrapper in this process */
    int builds;          /* build_variants calls from the poller thread */
    int forks;           /* atfork_child calls (1 in a forked child) */
    char call_site[256]; /* call site of the last wrapped launch */
} toy_stats;

typedef void (*toy_stats_fn)(toy_stats *out);

#endif
