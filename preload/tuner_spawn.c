/* Starting the background tuner. It is started through a shell that puts it
 * in the background and exits at once, so the tuner is never the program's
 * child: a program that waits for its own children never sees it. */
#include "preload/log.h"
#include "preload/shim.h"
#include "preload/spool_write.h"

#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static atomic_int g_spawned;

void aoe_tuner_spawn(void)
{
    if (aoe_shim.mode != AOE_MODE_ONLINE) return;
    if (atomic_exchange(&g_spawned, 1)) return;
    char aoe[4200], log[4200];
    snprintf(aoe, sizeof aoe, "%s/../bin/aoe", aoe_shim.self_dir);
    snprintf(log, sizeof log, "%s/tuner.log", aoe_shim.spool_dir);
    if (access(aoe, X_OK)) {
        aoe_log(AOE_LOG_WARN, "background tuner %s not found; jobs stay in %s", aoe,
                aoe_shim.spool_dir);
        return;
    }
    size_t n = 0;
    while (environ && environ[n]) n++;
    char **env = calloc(n + 1, sizeof *env);
    if (!env) return;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "LD_PRELOAD=", 11)) env[m++] = environ[i];
    char *argv[] = {"sh",
                    "-c",
                    "nice -n 10 \"$0\" tune --spool \"$1\" --idle-exit 10 </dev/null >>\"$2\" "
                    "2>&1 &",
                    aoe,
                    aoe_shim.spool_dir,
                    log,
                    NULL};
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
    pid_t pid;
    int rc = posix_spawn(&pid, "/bin/sh", NULL, &attr, argv, env);
    posix_spawnattr_destroy(&attr);
    free(env);
    if (rc) {
        aoe_log(AOE_LOG_WARN, "cannot start the background tuner: %s", strerror(rc));
        return;
    }
    AOE_DEBUG("background tuner started for %s", aoe_shim.spool_dir);
    waitpid(pid, NULL, 0);
}

void aoe_tuner_spawn_atfork_child(void)
{
    atomic_store(&g_spawned, 0);
}
