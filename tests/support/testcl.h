/* Shared code of the test clients (tests/clients/): OpenCL set-up on the
 * first device, argument recording, timed launches with profiling events,
 * result checks, output checksums, and emission of the client's own tuning
 * job. The clients are ordinary OpenCL programs; AOE's shim must see them
 * exactly as it sees any other program. */
#ifndef AOE_TESTCL_H
#define AOE_TESTCL_H

#include "store/record.h"
#include "jobs/job.h"

#include <CL/cl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#define TC_MAX_ARGS 16

typedef struct {
    int checksum;          /* --checksum: print "checksum=<16 hex>" of the output */
    int repeat;            /* --repeat N: launches (default 1) */
    const char *emit_job;  /* --emit-job PATH */
    const char *options;   /* --options STR: the program's build options */
    const char *check_job; /* --check-job PATH: read a job back and build its space */
} tc_opts;

typedef struct {
    cl_platform_id platform;
    cl_device_id device;
    cl_context ctx;
    cl_command_queue queue;
    char fingerprint[AOE_FINGERPRINT_LEN];
    cl_program program;
    char *source; /* exactly the text given to clCreateProgramWithSource */
    char *options;
    char kernel_name[AOE_KERNEL_NAME_LEN];
    aoe_job_arg args[TC_MAX_ARGS]; /* recorded as set, for --emit-job */
    uint32_t nargs;
    uint32_t work_dim;
    size_t global[3], local[3];
    int has_local;
} tc_env;

/* Parses one common option at argv[*i] (advancing *i past its value).
 * Returns 1 if consumed, 0 if not a common option, -1 on a bad value. */
int tc_common_option(int argc, char **argv, int *i, tc_opts *o);
/* Usage text of the common options. */
extern const char tc_common_usage[];

/* A client's own size option: "--name" and the positive integer it sets. */
typedef struct {
    const char *name;
    long *value;
} tc_size_opt;

/* Parses the whole command line: common options, then the client's size
 * options (NULL-terminated). Returns 0 to run, 1 after printing --help, 2 on
 * a usage error (usage printed on stderr). */
int tc_parse_args(int argc, char **argv, tc_opts *o, const tc_size_opt *sizes,
                  void (*usage)(FILE *));

/* First platform, first device, a profiling queue and the device fingerprint
 * (CL_PLATFORM_VENDOR, CL_DEVICE_NAME, CL_DRIVER_VERSION,
 * CL_DEVICE_MAX_COMPUTE_UNITS, the same four queries as the shim and the
 * executor). Exits 1 with a message on failure. */
void tc_init(tc_env *e);
void tc_release(tc_env *e);

/* Builds tests/kernels/<file> with options and creates kernel `name`. */
cl_kernel tc_build(tc_env *e, const char *file, const char *name, const char *options);

cl_mem tc_buffer(tc_env *e, cl_mem_flags flags, size_t size, const void *host);

/* clSetKernelArg, recorded for the job. contents: the buffer's data at launch
 * time, or NULL to mark it synthetic (an output the kernel overwrites). */
void tc_arg_scalar(tc_env *e, cl_kernel k, cl_uint idx, size_t size, const void *value);
void tc_arg_buffer(tc_env *e, cl_kernel k, cl_uint idx, cl_mem m, size_t size, cl_mem_flags flags,
                   const void *contents);
void tc_arg_local(tc_env *e, cl_kernel k, cl_uint idx, size_t size);

/* Launches `repeat` times (local may be NULL); returns the median kernel
 * time in microseconds from the profiling events. */
double tc_run(tc_env *e, cl_kernel k, cl_uint dim, const size_t *global, const size_t *local,
              int repeat);

void tc_read(tc_env *e, cl_mem m, size_t size, void *out);

/* Writes the job of the last launch (key computed as the shim does). Exits 1
 * with a message when it cannot be written. */
void tc_emit_job(tc_env *e, const char *path);

/* Reads a job with aoe_job_read, checks it is this launch's (fingerprint,
 * kernel, key), builds its search space with this device's and kernel's
 * limits and etc/tunables, and prints "job ok: ...". Returns 0, or 1 with
 * the reader's message. */
int tc_check_job(tc_env *e, cl_kernel k, const char *path);

/* Deterministic pseudo-random data; int_valued: small integers as floats, so
 * sums are exact in float. */
void tc_fill(float *p, size_t n, uint32_t seed, int int_valued);

/* Compares within rel (relative to the largest magnitude of want); prints the
 * first mismatch and returns 1, or 0 when equal within tolerance. */
int tc_compare(const char *what, const float *got, const float *want, size_t n, double rel);

/* Prints "checksum=<16 hex>" of the bytes. */
void tc_print_checksum(const void *data, size_t len);

/* Parses a positive integer option value or exits 2 with a usage message. */
long tc_parse_positive(const char *prog, const char *opt, const char *value);

#endif
