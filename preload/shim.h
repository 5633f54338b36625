/* Process-wide state of the preload shim and the services preload/ offers
 * the runtime hooks (hooks/<runtime>*.c); the hooks answer through their
 * descriptors (preload/runtime.h). Everything here is internal to
 * libaoe_hook.so (hidden visibility). */
#ifndef AOE_SHIM_H
#define AOE_SHIM_H

#include "core/config.h"
#include "preload/runtime.h"
#include "store/bank.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct {
    /* Set by the constructor (configuration only). */
    aoe_config cfg;
    char cfg_error[512]; /* non-empty: a bad value; everything passes through */
    bool cfg_bad;
    char self_dir[4096]; /* directory of libaoe_hook.so */
    /* Derived at runtime initialisation. */
    char bank_path[4096];
    char spool_dir[4096];
    char result_dir[4096];
    int mode;    /* AOE_MODE_* */
    bool repeat; /* REPEAT_TUNE=True */
} aoe_shim_state;

extern aoe_shim_state aoe_shim;

/* 1 while the shim tunes; 0 = pass everything through (bad configuration,
 * initialisation failure). A plain global read on the launch path. */
extern int aoe_shim_active;

/* Runs the per-process runtime initialisation once (pthread_once; reset in a
 * forked child). Returns aoe_shim_active. Cheap after the first call. */
int aoe_shim_init(void);

/* The bank, opened lazily (NULL until one exists). Never closed in a child. */
aoe_bank *aoe_shim_bank(void);

/* Real symbols of rt: resolved from the next object, or from one of rt's
 * sonames when the program dlopen'ed it RTLD_LOCAL (already loaded only).
 * NULL results are not cached, so a runtime loaded later is still found. */
void *aoe_real_sym(const aoe_runtime *rt, const char *name);
/* The real dlsym (glibc's, never the shim's wrapper). */
void *aoe_real_dlsym(void *handle, const char *name);
typedef void *(*aoe_dlsym_fn)(void *, const char *);
aoe_dlsym_fn aoe_real_dlsym_fn(void); /* glibc's dlsym itself (NULL if none) */

/* Fork handling (preload/fork.c). */
void aoe_fork_register(void);
extern unsigned aoe_fork_epoch; /* bumped in every forked child */

/* Background work (preload/poller.c). */
void aoe_poller_start(void);
void aoe_poller_wake(void);
void aoe_poller_stop(void);
void aoe_poller_atfork_child(void);

/* Logs the "tuned policies active" line (once per process). */
void aoe_shim_note_active(void);
/* Re-arms the lazy initialisation in a forked child. */
void aoe_shim_atfork_child(void);

/* Logging once per process for a given flag. */
void aoe_shim_log_once(atomic_int *flag, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
