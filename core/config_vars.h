/* Every environment variable AOE reads, declared once:
 * X(ID, "NAME", type, "default", allowed, "help").
 * The list generates the aoe_cfg_id enum and the table in config.c; its order
 * is the order of `aoe config` and of the README table. allowed: a choice
 * variable's values come from its list (config_choices.h, strategy_list.h);
 * int: "min..max"; else NULL. default "" = unset / derived. */
#ifndef AOE_CONFIG_VARS_H
#define AOE_CONFIG_VARS_H

#include "core/config_choices.h"
#include "core/strategy_list.h"

#define AOE_CFG_VARS(X)                                                                            \
    X(TUNE_BANK_PATH, "TUNE_BANK_PATH", AOE_CFG_PATH, "", NULL,                                    \
      "Knowledge bank directory (default: $XDG_DATA_HOME/aoe/bank, "                               \
      "else ~/.local/share/aoe/bank).")                                                            \
    X(REPEAT_TUNE, "REPEAT_TUNE", AOE_CFG_BOOL, "False", "True|False|1|0",                         \
      "True: tune operators again even when the bank knows them; the bank "                        \
      "entry is replaced only by a better result.")                                                \
    X(LOG_LEVEL, "AOE_LOG_LEVEL", AOE_CFG_ENUM, "info", AOE_CHOICE_ALLOWED(AOE_LOG_LEVELS),        \
      "How much AOE prints on stderr. info: one line when tuned policies "                         \
      "are active and one summary at exit.")                                                       \
    X(TUNE_MODE, "AOE_TUNE_MODE", AOE_CFG_ENUM, "online", AOE_CHOICE_ALLOWED(AOE_TUNE_MODES),      \
      "online: tune unknown operators in the background; offline: only "                           \
      "capture tuning jobs; off: use the bank only.")                                              \
    X(WORK_PATH, "AOE_WORK_PATH", AOE_CFG_PATH, "", NULL,                                          \
      "Where result files (aoe_result_opat_*.json) and the job spool go "                          \
      "(default: the working directory for results, the bank for the "                             \
      "spool).")                                                                                   \
    X(TUNABLES, "AOE_TUNABLES", AOE_CFG_STRING, "", NULL,                                          \
      "Extra tunables files, separated by ':', read after etc/tunables/.")                         \
    X(TUNE_GEMM, "AOE_TUNE_GEMM", AOE_CFG_BOOL, "True", "True|False|1|0",                          \
      "False: cuBLAS and cuBLASLt GEMMs are neither tuned nor captured (every call "               \
      "passes through); kernels are tuned as before.")                                             \
    X(AUTO_DEFINES, "AOE_AUTO_DEFINES", AOE_CFG_BOOL, "False", "True|False|1|0",                   \
      "Also tune `#ifndef NAME / #define NAME <int>` defaults found in "                           \
      "kernel sources (kept only when verification is exact).")                                    \
    X(PARALLEL_COMPILE, "AOE_PARALLEL_COMPILE", AOE_CFG_INT, "2", "1..64",                         \
      "Variant programs the tuner compiles at once.")                                              \
    X(VARIANT_TIMEOUT, "AOE_VARIANT_TIMEOUT", AOE_CFG_INT, "30", "1..86400",                       \
      "Seconds one variant may take to compile and run before the "                                \
      "watchdog kills it (plus 12x the default's time for a kernel "                               \
      "taking a second or more, at most an hour).")                                                \
    X(CAPTURE_LIMIT_MB, "AOE_CAPTURE_LIMIT_MB", AOE_CFG_INT, "64", "0..65536",                     \
      "Largest buffer (MiB) whose contents a captured job keeps; "                                 \
      "larger buffers are replayed with synthetic data.")                                          \
    X(SPOOL_MAX_JOBS, "AOE_SPOOL_MAX_JOBS", AOE_CFG_INT, "256", "1..1000000",                      \
      "Jobs the spool holds at most (queued and running); no operator "                            \
      "is captured while it is full.")                                                             \
    X(SPOOL_MAX_MB, "AOE_SPOOL_MAX_MB", AOE_CFG_INT, "1024", "1..1048576",                         \
      "MiB the spool's job files take at most; no operator is captured "                           \
      "while a job would not fit.")                                                                \
    X(TUNE_OPS, "AOE_TUNE_OPS", AOE_CFG_PATH, "", NULL,                                            \
      "File of kernel names or shell patterns (one per line, # comments): "                        \
      "only these are tuned.")                                                                     \
    X(POLL_MS, "AOE_POLL_MS", AOE_CFG_INT, "500", "1..3600000",                                    \
      "How often (ms) a running program looks for new bank results.")                              \
    X(MAX_EVALS, "AOE_MAX_EVALS", AOE_CFG_INT, "64", "1..1000000",                                 \
      "Variants the background tuner measures per operator at most.")                              \
    X(TIME_LIMIT, "AOE_TIME_LIMIT", AOE_CFG_INT, "120", "1..86400",                                \
      "Seconds the background tuner spends per operator at most (for a "                           \
      "kernel taking a second or more: max(this, 60x its time), the 60x "                          \
      "at most 30 minutes).")                                                                      \
    X(WAIT_FOR_CPU, "AOE_WAIT_FOR_CPU", AOE_CFG_BOOL, "True", "True|False|1|0",                    \
      "On a CPU device (PoCL): a timing taken while the tuner's threads waited "                   \
      "for a CPU 80% of the time or more is measured again after a pause; a job "                  \
      "starved longer than its time limit is put back for later (its last try then "               \
      "uses what it gets). False: use such timings.")                                              \
    X(STRATEGY, "AOE_STRATEGY", AOE_CFG_ENUM, "auto", AOE_STRATEGY_ALLOWED,                        \
      "Search strategy of the tuner (auto: the project's best).")                                  \
    X(TUNER_MAX_MB, "AOE_TUNER_MAX_MB", AOE_CFG_INT, "0", "0..16777216",                           \
      "Host memory (MiB) the tuner's worker may use for one job; a job "                           \
      "whose estimated peak is larger is skipped with the reason (0: half "                        \
      "of MemAvailable when the job starts).")                                                     \
    X(TUNER_IDLE_EXIT, "AOE_TUNER_IDLE_EXIT", AOE_CFG_INT, "10", "1..86400",                       \
      "Seconds the background tuner waits for a new job before it "                                \
      "exits; the shim starts it again when it queues a job.")                                     \
    X(GEMM_LIB_DIR, "AOE_CUBLAS_LIB_DIR", AOE_CFG_PATH, "", NULL,                                  \
      "Directory the GEMM tuner loads libcublasLt.so.<major> from before "                         \
      "the system's search path (absolute; only its owner may write it). "                         \
      "Unset, each GEMM job names the directory of the cuBLASLt its "                              \
      "program loaded (a pip wheel's), used when it passes the same checks.")

#endif
