/* The run-queue wait of this process's threads (cpu_wait.h), from
 * /proc/self/task/<tid>/schedstat: "<run ns> <wait ns> <timeslices>". */
#include "tuner/cpu_wait.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Adds one thread's two counters; 0, or -1 when its file is not readable
 * (a thread that ended meanwhile is skipped by the caller). */
static int add_thread(int taskfd, const char *tid, aoe_cpu_sample *out)
{
    char path[300], buf[128];
    snprintf(path, sizeof path, "%.255s/schedstat", tid);
    int fd = openat(taskfd, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return -1;
    buf[n] = '\0';
    unsigned long long run, wait;
    if (sscanf(buf, "%llu %llu", &run, &wait) != 2) return -1;
    out->run_ns += run;
    out->wait_ns += wait;
    return 0;
}

int aoe_cpu_sample_now(aoe_cpu_sample *out)
{
    out->run_ns = out->wait_ns = 0;
    DIR *d = opendir("/proc/self/task");
    if (!d) return -1;
    unsigned read_ok = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.' && !add_thread(dirfd(d), e->d_name, out)) read_ok++;
    closedir(d);
    return read_ok ? 0 : -1; /* not even our own thread: no schedstat here */
}

double aoe_cpu_wait_share(const aoe_cpu_sample *before, const aoe_cpu_sample *after)
{
    if (after->run_ns < before->run_ns || after->wait_ns < before->wait_ns) return -1;
    uint64_t run = after->run_ns - before->run_ns, wait = after->wait_ns - before->wait_ns;
    if (run + wait < AOE_CPU_WAIT_MIN_NS) return -1;
    return (double)wait / (double)(run + wait);
}

int aoe_cpu_starved(double share)
{
    return share >= AOE_STARVED_SHARE;
}
