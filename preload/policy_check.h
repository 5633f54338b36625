/* The shim's launch-relative check of a bank policy (issue 12 item 6): a
 * bank is input, so a policy is applied only when its work sizes follow from
 * the launch its operator was created for and the kernel's declared rules. */
#ifndef AOE_POLICY_CHECK_H
#define AOE_POLICY_CHECK_H

#include "launch/op_table.h"
#include "space/tunables.h"
#include "store/opkey.h"

#include <stddef.h>
#include <stdint.h>

/* 0 when pol fits the launch; -1 with the reason in why. */
int aoe_policy_check(const aoe_policy_entry *pol, const aoe_launch_shape *l, char *why,
                     size_t whylen);

/* The declaration for a kernel (etc/tunables next to the shim, then
 * AOE_TUNABLES), loaded once per process; NULL when none. */
const aoe_tunable_kernel *aoe_shim_tunables_for(const char *runtime, const char *kernel,
                                                const char *source, aoe_hash128 program);

#endif
