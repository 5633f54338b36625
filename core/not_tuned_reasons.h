/* Why the shim did not tune a kernel: the one list of reasons, shared by the
 * shim (which counts them, preload/not_tuned.h) and `aoe run` (which prints
 * them from the result file). */
#ifndef AOE_NOT_TUNED_REASONS_H
#define AOE_NOT_TUNED_REASONS_H

/* X(code, JSON name, human text): the one list of reasons. */
#define AOE_NOT_TUNED_REASONS(X)                                                                   \
    X(IMAGE, "image_or_sampler", "image or sampler argument")                                      \
    X(PIPE, "pipe_queue_or_event", "pipe, device queue or event argument")                         \
    X(SVM, "svm", "SVM pointer argument")                                                          \
    X(EXEC_INFO, "exec_info", "execution info set on the kernel object")                           \
    X(UNKNOWN_MEM, "unknown_memory_object", "memory object the shim never saw created")            \
    X(ARG, "argument_not_recorded", "argument the shim could not record")                          \
    X(PROGRAM, "program_not_tracked", "program not tracked")                                       \
    X(UNSEEN, "kernel_not_tracked", "kernel object created outside the shim")                      \
    X(FILTERED, "filtered_by_tune_ops", "filtered by AOE_TUNE_OPS")                                \
    X(CAPTURE_LIMIT, "capture_limit", "capture limit per kernel object")                           \
    X(OPS_LIMIT, "operator_limit", "operator limit per kernel object")                             \
    X(SPOOL_FULL, "spool_full", "spool full")                                                      \
    X(REFUSED, "policy_refused", "bank record refused by the policy check")                        \
    X(TUNING_FAILED, "tuning_failed", "tuning failed")                                             \
    X(PRECOMPILED, "precompiled", "precompiled kernel (no NVRTC source)")                          \
    X(GRAPH_CAPTURE, "graph_capture", "launched into a CUDA graph capture")                        \
    X(NO_TUNABLES, "no_tunables_declaration", "no tunables declaration")                           \
    X(GRAPH_REPLAY, "graph_replay", "graph replay (kernels inside graphs are not tuned)")          \
    X(PARAMS_UNKNOWN, "parameters_unknown", "kernel parameters not understood")                    \
    X(PACKED_ARGS, "packed_arguments", "parameters packed in `extra`")                             \
    X(COOPERATIVE, "cooperative_launch", "cooperative launch")                                     \
    X(LAUNCH_ATTRS, "launch_attributes", "launch attributes the shim cannot reproduce")            \
    X(OWN_LOCAL, "own_local_size_no_tunables", "own local size, no tunables declared")             \
    X(NOTHING_TO_TUNE, "nothing_to_tune", "the tuner found nothing to tune")                       \
    X(QUEUED, "queued", "waiting for the tuner")                                                   \
    X(FAMILY_QUEUED, "family_queued", "waiting for the tuner (its family captured)")               \
    X(TUNE_OFF, "tuning_off", "AOE_TUNE_MODE=off")                                                 \
    X(NOT_CAPTURED, "not_captured", "job not written (see the log)")

#define AOE_NT_ENUM(code, json, text) AOE_NT_##code,
enum { AOE_NT_NONE = 0, AOE_NOT_TUNED_REASONS(AOE_NT_ENUM) AOE_NT_COUNT };
#undef AOE_NT_ENUM

#endif
