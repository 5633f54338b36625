/* What the launch core needs from the process around it: settings and
 * services that live in preload/ in the shim (the bank, the spool, the
 * result file, AOE_TUNE_OPS, policy reclamation), and a test's own in unit
 * tests. Set once at the shim's initialisation, read at first sight only. */
#ifndef AOE_LAUNCH_HOST_H
#define AOE_LAUNCH_HOST_H

#include "jobs/job.h"
#include "space/tunables.h"
#include "store/opkey.h"

#include <stddef.h>
#include <stdint.h>

struct aoe_op;

#define AOE_LAUNCH_HOST_VERSION 1

typedef struct aoe_launch_host {
    int version; /* AOE_LAUNCH_HOST_VERSION */
    /* settings */
    int capture;            /* 0: never capture (AOE_TUNE_MODE=off) */
    int repeat;             /* REPEAT_TUNE: capture operators the bank knows too */
    uint64_t capture_limit; /* bytes of one buffer's contents in a job */
    int auto_defines;       /* AOE_AUTO_DEFINES: #ifndef defaults are tunable */
    const char *spool_dir;  /* for messages */
    /* Frees p once no launch's read section can hold it (NULL: kept). */
    void (*retire)(void *p);
    /* The first operator of a process: start the result file and poller. */
    void (*start)(void);
    /* The call site of the launch being made ("lib:function"). */
    void (*call_site)(char *out, size_t len);
    /* Publishes the bank's policy for op, if it has one. */
    void (*refresh)(struct aoe_op *op);
    /* A policy was active at an operator's first sight. */
    void (*note_active)(void);
    /* AOE_TUNE_OPS allows this kernel. */
    int (*allows)(const char *kernel_name);
    /* A kernel (operator) not tuned, and why (AOE_NT_*). */
    void (*not_tuned)(const char *kernel_name, int reason, const char *detail);
    /* The kernel's declared tunables for its runtime, or NULL. */
    const aoe_tunable_kernel *(*tunables)(const char *runtime, const char *kernel,
                                          const char *source, aoe_hash128 program);
    /* The spool: holds key already; at its limits; writes a job (1 written). */
    int (*spool_has)(const aoe_key *key);
    int (*spool_full)(void);
    int (*spool_submit)(const aoe_job *job);
    /* Starts the background tuner (once per process). */
    void (*tuner_spawn)(void);
} aoe_launch_host;

/* Installs h (kept, not copied): before the first launch. */
void aoe_launch_set_host(const aoe_launch_host *h);
/* The installed host (a host doing nothing until one is set). */
const aoe_launch_host *aoe_launch_get_host(void);

#endif
