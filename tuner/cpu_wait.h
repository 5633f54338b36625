/* How long this process's threads waited for a CPU: the guard against timing
 * a tuner that the machine starves, on a device that computes on this
 * machine's CPUs (aoe_exec_info.host_cpu). A background tuner runs at SCHED_IDLE;
 * beside a program that keeps every core busy its threads get a few percent
 * of a CPU, and what it times then is inflated and uneven (a default measured
 * at 30x its idle time), so a search and its confirmation compare times taken
 * at different levels of load. The kernel's per-thread schedstat (run time
 * and run-queue wait, docs/benchmarks.md) tells such a measurement from one
 * on a fairly shared CPU: 0.93-0.98 of the time waiting against 0.46-0.50. */
#ifndef AOE_CPU_WAIT_H
#define AOE_CPU_WAIT_H

#include <stdint.h>

/* A measurement whose threads waited this share of their runnable time or
 * more was starved; its timing is not used. */
#define AOE_STARVED_SHARE 0.8
/* Below this much runnable time (CPU + wait) in a window the share says
 * nothing (a GPU's host thread sleeps in its synchronisation). */
#define AOE_CPU_WAIT_MIN_NS 2000000ull

typedef struct {
    uint64_t run_ns;  /* on a CPU, summed over the process's threads */
    uint64_t wait_ns; /* runnable, waiting on a run queue */
} aoe_cpu_sample;

/* Reads /proc/self/task/<tid>/schedstat of every thread now. 0, or -1 when
 * the kernel does not provide it (then no share is known). */
int aoe_cpu_sample_now(aoe_cpu_sample *out);

/* wait / (run + wait) between two samples, in [0, 1]; -1 when not known
 * (a sample failed, a thread ended in between, or less than
 * AOE_CPU_WAIT_MIN_NS of runnable time). Pure. */
double aoe_cpu_wait_share(const aoe_cpu_sample *before, const aoe_cpu_sample *after);

/* 1 when a share from aoe_cpu_wait_share means starved. */
int aoe_cpu_starved(double share);

#endif
