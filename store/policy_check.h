/* A bank record turned into what the shim applies to a launch: work sizes
 * and the -D options of a variant program. Kept out of the shim so the fuzz
 * harness (tests/fuzz/fuzz_record_policy.c) runs it on arbitrary records. */
#ifndef AOE_POLICY_CHECK_H
#define AOE_POLICY_CHECK_H

#include "store/record.h"

#include <stddef.h>

typedef struct {
    uint32_t work_dim; /* 1..3 */
    int has_local;     /* 0: NULL local size */
    size_t global[3];  /* all 0: the launch's own global size */
    size_t local[3];
} aoe_policy_sizes;

/* 0 and the sizes and " -DNAME=value ..." (its DEFINE parameters,
 * NUL-terminated in cap) of a record that passes aoe_record_check and holds
 * no library attribute (a library call's policy, meaningless for a kernel
 * launch); -1 with the reason otherwise. */
int aoe_policy_prepare(const aoe_record *rec, aoe_policy_sizes *sizes, char *defines, size_t cap,
                       char *err, size_t errlen);

#endif
