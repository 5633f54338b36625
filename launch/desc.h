/* The runtime-neutral description of one launch, filled by a hook when a
 * launch's shape missed the shape cache (never on the steady state): the
 * kernel's identity, its program, the launch sizes and the argument shapes,
 * plus the runtime's callbacks for what only it can read (device limits,
 * buffer contents). From it the launch core computes the operator key, finds
 * or creates the operator and, at its first sight, decides on a capture and
 * assembles the tuning job. */
#ifndef AOE_LAUNCH_DESC_H
#define AOE_LAUNCH_DESC_H

#include "jobs/job.h"
#include "store/opkey.h"

#include <stddef.h>
#include <stdint.h>

struct aoe_launch_desc;

/* What only the runtime can answer, called at an operator's first sight. */
typedef struct {
    /* The device's work-group limits (0: unknown). */
    void (*limits)(const struct aoe_launch_desc *d, uint64_t *max_wg, uint64_t max_item[3]);
    /* Buffer argument i of a job being captured: ja->kind and ja->size are
     * set; the hook sets ja->flags and ja->data (malloc'ed contents up to
     * limit bytes, or NULL: replayed with synthetic data). A grid launch's
     * buffers are keyed by kind only (size 0): its hook sets ja->size too.
     * Image and sampler arguments come here too (ja->kind IMAGE or SAMPLER):
     * the hook sets the descriptor or properties and an image's size. */
    void (*buffer)(const struct aoe_launch_desc *d, uint32_t i, aoe_job_arg *ja, uint64_t limit);
    /* The element type of argument i, filled (kind, size, data) as above;
     * NULL or AOE_ELEM_BYTES when the runtime cannot tell. */
    aoe_elem_type (*elem)(const struct aoe_launch_desc *d, uint32_t i, const aoe_job_arg *ja);
} aoe_launch_runtime;

typedef struct aoe_launch_desc {
    const aoe_launch_runtime *rt;
    void *rt_ctx;            /* the hook's, for rt's callbacks */
    const char *runtime;     /* job runtime name, e.g. "opencl" */
    const char *fingerprint; /* device fingerprint (interned, never freed) */
    uint64_t kpart;          /* kernel part of the key (aoe_opkey_kernel) */
    const char *kernel_name;
    /* the program: source (NUL-terminated) or binary */
    const char *source;
    const unsigned char *binary;
    size_t binary_len;
    const char *options; /* build options ("" if none) */
    aoe_hash128 program_hash;
    /* the launch: global and local (OpenCL), later grid and block */
    uint32_t dim; /* 1..3 */
    const size_t *global;
    const size_t *local; /* NULL: the program gave none */
    uint32_t nargs;
    const aoe_arg_shape *shapes; /* per argument; scalars' bytes in shapes[i].bytes */
    /* Zero for OpenCL. A grid launch (AOE_LAUNCH_GRID_BLOCK, CUDA): global is
     * the grid (blocks), local the block (threads per block), always given;
     * a policy is checked against threads (grid x block) and block. */
    int launch_kind;                /* aoe_job_launch_kind */
    uint64_t dynamic_shared_bytes;  /* per block, beyond the program's own */
    const char *const *option_list; /* the options as the compiler saw them (NULL: split) */
    uint32_t noptions;
    const char *runtime_extra; /* the job's runtime_extra (JSON object text), or NULL */
    int not_capturable; /* AOE_NT_*: the operator is made, never captured (e.g. graph capture) */
} aoe_launch_desc;

/* 1 when every argument was set (else the runtime reports the launch). */
static inline int aoe_launch_args_set(uint32_t nargs, const aoe_arg_shape *shapes)
{
    for (uint32_t i = 0; i < nargs; i++)
        if (shapes[i].kind == AOE_ARGK_UNSET) return 0;
    return 1;
}

#endif
