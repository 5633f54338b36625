/* A tuning job: everything needed to replay one operator in another process or
 * on another machine. A job is one JSON file (docs/formats.md, "Job files");
 * the shim writes it, `aoe tune` reads it. Format 2 is written; format 1 is
 * still read and maps onto the same in-memory job. */
#ifndef AOE_JOB_H
#define AOE_JOB_H

#include "core/elem_type.h"
#include "store/record.h"

#include <stddef.h>
#include <stdint.h>

#define AOE_JOB_FORMAT 2     /* the format written */
#define AOE_JOB_FORMAT_MIN 1 /* the oldest format read */

typedef enum {
    AOE_JOB_ARG_SCALAR = 0,  /* bytes by value */
    AOE_JOB_ARG_BUFFER = 1,  /* memory object: size, flags, contents or synthetic */
    AOE_JOB_ARG_LOCAL = 2,   /* local memory of `size` bytes */
    AOE_JOB_ARG_NULLMEM = 3, /* NULL memory object */
    AOE_JOB_ARG_IMAGE = 4,   /* image object: descriptor, flags, contents or synthetic */
    AOE_JOB_ARG_SAMPLER = 5  /* sampler object: its properties */
} aoe_job_arg_kind;

/* An image argument's descriptor, in the runtime's own numbers (OpenCL:
 * cl_mem_object_type, cl_channel_order, cl_channel_type; an extent the type
 * lacks is 0, as clGetImageInfo says). Contents are tightly packed: row
 * pitch width x pixel_bytes, slice pitch row x height; the argument's size
 * is aoe_job_image_bytes. */
typedef struct {
    uint32_t type;
    uint32_t order;
    uint32_t data_type;
    uint32_t pixel_bytes; /* bytes per pixel of that order and data type */
    uint64_t width, height, depth, array_size;
} aoe_job_image;

/* A sampler argument's properties, in the runtime's own numbers (OpenCL:
 * CL_SAMPLER_NORMALIZED_COORDS, cl_addressing_mode, cl_filter_mode). */
typedef struct {
    uint32_t normalized; /* 0 or 1 */
    uint32_t addressing;
    uint32_t filter;
} aoe_job_sampler;

typedef struct {
    aoe_job_arg_kind kind;
    uint64_t size;           /* scalar bytes, buffer bytes, local bytes, image bytes; sampler 0 */
    uint64_t flags;          /* buffer, image: the runtime's memory flags (OpenCL: cl_mem_flags) */
    uint8_t *data;           /* scalar value; buffer or image contents, NULL = synthetic */
    aoe_elem_type elem;      /* element type of the data (BYTES: unknown); size is a multiple */
    aoe_job_image image;     /* IMAGE only */
    aoe_job_sampler sampler; /* SAMPLER only */
} aoe_job_arg;

/* Bytes of an image's packed contents: width x height x depth x array_size
 * x pixel_bytes, each extent that is 0 counted as 1; 0 on overflow. */
uint64_t aoe_job_image_bytes(const aoe_job_image *im);
/* The image's extent in the operator key (aoe_opkey_image_extent). */
uint64_t aoe_job_image_extent(const aoe_job_image *im);

/* 1 for the kinds with device memory and contents (BUFFER, IMAGE): what the
 * run protocol creates, resets, reads back and verifies. */
static inline int aoe_job_arg_has_memory(aoe_job_arg_kind k)
{
    return k == AOE_JOB_ARG_BUFFER || k == AOE_JOB_ARG_IMAGE;
}

/* What the job replays. The zero values are what format 1 could express. */
typedef enum {
    AOE_OP_KERNEL = 0,      /* a kernel launch: program, entry, launch sizes */
    AOE_OP_LIBRARY_CALL = 1 /* a library call (e.g. "gemm"): no program, no launch */
} aoe_job_op;

typedef enum {
    AOE_JOB_PROG_SOURCE = 0, /* text in `source` */
    AOE_JOB_PROG_BINARY = 1, /* bytes in `binary` (the runtime's own binary) */
    AOE_JOB_PROG_PTX = 2,    /* text in `source` */
    AOE_JOB_PROG_CUBIN = 3   /* bytes in `binary` */
} aoe_job_prog_kind;

typedef enum {
    AOE_LAUNCH_GLOBAL_LOCAL = 0, /* global = work items in all, local = per group (OpenCL) */
    AOE_LAUNCH_GRID_BLOCK = 1    /* grid = blocks, block = threads per block (CUDA) */
} aoe_job_launch_kind;

/* The settings of the program that queued the job (runtime_extra.settings,
 * mapped by the codec as mem_flags is: a reader that does not know it keeps
 * it verbatim and ignores it). One tuner serves every program of a spool,
 * started in the environment of one of them; a tuner serving a spool uses
 * these for the job instead of its own (docs/formats.md). */
typedef struct {
    int present;         /* the job says them; else the tuner's own apply */
    char *bank;          /* TUNE_BANK_PATH as an absolute path, or NULL (not said) */
    char *tunables;      /* AOE_TUNABLES with every path absolute ("": none) */
    int auto_defines;    /* AOE_AUTO_DEFINES */
    uint32_t max_evals;  /* AOE_MAX_EVALS when its environment set it, else 0 */
    double time_limit_s; /* AOE_TIME_LIMIT likewise, else 0 */
} aoe_job_settings;

typedef struct {
    int format;        /* the format the job was read from (AOE_JOB_FORMAT when made) */
    char *runtime;     /* "opencl": a short identifier, [a-z][a-z0-9_]{0,31} */
    char *fingerprint; /* device fingerprint */
    char *source;      /* program text (SOURCE: sources concatenated; PTX), or NULL */
    uint8_t *binary;   /* program bytes (BINARY, CUBIN), or NULL */
    uint64_t binary_size;
    char *options;     /* build options as one string ("" if none) */
    char *kernel_name; /* the program's entry; for a library call, its name ("gemm") */
    uint32_t work_dim; /* launch dimensions (0 for a library call) */
    union {
        uint64_t global[3]; /* AOE_LAUNCH_GLOBAL_LOCAL */
        uint64_t grid[3];   /* AOE_LAUNCH_GRID_BLOCK */
    };
    union {
        uint64_t local[3];
        uint64_t block[3];
    };
    int has_local; /* 0: the program passed NULL (always 1 for a grid launch) */
    uint32_t nargs;
    aoe_job_arg *args;
    aoe_key key;        /* operator key the result is stored under */
    char *call_site;    /* "libfoo.so:function" of the launching code, or NULL */
    char *space_json;   /* optional explicit search space (JSON text), or NULL */
    uint32_t max_evals; /* budgets; 0 = the tuner's default */
    double time_limit_s;
    int repeat_tune; /* 1: captured under REPEAT_TUNE=True (tune even if the bank knows it) */
    /* Format 2. A job made in memory may leave these zero: SOURCE or BINARY
     * then follows which of source/binary is set, and the writer splits
     * `options` when option_list is NULL. */
    aoe_job_op op;
    aoe_job_prog_kind program_kind;
    char **option_list; /* the options as the compiler sees them (split at white space) */
    uint32_t noptions;
    aoe_job_launch_kind launch_kind;
    uint64_t dynamic_shared_bytes; /* per block / work-group, beyond the program's own */
    char *runtime_extra; /* JSON object text: per-runtime fields the codec does not map, or NULL */
    aoe_job_settings settings; /* format 2, optional; not part of the key */
} aoe_job;

/* Reader limits (a job beyond them is rejected, naming the field). */
#define AOE_JOB_MAX_ARGS 1024
#define AOE_JOB_MAX_SCALAR 65536        /* bytes of one scalar argument (structs by value) */
#define AOE_JOB_MAX_NAME 4096           /* characters of the kernel name */
#define AOE_JOB_MAX_RUNTIME 32          /* characters of the runtime name */
#define AOE_JOB_MAX_CALL 64             /* characters of a library call's name */
#define AOE_JOB_MAX_OPTIONS 4096        /* entries of the option list */
#define AOE_JOB_MAX_EXTRA (1 << 20)     /* bytes of runtime_extra as compact JSON */
#define AOE_JOB_MAX_SHARED 4294967295.0 /* dynamic shared memory bytes */
#define AOE_JOB_MAX_BANK 4095           /* characters of settings.bank */
#define AOE_JOB_MAX_TUNABLES 16384      /* characters of settings.tunables */

/* Reads and validates a job file. Returns 0, or -1 with a message naming the
 * field at fault (e.g. "args[2].size: expected a non-negative integer"). */
int aoe_job_read(const char *path, aoe_job *job, char *err, size_t errlen);
/* The same from an open descriptor (not closed; the caller checked who owns
 * it); path only names the file in messages. */
int aoe_job_read_fd(int fd, const char *path, aoe_job *job, char *err, size_t errlen);
int aoe_job_parse(const char *text, size_t len, aoe_job *job, char *err, size_t errlen);

/* Writes format 2 atomically (temp file + rename, mode 0600). Returns 0 or -1
 * (errno; EINVAL for a job the reader would refuse). */
int aoe_job_write(const char *path, const aoe_job *job);
/* The same relative to the directory dfd (AT_FDCWD: the working directory). */
int aoe_job_write_at(int dfd, const char *path, const aoe_job *job);

/* Frees everything a job owns (not the struct itself). */
void aoe_job_free(aoe_job *job);

/* The operator key as the shim computes it for this job's launch: the same
 * for a format 1 and a format 2 file of one launch. */
aoe_key aoe_job_compute_key(const aoe_job *job);

/* Keys across runs (docs/design.md): 1 when the job's launch has a family
 * key (an OpenCL-style launch with a NULL local size, not a library call). */
int aoe_job_has_family(const aoe_job *job);
/* Its family key (aoe_opkey_family; scalars whose bit is in keep_scalars by
 * value), as the shim computes it for the launch; {0,0} when it has none. */
aoe_key aoe_job_family_key(const aoe_job *job, uint64_t keep_scalars);
/* 1 when policy p may be served through a family key: it sets the work sizes
 * only (correct for any scalar values), or the kernel's declaration names
 * the scalars its tunables depend on (scalars_declared: keyed by value). */
int aoe_family_policy_ok(const aoe_policy *p, int scalars_declared);
/* Its kernel part (aoe_opkey_kernel of the fingerprint with what format 1
 * could not say, the program, the entry and the options), for a hook that
 * keys its launches as aoe_job_compute_key keys the job. *oom: out of memory.
 * A grid launch's (AOE_LAUNCH_GRID_BLOCK) buffer arguments are keyed by kind
 * only (extent 0). */
uint64_t aoe_job_kernel_part(const aoe_job *job, int *oom);

/* The launch in threads, as the tuner speaks of sizes (tunables rules'
 * G0..G2 and L0..L2, policies, aoe_exec_launch): global = work items in
 * all, local = per group. A GRID_BLOCK job's global is grid x block and its
 * local its block (has_local always 1); a GLOBAL_LOCAL job's are its own. */
void aoe_job_launch_sizes(const aoe_job *job, uint64_t global[3], uint64_t local[3],
                          int *has_local);

/* The program kind, SOURCE or BINARY following which of source/binary is set
 * when program_kind was left zero. */
aoe_job_prog_kind aoe_job_program_kind(const aoe_job *job);

/* Build options split at white space, as the compiler sees them (the
 * whitespace-separated form is what the operator key hashes). Returns the
 * number of entries in *out (each malloc'd, *out too; NULL when 0), or -1
 * when out of memory. */
int aoe_job_options_split(const char *options, char ***out);
/* The entries joined with single spaces (malloc'd), or NULL when out of memory. */
char *aoe_job_options_join(char *const *list, uint32_t n);
void aoe_job_options_free(char **list, uint32_t n);

#endif
