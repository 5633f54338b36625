/* Library constructor and lazy runtime initialisation. The preload is
 * inherited by every child process (PoCL runs the linker for each kernel
 * build), so the constructor only reads the configuration (and, preloaded
 * by a relative path, its own directory): a process that never touches the
 * runtime pays nothing else. */
#include "preload/shim.h"

#include "core/log.h"
#include "preload/launch_host.h"
#include "preload/poller.h"
#include "preload/reclaim.h"
#include "preload/result_file.h"
#include "preload/tune_ops.h"
#include "jobs/spool_protocol.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

aoe_shim_state aoe_shim;
int aoe_shim_active;

static pthread_once_t g_init_once = PTHREAD_ONCE_INIT;
static pthread_once_t g_exit_once = PTHREAD_ONCE_INIT;
static atomic_int g_cfg_msg_done;

static void find_self_dir(bool relative_only);

__attribute__((constructor)) static void aoe_shim_ctor(void)
{
    find_self_dir(true);
    char err[sizeof aoe_shim.cfg_error];
    if (aoe_config_load(&aoe_shim.cfg, err, sizeof err)) {
        /* Reported at the first runtime call, so that children that never
         * use the runtime (the linker PoCL runs) stay silent. */
        aoe_shim.cfg_bad = true;
        snprintf(aoe_shim.cfg_error, sizeof aoe_shim.cfg_error, "%s", err);
    } else {
        aoe_log_set_level((int)aoe_shim.cfg.num[AOE_CFG_LOG_LEVEL]);
    }
}

void aoe_shim_log_once(atomic_int *flag, int level, const char *fmt, ...)
{
    if (atomic_exchange(flag, 1)) return;
    char buf[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    aoe_log(level, "%s", buf);
}

/* The directory of this library (bin/aoe and etc/ are found from it), at
 * the first runtime call; in the constructor when the program preloaded it
 * by a relative path, which the program's own chdir would later point at
 * another directory (whose lib/../bin/aoe the shim would start). */
static void find_self_dir(bool relative_only)
{
    Dl_info info;
    if (aoe_shim.self_dir[0]) return;
    if (dladdr((void *)&find_self_dir, &info) && info.dli_fname &&
        (!relative_only || info.dli_fname[0] != '/')) {
        char *real = realpath(info.dli_fname, NULL);
        const char *p = real ? real : info.dli_fname;
        snprintf(aoe_shim.self_dir, sizeof aoe_shim.self_dir, "%s", p);
        free(real);
        char *slash = strrchr(aoe_shim.self_dir, '/');
        if (slash) *slash = '\0';
    }
}

static atomic_int g_exit_done;

static void flush_counts(const aoe_runtime *rt, void *ctx)
{
    (void)ctx;
    if (rt->flush_counts) rt->flush_counts();
}

/* May be registered several times (aoe_shim_exit_rearm): runs once. */
static void at_exit(void *unused)
{
    (void)unused;
    if (!aoe_shim_active || atomic_exchange(&g_exit_done, 1)) return;
    aoe_poller_stop();
    aoe_runtime_each(flush_counts, NULL);
    /* The result file reads policies: a launching thread may still publish
     * one (first sight) and retire the one read here. */
    aoe_rd_node *rd = aoe_rd_begin();
    aoe_result_write_final();
    if (rd) aoe_rd_end(rd);
}

/* Registered through glibc's __cxa_atexit directly: the shim's own
 * (exit_order.c) would register it once more. */
static void register_exit(void)
{
    aoe_exit_register(at_exit);
}

void aoe_shim_exit_rearm(void)
{
    if (!atomic_load(&g_exit_done)) aoe_exit_register(at_exit);
}

/* A program started with a standard descriptor closed (`prog 2>&-`) would
 * let the shim's next open() take it: the bank's lock file or a job would
 * become the program's stderr, and every message, the program's and the
 * shim's, would be written into it. The closed ones get /dev/null first, as
 * glibc gives them to set-user-ID programs; a program that never uses the
 * runtime is left as it is. */
static void keep_standard_fds(void)
{
    int saved = errno;
    for (int fd = 0; fd < 3; fd++) {
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF) continue;
        int n = open("/dev/null", O_RDWR); /* the lowest free descriptor: fd */
        if (n >= 0 && n != fd) close(n);   /* another thread took fd meanwhile */
    }
    errno = saved;
}

/* Whether this is AOE's own process (the `aoe` executable exports the
 * marker): its tuner measures the program's kernels as they are, never
 * through the shim, whoever left LD_PRELOAD in its environment. */
static bool aoe_itself(void)
{
    aoe_dlsym_fn real = aoe_real_dlsym_fn();
    return real && real(RTLD_DEFAULT, "aoe_shim_stay_out");
}

/* Whether the kernel started this program in secure-execution mode: set-user-
 * or set-group-ID, or with file capabilities. Its environment is then the
 * invoking user's, not its own: a bank, spool or result path from it would be
 * written and a tuner started with the program's privileges. glibc drops
 * LD_PRELOAD paths in this mode, but a shim listed in /etc/ld.so.preload or
 * linked in is still loaded, so it passes everything through. */
static bool secure_execution(void)
{
    return getauxval(AT_SECURE) != 0;
}

static void init_once(void)
{
    if (aoe_itself()) {
        AOE_DEBUG("inside AOE's own aoe process: the shim stays out");
        return;
    }
    if (secure_execution()) {
        AOE_DEBUG("a set-user-ID, set-group-ID or capability-raised program: the shim stays out");
        return;
    }
    keep_standard_fds();
    aoe_fork_register();
    if (aoe_shim.cfg_bad) {
        aoe_shim_log_once(&g_cfg_msg_done, AOE_LOG_ERROR, "%s; AOE is disabled for this run",
                          aoe_shim.cfg_error);
        return;
    }
    const aoe_config *cfg = &aoe_shim.cfg;
    aoe_shim.mode = (int)cfg->num[AOE_CFG_TUNE_MODE];
    aoe_shim.repeat = cfg->num[AOE_CFG_REPEAT_TUNE] != 0;
    find_self_dir(false);
    if (aoe_config_bank_path(cfg, aoe_shim.bank_path, sizeof aoe_shim.bank_path)) {
        aoe_shim_log_once(&g_cfg_msg_done, AOE_LOG_ERROR,
                          "no bank path (TUNE_BANK_PATH, XDG_DATA_HOME and HOME are unset); "
                          "AOE is disabled for this run");
        return;
    }
    if (aoe_spool_dir(cfg, aoe_shim.spool_dir, sizeof aoe_shim.spool_dir)) return;
    const char *work = cfg->text[AOE_CFG_WORK_PATH];
    snprintf(aoe_shim.result_dir, sizeof aoe_shim.result_dir, "%s", (work && *work) ? work : ".");
    if (aoe_tune_ops_load(cfg->text[AOE_CFG_TUNE_OPS])) return;
    pthread_once(&g_exit_once, register_exit);
    aoe_preload_launch_host_install();
    aoe_shim_active = 1;
}

int aoe_shim_init(void)
{
    pthread_once(&g_init_once, init_once);
    return aoe_shim_active;
}

void aoe_shim_atfork_child(void)
{
    /* The parent's initialisation stays valid (configuration, paths); the
     * once-control is re-armed only for what is per process: the bank handle
     * and the threads, which the poller and the hooks reset themselves. */
    static const pthread_once_t fresh = PTHREAD_ONCE_INIT;
    if (!aoe_shim_active) memcpy(&g_init_once, &fresh, sizeof fresh);
}
