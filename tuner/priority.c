#include "tuner/priority.h"

#include <errno.h>
#include <fcntl.h>
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

/* With autogroup scheduling (on by default in most distributions' kernels)
 * CPU time is shared between sessions first: a tuner alone in its session
 * would get a full session's share whatever its own policy. Nice 19 for the
 * session makes that share the smallest there is. */
static void autogroup_lowest(void)
{
    int fd = open("/proc/self/autogroup", O_WRONLY | O_CLOEXEC);
    if (fd < 0) return; /* no autogroup: the policy alone decides */
    if (write(fd, "19", 2) < 0) {
    }
    close(fd);
}

int aoe_lowest_priority(int own_session, char *err, size_t errlen)
{
    int rc = 0;
    if (own_session) autogroup_lowest();
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

/* Every descriptor but 0-2 (which the spawner set): one the program under
 * the shim left inheritable (a pipe's write end, a listening socket) would
 * stay open as long as the tuner runs, so the program's reader would see no
 * end of file and a restarted server could not bind its port. */
static void close_inherited(void)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    closefrom(3);
#else /* an older C library: each descriptor up to the limit (at most 65536) */
    struct rlimit rl;
    long max = getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur > 65536 ? 65536 : (long)rl.rlim_cur;
    for (long fd = 3; fd < max; fd++) close((int)fd);
#endif
}

int aoe_detach(void)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid > 0) _exit(0);
    setsid(); /* a session (and autogroup) of our own, no controlling terminal */
    close_inherited();
    return 0;
}
