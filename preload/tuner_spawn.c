/* Starting the background tuner: posix_spawn of `aoe tune --spool DIR
 * --idle-exit N --idle-priority --detach`, no shell. Its output goes to
 * DIR/tuner.log, opened here (no link followed, 0600, our own file). With
 * --detach the spawned aoe forks the tuner and exits at once; we reap it, so
 * the tuner is never the program's child. The tuner exits when idle, so a
 * tuner is started whenever a job was queued and none holds tuner.lock. */
#include "core/fs_safe.h"
#include "core/layout.h"
#include "core/log.h"
#include "core/log_memo.h"
#include "preload/shim.h"
#include "preload/spool_write.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static atomic_llong g_last_spawn_ms; /* rate limit: a tuner that fails to start */
static atomic_int g_missing_logged;
static aoe_log_memo g_spawn_err;

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* True when a tuner holds DIR/tuner.lock (non-blocking flock probe). */
static bool tuner_running(void)
{
    char lock[4200];
    snprintf(lock, sizeof lock, "%s/tuner.lock", aoe_shim.spool_dir);
    int fd = open(lock, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return false;
    bool busy = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    close(fd); /* also drops our shared lock, if we got it */
    return busy;
}

static int spawn(const char *aoe, int logfd)
{
    size_t n = 0;
    while (environ && environ[n]) n++;
    char **env = calloc(n + 1, sizeof *env);
    if (!env) return ENOMEM;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "LD_PRELOAD=", 11)) env[m++] = environ[i];
    char idle[32];
    snprintf(idle, sizeof idle, "%ld", aoe_shim.cfg.num[AOE_CFG_TUNER_IDLE_EXIT]);
    char *argv[] = {(char *)aoe,        "tune",        "--spool",
                    aoe_shim.spool_dir, "--idle-exit", idle,
                    "--idle-priority",  "--detach",    NULL};
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (logfd >= 0) {
        posix_spawn_file_actions_adddup2(&fa, logfd, 1);
        posix_spawn_file_actions_adddup2(&fa, logfd, 2);
    } else {
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_adddup2(&fa, 1, 2);
    }
    /* Own session, no blocked or ignored signals inherited from the program
     * (an ignored SIGCHLD would break the tuner's waits on its workers). */
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setflags(&attr,
                             POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    pid_t pid;
    int rc = posix_spawn(&pid, aoe, &fa, &attr, argv, env);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
    free(env);
    if (rc == 0) /* the intermediate exits as soon as it has forked the tuner */
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
        }
    return rc;
}

void aoe_tuner_spawn(void)
{
    if (aoe_shim.mode != AOE_MODE_ONLINE) return;
    if (tuner_running()) return;
    long long now = now_ms(), last = atomic_load(&g_last_spawn_ms);
    if (last && now - last < 1000) return;
    if (!atomic_compare_exchange_strong(&g_last_spawn_ms, &last, now)) return;
    char aoe[4200], log[4200], err[512];
    aoe_layout_find(aoe_shim.self_dir, AOE_FROM_LIB, AOE_LAYOUT_CLI, aoe, sizeof aoe);
    snprintf(log, sizeof log, "%s/tuner.log", aoe_shim.spool_dir);
    if (access(aoe, X_OK)) {
        aoe_shim_log_once(&g_missing_logged, AOE_LOG_WARN,
                          "background tuner %s not found; jobs stay in %s", aoe,
                          aoe_shim.spool_dir);
        return;
    }
    /* Never write into a spool that is not ours (the job writer said why). */
    if (aoe_fs_private_dir(aoe_shim.spool_dir, 0, err, sizeof err)) return;
    int logfd = aoe_fs_open_append(log, err, sizeof err);
    if (logfd < 0) AOE_DEBUG("tuner output discarded: %s", err);
    int rc = spawn(aoe, logfd);
    if (logfd >= 0) close(logfd);
    if (rc) {
        aoe_log_changed(&g_spawn_err, AOE_LOG_WARN, "cannot start the background tuner: %s",
                        strerror(rc));
        return;
    }
    AOE_DEBUG("background tuner started for %s", aoe_shim.spool_dir);
}

void aoe_tuner_spawn_atfork_child(void)
{
    atomic_store(&g_last_spawn_ms, 0);
}
