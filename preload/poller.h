/* The poller thread's calls into the runtime (variant builds) and the exit:
 * no runtime call starts once the exit has begun, and the exit handler runs
 * before the runtime's teardown (issue 12 item 2). */
#ifndef AOE_POLLER_H
#define AOE_POLLER_H

/* Brackets one runtime call made by the poller thread. enter returns 0 once
 * the exit has begun (make no call). */
int aoe_poller_runtime_enter(void);
void aoe_poller_runtime_leave(void);
/* 1 once the exit has begun: no new variant build is queued. */
int aoe_poller_stopping(void);
/* shim_init.c: registers the exit handler again, so that it runs before the
 * exit handlers registered since (it runs once). */
void aoe_shim_exit_rearm(void);
/* exit_order.c: from now on the exit handler runs before every exit handler
 * registered so far or later (called when a variant build is requested). */
void aoe_exit_order_arm(void);
/* Registers fn to run at exit through glibc's __cxa_atexit (exit_order.c). */
int aoe_exit_register(void (*fn)(void *));

#endif
