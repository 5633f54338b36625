/* Build options as a list and as one string. OpenCL takes one string, NVRTC
 * a list; the job keeps both. The list is the string split at white space,
 * which is also what the operator key hashes (store/opkey.c normalises runs
 * of white space), so a list joined back with single spaces keys the same. */
#include "jobs/job.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

int aoe_job_options_split(const char *options, char ***out)
{
    *out = NULL;
    int n = 0, cap = 0;
    char **list = NULL;
    for (const char *p = options ? options : ""; *p;) {
        while (*p && isspace((unsigned char)*p)) p++;
        const char *start = p;
        while (*p && !isspace((unsigned char)*p)) p++;
        if (p == start) break;
        if (n == cap) {
            cap = cap ? cap * 2 : 8;
            char **grown = realloc(list, (size_t)cap * sizeof *list);
            if (!grown) goto oom;
            list = grown;
        }
        if (!(list[n] = strndup(start, (size_t)(p - start)))) goto oom;
        n++;
    }
    *out = list;
    return n;
oom:
    aoe_job_options_free(list, (uint32_t)n);
    return -1;
}

char *aoe_job_options_join(char *const *list, uint32_t n)
{
    size_t len = 1;
    for (uint32_t i = 0; i < n; i++) len += strlen(list[i]) + 1;
    char *s = malloc(len), *w = s;
    if (!s) return NULL;
    for (uint32_t i = 0; i < n; i++) {
        if (i) *w++ = ' ';
        size_t l = strlen(list[i]);
        memcpy(w, list[i], l);
        w += l;
    }
    *w = '\0';
    return s;
}

void aoe_job_options_free(char **list, uint32_t n)
{
    for (uint32_t i = 0; list && i < n; i++) free(list[i]);
    free(list);
}

aoe_job_prog_kind aoe_job_program_kind(const aoe_job *job)
{
    if (job->program_kind == AOE_JOB_PROG_SOURCE && !job->source && job->binary)
        return AOE_JOB_PROG_BINARY;
    return job->program_kind;
}
