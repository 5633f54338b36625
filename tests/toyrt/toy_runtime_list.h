/* The runtimes the test build of the shim (aoe_hook_toy) adds to
 * preload/runtime_list.h's: the toy runtime of tests/toyrt/toy_hook.c. */
#ifndef AOE_TOY_RUNTIME_LIST_H
#define AOE_TOY_RUNTIME_LIST_H

#define AOE_EXTRA_RUNTIMES(X) X(toy)

#endif
