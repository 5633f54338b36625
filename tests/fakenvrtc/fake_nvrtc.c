/* The fake libnvrtc.so.13 (and .so.12: FN_MAJOR): NVRTC's API over
 * fn_compile (README.md). Each program is its own object: nothing here is
 * shared between threads. A program carries the library that made it, and
 * a call with another library's program is refused (the real one would
 * crash): two versions loaded in one process must each get their own. */
#include "fn_compile.h"

#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FN_EXPORT __attribute__((visibility("default")))

#ifndef FN_MAJOR
#define FN_MAJOR 13
#endif

static const char g_self; /* this library: its address tags its programs */

struct _nvrtcProgram {
    const char *owner; /* &g_self of the library that made it */
    char *name, *source;
    int n_headers;
    char **headers, **include_names;
    int n_exprs;
    char **exprs;
    int compiled; /* 0: not yet; 1: compiled; -1: failed */
    char *log;    /* after a compilation ("" on success) */
    char *cubin;  /* NULL: compiled for a virtual architecture */
    char *ptx;
    fn_output out;
};

/* Not one of this library's programs: said, and refused. */
static int foreign(nvrtcProgram p)
{
    if (!p || p->owner == &g_self) return 0;
    fprintf(stderr, "fake libnvrtc.so.%d: a program of another libnvrtc\n", FN_MAJOR);
    return 1;
}

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

FN_EXPORT const char *nvrtcGetErrorString(nvrtcResult result)
{
    static const char *const names[] = {"NVRTC_SUCCESS",
                                        "NVRTC_ERROR_OUT_OF_MEMORY",
                                        "NVRTC_ERROR_PROGRAM_CREATION_FAILURE",
                                        "NVRTC_ERROR_INVALID_INPUT",
                                        "NVRTC_ERROR_INVALID_PROGRAM",
                                        "NVRTC_ERROR_INVALID_OPTION",
                                        "NVRTC_ERROR_COMPILATION",
                                        "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE",
                                        "NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION",
                                        "NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION",
                                        "NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID",
                                        "NVRTC_ERROR_INTERNAL_ERROR",
                                        "NVRTC_ERROR_TIME_FILE_WRITE_FAILED",
                                        "NVRTC_ERROR_NO_PCH_CREATE_ATTEMPTED",
                                        "NVRTC_ERROR_PCH_CREATE_HEAP_EXHAUSTED",
                                        "NVRTC_ERROR_PCH_CREATE",
                                        "NVRTC_ERROR_CANCELLED",
                                        "NVRTC_ERROR_TIME_TRACE_FILE_WRITE_FAILED"};
    unsigned r = (unsigned)result;
    return r < sizeof names / sizeof names[0] ? names[r] : "NVRTC_ERROR unknown";
}

FN_EXPORT nvrtcResult nvrtcVersion(int *major, int *minor)
{
    if (!major || !minor) return NVRTC_ERROR_INVALID_INPUT;
    *major = FN_MAJOR;
    *minor = 0;
    return NVRTC_SUCCESS;
}

FN_EXPORT nvrtcResult nvrtcGetNumSupportedArchs(int *numArchs)
{
    if (!numArchs) return NVRTC_ERROR_INVALID_INPUT;
    *numArchs = fn_n_supported_archs;
    return NVRTC_SUCCESS;
}

FN_EXPORT nvrtcResult nvrtcGetSupportedArchs(int *supportedArchs)
{
    if (!supportedArchs) return NVRTC_ERROR_INVALID_INPUT;
    memcpy(supportedArchs, fn_supported_archs, sizeof(int) * (size_t)fn_n_supported_archs);
    return NVRTC_SUCCESS;
}

static void free_program(nvrtcProgram p)
{
    for (int i = 0; i < p->n_headers; i++) {
        free(p->headers[i]);
        free(p->include_names[i]);
    }
    for (int i = 0; i < p->n_exprs; i++) free(p->exprs[i]);
    free(p->headers);
    free(p->include_names);
    free(p->exprs);
    free(p->name);
    free(p->source);
    free(p->log);
    free(p->cubin);
    free(p->ptx);
    free(p);
}

FN_EXPORT nvrtcResult nvrtcCreateProgram(nvrtcProgram *prog, const char *src, const char *name,
                                         int numHeaders, const char *const *headers,
                                         const char *const *includeNames)
{
    if (!prog || !src || numHeaders < 0 || (numHeaders > 0 && (!headers || !includeNames)))
        return NVRTC_ERROR_INVALID_INPUT;
    nvrtcProgram p = calloc(1, sizeof *p);
    if (!p) return NVRTC_ERROR_OUT_OF_MEMORY;
    p->owner = &g_self;
    p->name = strdup(name ? name : "default_program");
    p->source = strdup(src);
    p->headers = calloc((size_t)numHeaders + 1, sizeof *p->headers);
    p->include_names = calloc((size_t)numHeaders + 1, sizeof *p->include_names);
    int ok = p->name && p->source && p->headers && p->include_names;
    for (int i = 0; ok && i < numHeaders; i++) {
        p->headers[i] = dup_or_null(headers[i]);
        p->include_names[i] = dup_or_null(includeNames[i]);
        p->n_headers = i + 1;
        ok = (!headers[i] || p->headers[i]) && (!includeNames[i] || p->include_names[i]);
    }
    if (!ok) {
        free_program(p);
        return NVRTC_ERROR_OUT_OF_MEMORY;
    }
    *prog = p;
    return NVRTC_SUCCESS;
}

FN_EXPORT nvrtcResult nvrtcDestroyProgram(nvrtcProgram *prog)
{
    if (!prog || !*prog || foreign(*prog)) return NVRTC_ERROR_INVALID_PROGRAM;
    free_program(*prog);
    *prog = NULL;
    return NVRTC_SUCCESS;
}

FN_EXPORT nvrtcResult nvrtcAddNameExpression(nvrtcProgram prog, const char *const name_expression)
{
    if (!prog || foreign(prog)) return NVRTC_ERROR_INVALID_PROGRAM;
    if (!name_expression) return NVRTC_ERROR_INVALID_INPUT;
    if (prog->compiled) return NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION;
    char **e = realloc(prog->exprs, sizeof *e * ((size_t)prog->n_exprs + 1));
    if (!e) return NVRTC_ERROR_OUT_OF_MEMORY;
    prog->exprs = e;
    if (!(e[prog->n_exprs] = strdup(name_expression))) return NVRTC_ERROR_OUT_OF_MEMORY;
    prog->n_exprs++;
    return NVRTC_SUCCESS;
}

/* The kernel a name expression names ("k", "&k", " & k "), or NULL. */
static const fn_kernel *kernel_of(const fn_output *out, const char *expr)
{
    while (*expr == ' ' || *expr == '&') expr++;
    size_t n = strlen(expr);
    while (n && expr[n - 1] == ' ') n--;
    for (int i = 0; i < out->n_kernels; i++)
        if (strlen(out->kernels[i].name) == n && !strncmp(out->kernels[i].name, expr, n))
            return &out->kernels[i];
    return NULL;
}

FN_EXPORT nvrtcResult nvrtcCompileProgram(nvrtcProgram prog, int numOptions,
                                          const char *const *options)
{
    if (!prog || foreign(prog)) return NVRTC_ERROR_INVALID_PROGRAM;
    if (numOptions < 0 || (numOptions > 0 && !options)) return NVRTC_ERROR_INVALID_INPUT;
    for (int i = 0; i < numOptions; i++)
        if (!options[i]) return NVRTC_ERROR_INVALID_INPUT;
    free(prog->log);
    free(prog->cubin);
    free(prog->ptx);
    prog->log = prog->cubin = prog->ptx = NULL;
    char log[4096];
    fn_headers h = {prog->n_headers, (const char *const *)prog->headers,
                    (const char *const *)prog->include_names};
    int rc =
        fn_compile(prog->name, prog->source, &h, numOptions, options, &prog->out, log, sizeof log);
    for (int i = 0; !rc && i < prog->n_exprs; i++)
        if (!kernel_of(&prog->out, prog->exprs[i])) {
            snprintf(
                log, sizeof log,
                "%s: error: name expression \"%s\" names no __global__ function of the program\n\n"
                "1 error detected in the compilation of \"%s\".\n",
                prog->name, prog->exprs[i], prog->name);
            rc = FN_COMPILATION;
        }
    int real = 0;
    if (!rc) {
        (void)fn_arch_supported(prog->out.arch, &real);
        log[0] = '\0';
        prog->ptx = fn_image(&prog->out, 1);
        if (real) prog->cubin = fn_image(&prog->out, 0);
        if (!prog->ptx || (real && !prog->cubin)) rc = FN_OUT_OF_MEMORY;
    }
    prog->log = strdup(log);
    prog->compiled = rc ? -1 : 1;
    if (!prog->log) return NVRTC_ERROR_OUT_OF_MEMORY;
    return (nvrtcResult)rc;
}

/* Size and copy of an output: NVRTC answers 0 (cubin) or 1 (an empty PTX:
 * its NUL) when there is none. */
static nvrtcResult output_size(nvrtcProgram prog, const char *s, size_t none, size_t *ret)
{
    if (!prog || foreign(prog)) return NVRTC_ERROR_INVALID_PROGRAM;
    if (!ret) return NVRTC_ERROR_INVALID_INPUT;
    *ret = s ? strlen(s) + 1 : none;
    return NVRTC_SUCCESS;
}

static nvrtcResult output_copy(nvrtcProgram prog, const char *s, char *dst)
{
    if (!prog || foreign(prog)) return NVRTC_ERROR_INVALID_PROGRAM;
    if (!dst) return NVRTC_ERROR_INVALID_INPUT;
    if (s)
        memcpy(dst, s, strlen(s) + 1);
    else if (prog->compiled)
        dst[0] = '\0';
    return NVRTC_SUCCESS;
}

FN_EXPORT nvrtcResult nvrtcGetPTXSize(nvrtcProgram prog, size_t *ptxSizeRet)
{
    return output_size(prog, prog ? prog->ptx : NULL, 1, ptxSizeRet);
}

FN_EXPORT nvrtcResult nvrtcGetPTX(nvrtcProgram prog, char *ptx)
{
    return output_copy(prog, prog ? prog->ptx : NULL, ptx);
}

FN_EXPORT nvrtcResult nvrtcGetCUBINSize(nvrtcProgram prog, size_t *cubinSizeRet)
{
    return output_size(prog, prog ? prog->cubin : NULL, 0, cubinSizeRet);
}

FN_EXPORT nvrtcResult nvrtcGetCUBIN(nvrtcProgram prog, char *cubin)
{
    if (foreign(prog)) return NVRTC_ERROR_INVALID_PROGRAM;
    if (prog && !prog->cubin) return NVRTC_SUCCESS; /* a virtual architecture: nothing to copy */
    return output_copy(prog, prog ? prog->cubin : NULL, cubin);
}

FN_EXPORT nvrtcResult nvrtcGetProgramLogSize(nvrtcProgram prog, size_t *logSizeRet)
{
    return output_size(prog, prog ? prog->log : NULL, 1, logSizeRet);
}

FN_EXPORT nvrtcResult nvrtcGetProgramLog(nvrtcProgram prog, char *log)
{
    if (!prog || foreign(prog)) return NVRTC_ERROR_INVALID_PROGRAM;
    if (!log) return NVRTC_ERROR_INVALID_INPUT;
    if (prog->log)
        memcpy(log, prog->log, strlen(prog->log) + 1);
    else
        log[0] = '\0';
    return NVRTC_SUCCESS;
}

FN_EXPORT nvrtcResult nvrtcGetLoweredName(nvrtcProgram prog, const char *const name_expression,
                                          const char **lowered_name)
{
    if (!prog || foreign(prog)) return NVRTC_ERROR_INVALID_PROGRAM;
    if (!name_expression || !lowered_name) return NVRTC_ERROR_INVALID_INPUT;
    if (prog->compiled != 1) return NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION;
    for (int i = 0; i < prog->n_exprs; i++)
        if (!strcmp(prog->exprs[i], name_expression)) {
            const fn_kernel *k = kernel_of(&prog->out, name_expression);
            if (!k) break;
            *lowered_name = k->lowered; /* valid until the program is destroyed, as NVRTC's */
            return NVRTC_SUCCESS;
        }
    return NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID;
}
