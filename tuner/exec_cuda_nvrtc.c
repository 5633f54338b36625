/* Loading NVRTC and compiling one variant (exec_cuda_nvrtc.h). The library
 * a job names is untrusted input: loaded only when it is a regular file
 * nobody but its owner (the user or root) can write, in such a directory. */
#include "tuner/exec_cuda_nvrtc.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const sonames[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};

/* Why path may not be loaded, or NULL: owner and write permissions of the
 * file and of its directory (after links are resolved). */
static const char *unsafe(const char *path, char *real)
{
    struct stat st;
    if (path[0] != '/') return "not an absolute path";
    if (!realpath(path, real) || stat(real, &st)) return "no such file";
    if (!S_ISREG(st.st_mode)) return "not a regular file";
    if ((st.st_mode & 022) || (st.st_uid != geteuid() && st.st_uid != 0))
        return "writable by someone other than its owner, or owned by another user";
    char *slash = strrchr(real, '/');
    *slash = '\0';
    int bad = stat(real[0] ? real : "/", &st) || (st.st_mode & 002 && !(st.st_mode & S_ISVTX)) ||
              (st.st_mode & 020) || (st.st_uid != geteuid() && st.st_uid != 0);
    *slash = '/';
    return bad ? "in a directory others may write" : NULL;
}

static int load_syms(aoe_nvrtc_api *api, char *why, size_t len)
{
#define AOE_NVRTC_LOAD(f)                                                                          \
    if (!(*(void **)&api->f = dlsym(api->handle, #f))) {                                           \
        snprintf(why, len, "no %s", #f);                                                           \
        return -1;                                                                                 \
    }
    AOE_NVRTC_FUNCS(AOE_NVRTC_LOAD)
#undef AOE_NVRTC_LOAD
    return 0;
}

/* One attempt: 0, or -1 with "NAME: why" appended to err. */
static int try_load(aoe_nvrtc_api *api, const char *name, char *err, size_t errlen, size_t *used)
{
    char why[300] = "";
    api->handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!api->handle) { /* dlerror names the file first: once is enough */
        const char *e = dlerror();
        size_t n = strlen(name);
        snprintf(why, sizeof why, "%s", e && !strncmp(e, name, n) && e[n] == ':' ? e + n + 2 : e);
    } else if (!load_syms(api, why, sizeof why)) {
        snprintf(api->path, sizeof api->path, "%s", name);
        return 0;
    }
    if (api->handle) dlclose(api->handle);
    api->handle = NULL;
    if (*used < errlen)
        *used += (size_t)snprintf(err + *used, errlen - *used, "%s%s (%s)", *used ? "; " : "", name,
                                  why);
    return -1;
}

int aoe_nvrtc_load(aoe_nvrtc_api *api, const char *library, char *err, size_t errlen)
{
    size_t used = 0;
    memset(api, 0, sizeof *api);
    err[0] = '\0';
    if (library && *library) {
        char real[PATH_MAX];
        const char *why = unsafe(library, real);
        if (!why && !try_load(api, real, err, errlen, &used)) return 0;
        if (why && used < errlen)
            used += (size_t)snprintf(err + used, errlen - used, "%s (%s)", library, why);
    }
    for (size_t i = 0; i < sizeof sonames / sizeof *sonames; i++)
        if (!try_load(api, sonames[i], err, errlen, &used)) return 0;
    return -1;
}

void aoe_nvrtc_unload(aoe_nvrtc_api *api)
{
    if (api->handle) dlclose(api->handle);
    memset(api, 0, sizeof *api);
}

/* The log's first line that says what is wrong (an "error" line when there
 * is one, else the first non-empty one), into detail. */
static void first_useful_line(const char *log, char *detail, size_t len)
{
    const char *pick = NULL;
    for (const char *l = log; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        size_t n = strcspn(l, "\n");
        if (!pick && n) pick = l;
        if (memmem(l, n, "error", 5)) {
            pick = l;
            break;
        }
    }
    if (!pick) {
        snprintf(detail, len, "no compiler log");
        return;
    }
    snprintf(detail, len, "%.*s", (int)strcspn(pick, "\n") > 700 ? 700 : (int)strcspn(pick, "\n"),
             pick);
}

aoe_exec_status aoe_nvrtc_compile(const aoe_nvrtc_api *api, const char *source, const char *name,
                                  const aoe_nvrtc_headers *h, const char *const *opts, int nopts,
                                  int want_ptx, char **image, size_t *size, int *is_ptx,
                                  char *detail, size_t len)
{
    nvrtcProgram prog = NULL;
    aoe_exec_status st = AOE_EXEC_RUNTIME_ERROR;
    *image = NULL, *size = 0;
    nvrtcResult r = api->nvrtcCreateProgram(&prog, source, name, h ? h->n : 0,
                                            h ? h->sources : NULL, h ? h->names : NULL);
    if (r != NVRTC_SUCCESS) {
        snprintf(detail, len, "nvrtcCreateProgram: %s", api->nvrtcGetErrorString(r));
        return r == NVRTC_ERROR_OUT_OF_MEMORY ? AOE_EXEC_OUT_OF_MEMORY : AOE_EXEC_RUNTIME_ERROR;
    }
    r = api->nvrtcCompileProgram(prog, nopts, opts);
    if (r == NVRTC_ERROR_COMPILATION || r == NVRTC_ERROR_INVALID_OPTION) {
        size_t n = 0;
        char *log = NULL;
        if (api->nvrtcGetProgramLogSize(prog, &n) == NVRTC_SUCCESS && n && (log = calloc(1, n + 1)))
            api->nvrtcGetProgramLog(prog, log);
        char line[760];
        first_useful_line(log, line, sizeof line);
        snprintf(detail, len, "%s: %s", api->nvrtcGetErrorString(r), line);
        free(log);
        st = AOE_EXEC_BUILD_FAILED;
        goto out;
    }
    if (r != NVRTC_SUCCESS) {
        snprintf(detail, len, "nvrtcCompileProgram: %s", api->nvrtcGetErrorString(r));
        st = r == NVRTC_ERROR_OUT_OF_MEMORY ? AOE_EXEC_OUT_OF_MEMORY : AOE_EXEC_BUILD_FAILED;
        goto out;
    }
    size_t n = 0;
    int ptx = want_ptx || api->nvrtcGetCUBINSize(prog, &n) != NVRTC_SUCCESS || n == 0;
    r = ptx ? api->nvrtcGetPTXSize(prog, &n) : NVRTC_SUCCESS;
    if (r != NVRTC_SUCCESS || !n) {
        snprintf(detail, len, "nvrtcGetPTXSize: %s",
                 r ? api->nvrtcGetErrorString(r) : "an empty image");
        goto out;
    }
    if (!(*image = malloc(n))) {
        snprintf(detail, len, "out of memory");
        st = AOE_EXEC_OUT_OF_MEMORY;
        goto out;
    }
    r = ptx ? api->nvrtcGetPTX(prog, *image) : api->nvrtcGetCUBIN(prog, *image);
    if (r != NVRTC_SUCCESS) {
        snprintf(detail, len, "%s: %s", ptx ? "nvrtcGetPTX" : "nvrtcGetCUBIN",
                 api->nvrtcGetErrorString(r));
        free(*image);
        *image = NULL;
        goto out;
    }
    *size = n;
    *is_ptx = ptx;
    st = AOE_EXEC_OK;
out:
    api->nvrtcDestroyProgram(&prog);
    return st;
}
