/* The worker child: requests and replies over a socketpair (send with
 * MSG_NOSIGNAL, so a dead worker never raises SIGPIPE in the tuner), crash
 * reports over a separate pipe written by the child's fatal-signal handler. */
#define UNW_LOCAL_ONLY
#include "tuner/isolate.h"

#include <errno.h>
#include <fcntl.h>
#include <libunwind.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct aoe_worker {
    pid_t pid;
    int fd;                  /* parent's end of the socketpair */
    int crash_fd;            /* read end of the crash-report pipe */
    aoe_exec_status failure; /* how the last call ended, when it failed */
};

static int g_crash_fd = -1; /* child only: where the signal handler reports */

int aoe_read_full(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len) {
        ssize_t n = read(fd, p, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        p += n, len -= (size_t)n;
    }
    return 0;
}

int aoe_write_full(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == ENOTSOCK) n = write(fd, p, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        p += n, len -= (size_t)n;
    }
    return 0;
}

/* Async-signal-safe appends (no stdio in a signal handler). */
static size_t put_str(char *buf, size_t at, size_t cap, const char *s)
{
    while (*s && at + 1 < cap) buf[at++] = *s++;
    return at;
}

static size_t put_hex(char *buf, size_t at, size_t cap, unsigned long v)
{
    char tmp[20];
    int n = 0;
    do tmp[n++] = "0123456789abcdef"[v & 15], v >>= 4;
    while (v && n < 20);
    at = put_str(buf, at, cap, "0x");
    while (n && at + 1 < cap) buf[at++] = tmp[--n];
    return at;
}

static atomic_int g_crashing; /* child only: a thread is writing the crash report */

static void crash_handler(int sig)
{
    char buf[1536];
    size_t at = 0;
    /* Only the first crashing thread reports; the others (a kernel's
     * work-groups fault together on PoCL's threads) wait here for it to end
     * the process, instead of killing it before the report is written. */
    if (atomic_exchange(&g_crashing, 1))
        for (;;) pause();
    /* strsignal is not async-signal-safe: fixed names. */
    const char *name = "signal", *desc = "fatal signal";
    if (sig == SIGSEGV) name = "SIGSEGV", desc = "Segmentation fault";
    if (sig == SIGBUS) name = "SIGBUS", desc = "Bus error";
    if (sig == SIGFPE) name = "SIGFPE", desc = "Floating point exception";
    if (sig == SIGILL) name = "SIGILL", desc = "Illegal instruction";
    if (sig == SIGABRT) name = "SIGABRT", desc = "Aborted";
    at = put_str(buf, at, sizeof buf, name);
    at = put_str(buf, at, sizeof buf, " (");
    at = put_str(buf, at, sizeof buf, desc);
    at = put_str(buf, at, sizeof buf, ") in the worker; backtrace:");
    unw_context_t uc;
    unw_cursor_t cur;
    if (unw_getcontext(&uc) == 0 && unw_init_local(&cur, &uc) == 0) {
        int frames = 0;
        while (frames < 24 && unw_step(&cur) > 0) {
            char fn[128];
            unw_word_t off = 0, ip = 0;
            unw_get_reg(&cur, UNW_REG_IP, &ip);
            at = put_str(buf, at, sizeof buf, frames ? " <- " : " ");
            if (unw_get_proc_name(&cur, fn, sizeof fn, &off) == 0) {
                at = put_str(buf, at, sizeof buf, fn);
                at = put_str(buf, at, sizeof buf, "+");
                at = put_hex(buf, at, sizeof buf, (unsigned long)off);
            } else {
                at = put_hex(buf, at, sizeof buf, (unsigned long)ip);
            }
            frames++;
        }
    }
    if (g_crash_fd >= 0) {
        ssize_t r = write(g_crash_fd, buf, at);
        (void)r;
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_crash_handlers(void)
{
    static char altstack[1 << 16]; /* a stack overflow still gets a report */
    stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack, .ss_flags = 0};
    sigaltstack(&ss, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = crash_handler;
    sa.sa_flags = SA_ONSTACK; /* not SA_RESETHAND: a second thread must not die by default */
    sigemptyset(&sa.sa_mask);
    int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) sigaction(sigs[i], &sa, NULL);
}

aoe_worker *aoe_worker_start(aoe_worker_fn fn, void *ctx, char *err, size_t errlen)
{
    int sv[2], cp[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
        snprintf(err, errlen, "socketpair: %s", strerror(errno));
        return NULL;
    }
    if (pipe2(cp, O_CLOEXEC)) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        close(sv[0]), close(sv[1]);
        return NULL;
    }
    aoe_worker *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "out of memory");
        close(sv[0]), close(sv[1]), close(cp[0]), close(cp[1]);
        return NULL;
    }
    fflush(NULL); /* no duplicated stdio buffers in the child */
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        close(sv[0]), close(sv[1]), close(cp[0]), close(cp[1]);
        free(w);
        return NULL;
    }
    if (pid == 0) {
        close(sv[0]);
        close(cp[0]);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(1);
        g_crash_fd = cp[1];
        install_crash_handlers();
        int rc = fn(ctx, sv[1]);
        /* _exit: no atexit handlers of the parent's libraries in the child. */
        _exit(rc);
    }
    close(sv[1]);
    close(cp[1]);
    w->pid = pid;
    w->fd = sv[0];
    w->crash_fd = cp[0];
    return w;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Reaps the worker (killing it if needed) and describes how it ended. */
static void bury(aoe_worker *w, int kill_first, char *reason, size_t reasonlen)
{
    int status = 0;
    if (kill_first) kill(w->pid, SIGKILL);
    /* A crashing worker may still be writing its report; give it a moment. */
    double until = now_s() + 5.0;
    pid_t r;
    while ((r = waitpid(w->pid, &status, WNOHANG)) == 0 && now_s() < until) {
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
    if (r == 0) {
        kill(w->pid, SIGKILL);
        waitpid(w->pid, &status, 0);
    }
    w->pid = -1;
    if (!reason) return;
    char report[1600];
    ssize_t n = 0;
    int fl = fcntl(w->crash_fd, F_GETFL);
    fcntl(w->crash_fd, F_SETFL, fl | O_NONBLOCK);
    n = read(w->crash_fd, report, sizeof report - 1);
    report[n > 0 ? n : 0] = '\0';
    if (kill_first) { /* the caller wrote the timeout reason */
        w->failure = AOE_EXEC_TIMEOUT;
        return;
    }
    /* SIGKILL comes from outside (the out-of-memory killer): not the variant's fault. */
    int killed = !n && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    w->failure = n > 0 || WIFSIGNALED(status) ? AOE_EXEC_CRASH : AOE_EXEC_WORKER_EXITED;
    if (killed) w->failure = AOE_EXEC_KILLED;
    if (n > 0)
        snprintf(reason, reasonlen, "crash: %s", report);
    else if (WIFSIGNALED(status))
        snprintf(reason, reasonlen, "%s: signal %d (%s) in the worker; no backtrace",
                 killed ? "killed" : "crash", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        snprintf(reason, reasonlen, "worker exited: status %d without answering",
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

int aoe_worker_send(aoe_worker *w, const void *data, size_t len)
{
    if (!w || w->pid <= 0) return -1;
    return aoe_write_full(w->fd, data, len);
}

int aoe_worker_call(aoe_worker *w, const void *req, size_t reqlen, void *reply, size_t replylen,
                    double timeout_s, char *reason, size_t reasonlen)
{
    if (!w || w->pid <= 0) {
        snprintf(reason, reasonlen, "worker exited: no worker");
        if (w && !w->failure) w->failure = AOE_EXEC_WORKER_EXITED;
        return -1;
    }
    if (reqlen && aoe_write_full(w->fd, req, reqlen)) {
        bury(w, 0, reason, reasonlen);
        return -1;
    }
    char *p = reply;
    size_t got = 0;
    double deadline = now_s() + timeout_s;
    while (got < replylen) {
        double left = deadline - now_s();
        if (left <= 0) {
            snprintf(reason, reasonlen,
                     "timeout: no result after %.0f s; the watchdog killed the worker", timeout_s);
            bury(w, 1, reason, reasonlen);
            return -1;
        }
        struct pollfd pfd = {.fd = w->fd, .events = POLLIN};
        int pr = poll(&pfd, 1, left > 1.0 ? 1000 : (int)(left * 1000) + 1);
        if (pr < 0 && errno == EINTR) continue;
        if (pr <= 0) continue;
        ssize_t n = read(w->fd, p + got, replylen - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            bury(w, 0, reason, reasonlen);
            return -1;
        }
        got += (size_t)n;
    }
    return 0;
}

aoe_exec_status aoe_worker_failure(const aoe_worker *w)
{
    return w ? w->failure : AOE_EXEC_WORKER_EXITED;
}

int aoe_worker_alive(const aoe_worker *w)
{
    return w && w->pid > 0;
}
pid_t aoe_worker_pid(const aoe_worker *w)
{
    return w ? w->pid : -1;
}

void aoe_worker_stop(aoe_worker *w)
{
    if (!w) return;
    if (w->pid > 0) {
        shutdown(w->fd, SHUT_RDWR); /* EOF: the worker's loop ends by itself */
        int status;
        double until = now_s() + 2.0;
        while (waitpid(w->pid, &status, WNOHANG) == 0) {
            if (now_s() > until) {
                kill(w->pid, SIGKILL);
                waitpid(w->pid, &status, 0);
                break;
            }
            struct timespec ts = {0, 2000000};
            nanosleep(&ts, NULL);
        }
    }
    close(w->fd);
    close(w->crash_fd);
    free(w);
}
