/* A tuning job: everything needed to replay one operator in another process or
 * on another machine. A job is one JSON file (format in the README, section
 * "Job files"); the shim writes it, `aoe tune` reads it. */
#ifndef AOE_JOB_H
#define AOE_JOB_H

#include "store/record.h"

#include <stddef.h>
#include <stdint.h>

#define AOE_JOB_FORMAT 1

typedef enum {
    AOE_JOB_ARG_SCALAR = 0, /* bytes by value */
    AOE_JOB_ARG_BUFFER = 1, /* memory object: size, flags, contents or synthetic */
    AOE_JOB_ARG_LOCAL = 2,  /* local memory of `size` bytes */
    AOE_JOB_ARG_NULLMEM = 3 /* NULL memory object */
} aoe_job_arg_kind;

typedef struct {
    aoe_job_arg_kind kind;
    uint64_t size;  /* scalar bytes, buffer bytes, local bytes */
    uint64_t flags; /* buffer: the runtime's memory flags (cl_mem_flags) */
    uint8_t *data;  /* scalar value; buffer contents, NULL = synthetic */
} aoe_job_arg;

typedef struct {
    int format;        /* AOE_JOB_FORMAT */
    char *runtime;     /* "opencl" */
    char *fingerprint; /* device fingerprint */
    char *source;      /* program source (sources concatenated), or NULL */
    uint8_t *binary;   /* program binary when created from binary, or NULL */
    uint64_t binary_size;
    char *options; /* the program's own build options ("" if none) */
    char *kernel_name;
    uint32_t work_dim;
    uint64_t global[3];
    uint64_t local[3];
    int has_local; /* 0: the program passed NULL */
    uint32_t nargs;
    aoe_job_arg *args;
    aoe_key key;        /* operator key the result is stored under */
    char *call_site;    /* "libfoo.so:function" of the launching code, or NULL */
    char *space_json;   /* optional explicit search space (JSON text), or NULL */
    uint32_t max_evals; /* budgets; 0 = the tuner's default */
    double time_limit_s;
    int repeat_tune; /* 1: captured under REPEAT_TUNE=True (tune even if the bank knows it) */
} aoe_job;

/* Reader limits (a job beyond them is rejected, naming the field). */
#define AOE_JOB_MAX_ARGS 1024
#define AOE_JOB_MAX_SCALAR 65536 /* bytes of one scalar argument (structs by value) */
#define AOE_JOB_MAX_NAME 4096    /* characters of the kernel name */

/* Reads and validates a job file. Returns 0, or -1 with a message naming the
 * field at fault (e.g. "args[2].size: expected a non-negative integer"). */
int aoe_job_read(const char *path, aoe_job *job, char *err, size_t errlen);
/* The same from an open descriptor (not closed; the caller checked who owns
 * it); path only names the file in messages. */
int aoe_job_read_fd(int fd, const char *path, aoe_job *job, char *err, size_t errlen);
int aoe_job_parse(const char *text, size_t len, aoe_job *job, char *err, size_t errlen);

/* Writes atomically (temp file + rename, mode 0600). Returns 0 or -1 (errno). */
int aoe_job_write(const char *path, const aoe_job *job);
/* The same relative to the directory dfd (AT_FDCWD: the working directory). */
int aoe_job_write_at(int dfd, const char *path, const aoe_job *job);

/* Frees everything a job owns (not the struct itself). */
void aoe_job_free(aoe_job *job);

/* The operator key as the shim computes it for this job's launch. */
aoe_key aoe_job_compute_key(const aoe_job *job);

#endif
