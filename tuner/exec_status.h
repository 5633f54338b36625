/* Why an executor call, a variant or a job failed: one code per category, so
 * the runner, the worker protocol and the spool decide by code, never by the
 * wording of a message. A failure is always (status, detail text): the text
 * is for people, "<category>: <detail>" where a category is shown. */
#ifndef AOE_EXEC_STATUS_H
#define AOE_EXEC_STATUS_H

/* X(code, category name, transient). The names of the variant failures are
 * the categories of `aoe tune`'s "failed variants" column and of the result
 * JSON's failed_by_reason. Transient: not the job's fault (the machine ran
 * out of something, or the worker was killed from outside); the spool puts
 * such a job back for a later try. */
#define AOE_EXEC_STATUSES(X)                                                                       \
    X(OK, "ok", 0)                                                                                 \
    X(BUILD_FAILED, "build failed", 0)       /* the compiler rejected the variant's program */     \
    X(REFUSED, "refused", 0)                 /* the policy or launch configuration cannot run */   \
    X(RUNTIME_ERROR, "runtime error", 0)     /* any other runtime failure */                       \
    X(UNSUPPORTED, "unsupported", 0)         /* no executor for the runtime, unknown strategy */   \
    X(NO_RUNTIME, "no runtime", 0)           /* the runtime's library is not installed */          \
    X(NO_DEVICE, "no device", 0)             /* no device matches the job's fingerprint */         \
    X(BAD_JOB, "bad job", 0)                 /* the job is unreadable or incomplete */             \
    X(NOTHING_TO_TUNE, "nothing to tune", 0) /* no search space */                                 \
    X(OUT_OF_MEMORY, "out of memory", 1)     /* host or device memory exhausted */                 \
    X(IO_ERROR, "i/o error", 1)              /* disk full, I/O error, the bank unwritable */       \
    X(NO_WORKER, "no worker", 1)             /* a worker process could not be started */           \
    X(WRONG_RESULT, "wrong result", 0)       /* outputs differ from the default's */               \
    X(UNWRITTEN_OUTPUT, "unwritten output", 0)                                                     \
    X(OOB_WRITE, "out-of-bounds write", 0) /* guard bytes or untouched bytes written */            \
    X(TIMEOUT, "timeout", 0)               /* the watchdog killed the worker */                    \
    X(CRASH, "crash", 0)                   /* the worker died of a fatal signal */                 \
    X(KILLED, "killed", 1)                 /* SIGKILL from outside: the out-of-memory killer */    \
    X(WORKER_EXITED, "worker exited", 0)   /* the worker ended without answering */                \
    X(STARVED, "starved", 1) /* the machine left the tuner no CPU to time on (cpu_wait.h) */

typedef enum {
#define AOE_EXEC_STATUS_ENUM(code, name, transient) AOE_EXEC_##code,
    AOE_EXEC_STATUSES(AOE_EXEC_STATUS_ENUM)
#undef AOE_EXEC_STATUS_ENUM
        AOE_EXEC_STATUS_COUNT
} aoe_exec_status;

/* The category name ("build failed"); "unknown" for a value outside the enum. */
const char *aoe_exec_status_name(aoe_exec_status st);

/* The status whose name is `name` (exact), or `otherwise`. */
aoe_exec_status aoe_exec_status_from_name(const char *name, aoe_exec_status otherwise);

/* 1 when a job failing with st should be tried again later. */
int aoe_exec_status_transient(aoe_exec_status st);

/* The status for a failed system call's errno: ENOMEM is OUT_OF_MEMORY, disk
 * and descriptor exhaustion IO_ERROR, anything else `otherwise`. */
aoe_exec_status aoe_exec_status_from_errno(int err, aoe_exec_status otherwise);

#endif
