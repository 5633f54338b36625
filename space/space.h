/* The search space of one job: parameters with value lists, constraints over
 * them, and rules deriving global/local work sizes from them. Built from three
 * sources, safest first: work-group size (always, when the program passed NULL
 * local size), declared tunables (etc/tunables/ + AOE_TUNABLES), and opt-in
 * auto-detected `#ifndef NAME / #define NAME <int>` defaults. */
#ifndef AOE_SPACE_H
#define AOE_SPACE_H

#include "store/record.h"
#include "jobs/job.h"
#include "space/search_space.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AOE_SPACE_MAX_VALUES 64

/* Device and kernel limits the executor queried (0 = unknown / no limit). */
typedef struct {
    uint64_t max_work_group_size; /* min(device max, CL_KERNEL_WORK_GROUP_SIZE) */
    uint64_t max_work_item_sizes[3];
    uint64_t reqd_work_group_size[3]; /* all zero: none declared */
    uint64_t preferred_multiple;      /* CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE */
} aoe_device_limits;

typedef struct {
    const char *tunables_dir;   /* shipped declarations (etc/tunables), or NULL */
    const char *tunables_extra; /* AOE_TUNABLES: files separated by ':', or NULL */
    bool auto_defines;          /* AOE_AUTO_DEFINES / --auto-defines */
} aoe_space_options;

typedef struct aoe_space aoe_space; /* opaque; defined in space.c */

/* Builds the space for a job (job->space_json, when present, replaces the
 * tunables lookup). Returns NULL with a reason in err when nothing is
 * tunable or a declaration is invalid. */
aoe_space *aoe_space_build(const aoe_job *job, const aoe_device_limits *lim,
                           const aoe_space_options *opt, char *err, size_t errlen);
void aoe_space_free(aoe_space *sp);

/* 1 when aoe_space_build's err says the job has nothing to tune (no tunable
 * parameter, or one legal configuration): the job's verdict, not a failure
 * (an unusable declaration is one). */
int aoe_space_nothing_to_tune(const char *err);

/* Every configuration that satisfies the constraints, as the strategies see it.
 * The arrays stay owned by sp. */
const aoe_search_space *aoe_space_configs(const aoe_space *sp);

/* The policy of configuration row `config`: named values (-D flags for
 * declared and auto-detected parameters) and the derived work sizes. */
int aoe_space_policy(const aoe_space *sp, const aoe_job *job, size_t config, aoe_policy *out);

/* Per-variant tolerances from the tunables file (defaults when undeclared). */
typedef struct {
    double rel_l2;  /* relative L2 error bound for float outputs */
    double max_abs; /* max absolute error bound for float outputs */
    bool exact;     /* require bit-exact outputs (auto-detected defines) */
} aoe_tolerance;
aoe_tolerance aoe_space_tolerance(const aoe_space *sp);

/* Human description ("WG0 in {1,2,4..} x TS in {..}: 123 configurations"). */
const char *aoe_space_describe(const aoe_space *sp);

/* Defaults when a tunables file declares no tolerance. */
#define AOE_TOLERANCE_REL_L2 1e-4
#define AOE_TOLERANCE_MAX_ABS 1e-2

/* Raw combinations (product of the value-list sizes) a space may have. */
#define AOE_SPACE_MAX_COMBINATIONS 4000000

/* The row whose declared and auto-detected parameters all sit at their
 * defaults (the program's own policy), or -1 (e.g. work-group size tuning,
 * whose default is the NULL local size, not a row). */
long aoe_space_default_config(const aoe_space *sp);

#endif
