#include "tuner/priority.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* <linux/ioprio.h> is not in every libc's headers. */
#define AOE_IOPRIO_CLASS_SHIFT 13
#define AOE_IOPRIO_CLASS_IDLE 3
#define AOE_IOPRIO_WHO_PROCESS 1

int aoe_lowest_priority(char *err, size_t errlen)
{
    int rc = 0;
    struct sched_param sp = {0};
    if (sched_setscheduler(0, SCHED_IDLE, &sp)) {
        snprintf(err, errlen, "SCHED_IDLE: %s (running at nice 19)", strerror(errno));
        if (setpriority(PRIO_PROCESS, 0, 19)) {
        }
        rc = -1;
    }
    if (syscall(SYS_ioprio_set, AOE_IOPRIO_WHO_PROCESS, 0,
                AOE_IOPRIO_CLASS_IDLE << AOE_IOPRIO_CLASS_SHIFT)) {
        size_t n = rc ? strlen(err) : 0;
        snprintf(err + n, errlen - n, "%sidle I/O class: %s", n ? "; " : "", strerror(errno));
        rc = -1;
    }
    return rc;
}

int aoe_detach(void)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid > 0) _exit(0);
    return 0;
}
