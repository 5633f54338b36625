/* The compiled-in executors, one X(name) each: X(opencl) stands for
 * `aoe_exec_opencl` (tuner/exec_opencl.c) replaying jobs whose runtime is
 * "opencl". A new runtime adds its executor files and one line here. */
#ifndef AOE_EXEC_LIST_H
#define AOE_EXEC_LIST_H

#define AOE_EXECUTORS(X) X(opencl)

#endif
