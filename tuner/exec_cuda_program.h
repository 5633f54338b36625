/* The CUDA kernel job's program as the executor (tuner/exec_cuda.c)
 * compiles it: its runtime_extra and the option list of one variant. No CUDA
 * header: plain text in, plain text out (tests/unit/test_exec_cuda.c). */
#ifndef AOE_EXEC_CUDA_PROGRAM_H
#define AOE_EXEC_CUDA_PROGRAM_H

#include "jobs/job.h"

#include <stddef.h>

/* The job's runtime_extra (docs/formats.md, "CUDA kernel jobs"). */
typedef struct {
    int n_headers;
    char **header_names, **header_sources;
    int want_ptx;        /* "image": "ptx" (the program loaded PTX) */
    char *nvrtc_library; /* the libnvrtc the program used, or NULL */
} aoe_cuda_extra;

/* Reads job->runtime_extra (NULL: all defaults). 0, or -1 with why in err. */
int aoe_cuda_extra_parse(const char *json, aoe_cuda_extra *out, char *err, size_t errlen);
void aoe_cuda_extra_free(aoe_cuda_extra *e);

/* The compiler options of a variant: the job's own option list (its
 * option_list, else job->options split) minus any -arch/--gpu-architecture
 * option, then --gpu-architecture=sm_<major><minor> of the device (keeping an
 * `a`/`f` suffix the job asked for on that same architecture), then what
 * `options` adds after the job's options (the variant's -D values, one
 * entry each). *out: a malloc'd NULL-terminated array of malloc'd strings
 * (aoe_cuda_options_free); its count is returned, -1 when out of memory. */
int aoe_cuda_options(const aoe_job *job, const char *options, int cc_major, int cc_minor,
                     char ***out);
void aoe_cuda_options_free(char **opts);

#endif
