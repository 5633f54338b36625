/* The background tuner's place on the machine: the lowest CPU priority
 * (SCHED_IDLE: runs only when a CPU would otherwise be idle) and the idle I/O
 * class, so a program it tunes for keeps (almost) all of its throughput. */
#ifndef AOE_PRIORITY_H
#define AOE_PRIORITY_H

#include <stddef.h>

/* For the calling process and every thread or child it creates later;
 * own_session (a detached tuner): also its session's autogroup at nice 19.
 * Returns 0, or -1 with what could not be set in err (then nice 19 at least). */
int aoe_lowest_priority(int own_session, char *err, size_t errlen);

/* Forks; the parent exits 0 at once, the child starts its own session and
 * returns 0 (-1: fork failed). Whoever started us reaps a short-lived
 * process and never our real work. */
int aoe_detach(void);

#endif
