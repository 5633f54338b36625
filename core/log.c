#include "core/log.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int g_level = AOE_LOG_INFO;

void aoe_log_set_level(int level)
{
    g_level = level;
}

/* A write to a pipe nobody reads raises SIGPIPE, which ends the process: a
 * message of the shim must never kill a program that would have exited
 * cleanly without it (`prog 2>&1 >out | head -1`). SIGPIPE is blocked in
 * this thread for the write, and one the write raised is taken before the
 * mask is restored; a SIGPIPE already pending is the program's and stays. */
static void write_stderr(const char *buf, size_t len)
{
    sigset_t pipe_only, old, pending;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    int was_pending = !sigpending(&pending) && sigismember(&pending, SIGPIPE);
    int masked = !pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
    ssize_t w = write(STDERR_FILENO, buf, len);
    if (w < 0 && errno == EPIPE && masked && !was_pending) {
        const struct timespec now = {0, 0};
        sigtimedwait(&pipe_only, NULL, &now);
    }
    if (masked) pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void aoe_log(int level, const char *fmt, ...)
{
    if (level > g_level) return;
    int saved = errno; /* the program's errno, from the call the shim wraps */
    /* One write() per line so lines from several processes do not interleave. */
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "aoe: ");
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (m >= 0) {
        size_t len = strlen(buf);
        if (len == 0 || buf[len - 1] != '\n') buf[len++] = '\n';
        write_stderr(buf, len);
    }
    errno = saved;
}

int aoe_errf(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}
