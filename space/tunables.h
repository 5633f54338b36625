/* Tunables declarations: JSON files (etc/tunables/NAME.json, AOE_TUNABLES) that
 * name a kernel, its parameters with value lists and defaults, constraints,
 * rules deriving global/local sizes, and verification tolerances. Format in
 * the README, section "Tuning jobs and search spaces". */
#ifndef AOE_TUNABLES_H
#define AOE_TUNABLES_H

#include "store/opkey.h"
#include "store/record.h"
#include "space/expr.h"
#include "space/space.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AOE_TUNABLES_MAX_CONSTRAINTS 32
#define AOE_TUNABLES_MAX_FILE (4u << 20) /* bytes: a declaration file is small */

typedef struct {
    char name[AOE_NAME_LEN];
    int n_values;
    int64_t values[AOE_SPACE_MAX_VALUES]; /* ascending, distinct */
    int64_t def;                          /* one of values */
} aoe_tunable_param;

/* The runtimes a declaration may name ("runtime"; absent: opencl). */
#define AOE_TUNABLES_RUNTIMES "opencl|cuda"
#define AOE_TUNABLES_RUNTIME_LEN 16

typedef struct {
    char kernel[AOE_KERNEL_NAME_LEN];
    char runtime[AOE_TUNABLES_RUNTIME_LEN]; /* "opencl" or "cuda": whose kernels it matches */
    char source_hash[33];  /* "" or 32 hex digits of aoe_program_hash (hi then lo) */
    char *source_contains; /* NULL or a substring the source must contain */
    char origin[256];      /* "file.json: kernels[2]" for messages */
    int n_params;
    aoe_tunable_param params[AOE_MAX_PARAMS];
    int n_constraints;
    aoe_expr *constraints[AOE_TUNABLES_MAX_CONSTRAINTS];
    aoe_expr *global_rule[3];          /* NULL: the program's global size */
    aoe_expr *local_rule[3];           /* NULL: the program's (or work-group tuning's) local size */
    int n_global_rules, n_local_rules; /* 0 or the number of dimensions given */
    double rel_l2, max_abs;            /* < 0: not declared */
    /* "scalars": the argument indexes (< 64) of the scalars its tunables'
     * best values depend on; declared (has_scalars) even when empty. Then a
     * policy is served across runs to launches with equal values of these
     * (keys across runs, docs/design.md). */
    int has_scalars;
    uint64_t scalars;
} aoe_tunable_kernel;

typedef struct {
    int n;
    aoe_tunable_kernel *k;
} aoe_tunables;

/* Names an expression in a rule may use besides the parameters: the program's
 * global (G0..G2) and local (L0..L2, 0 when NULL) sizes. */
extern const char *const aoe_tunables_size_names[6];

/* Parses one declaration file's text; origin names it in messages. Appends
 * to *out (start from a zeroed aoe_tunables; free it with aoe_tunables_free
 * whatever the result). Returns 0, or -1 with one message naming the origin
 * and the field at fault (nothing of the bad file is appended). */
int aoe_tunables_parse(const char *text, size_t len, const char *origin, aoe_tunables *out,
                       char *err, size_t errlen);
int aoe_tunables_read(const char *path, aoe_tunables *out, char *err, size_t errlen);

/* Parses one kernel declaration object (a job's "space"); kernel name optional. */
int aoe_tunables_parse_kernel_json(const char *json, const char *origin, aoe_tunable_kernel *k,
                                   char *err, size_t errlen);

/* Reads every *.json of dir (sorted by name; a missing dir is fine), then the
 * ':'-separated files of extra (each must exist). */
int aoe_tunables_load(const char *dir, const char *extra, aoe_tunables *out, char *err,
                      size_t errlen);

/* The last declaration for runtime (NULL or "": opencl) matching the kernel
 * name and, when declared, source hash and source substring (later files
 * override earlier ones), or NULL. */
const aoe_tunable_kernel *aoe_tunables_match(const aoe_tunables *t, const char *runtime,
                                             const char *kernel, const char *source,
                                             aoe_hash128 program);

/* The declaration a search space was built from (space.c), or NULL. */
const aoe_tunable_kernel *aoe_space_declaration(const aoe_space *sp);

void aoe_tunable_kernel_clear(aoe_tunable_kernel *k);
void aoe_tunables_free(aoe_tunables *t);

#endif
