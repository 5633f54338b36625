/* Isolation: a worker child process that does all the risky work (device
 * runtime initialisation, variant builds and runs) and answers requests over
 * a socket. The parent never initialises the runtime, so forking is safe
 * (PoCL is not fork-safe after initialisation). When the worker crashes,
 * hangs past its deadline or exits, the call fails with a reason carrying the
 * signal and the worker's libunwind backtrace; the worker is reaped and the
 * next call needs a fresh one. */
#ifndef AOE_ISOLATE_H
#define AOE_ISOLATE_H

#include "tuner/exec_status.h"

#include <stddef.h>
#include <sys/types.h>

typedef struct aoe_worker aoe_worker;

/* The worker's body, run in the child: serve requests from fd (aoe_read_full
 * / aoe_write_full) until EOF. Its return value is the exit status. */
typedef int (*aoe_worker_fn)(void *ctx, int fd);

/* Forks a worker (crash handlers installed, dies with its parent). */
aoe_worker *aoe_worker_start(aoe_worker_fn fn, void *ctx, char *err, size_t errlen);

/* Sends reqlen bytes and waits up to timeout_s for exactly replylen bytes.
 * Returns 0, or -1 with a reason: "crash: SIGSEGV (Segmentation fault) in the
 * worker; backtrace: f <- g <- ...", "killed: signal 9 ...", "timeout: ...", "worker exited: ...".
 * After -1 the worker is dead and reaped. */
int aoe_worker_call(aoe_worker *w, const void *req, size_t reqlen, void *reply, size_t replylen,
                    double timeout_s, char *reason, size_t reasonlen);

/* Why the last aoe_worker_call or aoe_worker_send failed: AOE_EXEC_CRASH,
 * AOE_EXEC_KILLED (SIGKILL from outside, e.g. the out-of-memory killer),
 * AOE_EXEC_TIMEOUT or AOE_EXEC_WORKER_EXITED; AOE_EXEC_OK while none has. */
aoe_exec_status aoe_worker_failure(const aoe_worker *w);

/* Sends extra bytes after a request (variable-length payloads). 0 or -1. */
int aoe_worker_send(aoe_worker *w, const void *data, size_t len);

int aoe_worker_alive(const aoe_worker *w);
pid_t aoe_worker_pid(const aoe_worker *w);

/* Closes the socket, gives the worker a moment to exit, then kills and
 * reaps it. Frees w. */
void aoe_worker_stop(aoe_worker *w);

/* Full-length read/write on a descriptor (EINTR-safe). 0 ok, -1 EOF/error. */
int aoe_read_full(int fd, void *buf, size_t len);
int aoe_write_full(int fd, const void *buf, size_t len);

#endif
