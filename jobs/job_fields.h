/* Job reader internals shared by the format 1 and format 2 parsers: typed
 * field readers that name the field at fault. Not part of the jobs/ API. */
#ifndef AOE_JOB_FIELDS_H
#define AOE_JOB_FIELDS_H

#include "jobs/job.h"

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

/* Integers are JSON numbers (doubles): beyond 2^53 they are not exact. */
#define AOE_JOB_MAX_INT 9007199254740992.0
/* Image descriptors: bytes per pixel (the widest format, RGBA of 32-bit
 * channels, has 16) and each extent (OpenCL's are size_t; 2^32-1 fits both). */
#define AOE_JOB_MAX_PIXEL 16
#define AOE_JOB_MAX_IMAGE_EXTENT 4294967295.0

/* An integer in [min, max]. Returns 0, or -1 with a message. */
int aoe_jf_uint(const cJSON *it, const char *field, double min, double max, uint64_t *out,
                char *err, size_t errlen);
/* Copies the string member `name` of obj (field: its name in messages).
 * Required: missing is an error; optional: missing or null gives *out = NULL.
 * maxlen 0: no limit. */
int aoe_jf_string(const cJSON *obj, const char *name, const char *field, int required,
                  size_t maxlen, char **out, char *err, size_t errlen);
/* Decodes a base64 string item of exactly `expect` bytes (0 = any). */
int aoe_jf_b64(const cJSON *it, const char *field, uint64_t expect, uint8_t **out, uint64_t *outlen,
               char *err, size_t errlen);
/* Refuses members not in `known` (a typo must not pass silently) and members
 * that appear twice (which one counts would be a guess). */
int aoe_jf_known(const cJSON *obj, const char *const *known, const char *prefix, char *err,
                 size_t errlen);
/* An array of exactly n sizes, each 1..2^53, into out. */
int aoe_jf_sizes(const cJSON *it, const char *field, uint32_t n, uint64_t out[3], char *err,
                 size_t errlen);
/* The "args" array of root. Format 1 arguments carry "flags", format 2
 * arguments "type". */
int aoe_jf_args(const cJSON *root, aoe_job *job, int format, char *err, size_t errlen);

/* Format 2's image and sampler arguments (kind already read as "image" /
 * "sampler"): the descriptor or properties, contents as a buffer's. */
int aoe_jf_image_arg(const cJSON *a, uint32_t i, aoe_job_arg *arg, char *err, size_t errlen);
int aoe_jf_sampler_arg(const cJSON *a, uint32_t i, aoe_job_arg *arg, char *err, size_t errlen);

/* The two format bodies: everything but the envelope. */
int aoe_job_parse_v1(const cJSON *root, aoe_job *job, char *err, size_t errlen);
int aoe_job_parse_v2(const cJSON *root, aoe_job *job, char *err, size_t errlen);

#endif
