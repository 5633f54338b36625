/* Modules, libraries, functions and kernels of the fake driver. A fake image
 * (fake_image.h) is parsed into its arch, defines and kernel names; a kernel
 * runs the test program's host function fakecuda_kernel_NAME. Any other
 * image (a real cubin, fatbin or PTX) is a module whose functions exist by
 * any name and have no host code. A CUlibrary is a module; a CUkernel is a
 * function object with its own tag, so a CUkernel cast to CUfunction can be
 * launched, as on the real driver. */
#include "fake_image.h"
#include "fakecuda.h"
#include "fcu_module.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CUlib_st {
    struct CUmod_st mod;
};

/* Modules loaded with cuModuleLoad* (a library is context-independent).
 * Those a cuCtxDestroy took are recycled: the next load and its functions
 * get the same handle values, as the real driver's allocator may give. */
static pthread_mutex_t g_loaded_lock = PTHREAD_MUTEX_INITIALIZER;
static struct CUmod_st *g_loaded, *g_recycled_mod;
static struct CUfunc_st *g_recycled_funcs[FCU_MAX_FUNCS];
static int g_n_recycled_funcs;

/* A zeroed module or function object: a recycled one first. */
static void *fresh(size_t size, int module)
{
    void *p = NULL;
    pthread_mutex_lock(&g_loaded_lock);
    if (module && g_recycled_mod)
        p = g_recycled_mod, g_recycled_mod = NULL;
    else if (!module && g_n_recycled_funcs)
        p = g_recycled_funcs[--g_n_recycled_funcs];
    pthread_mutex_unlock(&g_loaded_lock);
    if (p) return memset(p, 0, size);
    return calloc(1, size);
}

static void free_functions(struct CUmod_st *m);

static int parse_image(struct CUmod_st *m, const char *text)
{
    size_t ml = strlen(FAKE_IMAGE_MAGIC), pl = strlen(FAKE_IMAGE_PTX_MAGIC);
    if (strncmp(text, FAKE_IMAGE_MAGIC, ml) && strncmp(text, FAKE_IMAGE_PTX_MAGIC, pl)) return 0;
    const char *line = strchr(text, '\n') + 1;
    while (*line) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char buf[600];
        if (len >= sizeof buf) return -1;
        memcpy(buf, line, len);
        buf[len] = '\0';
        char a[FAKE_IMAGE_MAX_NAME + 1], b[FAKE_IMAGE_MAX_NAME + 1];
        long long v;
        if (sscanf(buf, "define %255s %lld", a, &v) == 2 && m->ndefines < FAKE_IMAGE_MAX_DEFINES) {
            snprintf(m->defines[m->ndefines].name, sizeof m->defines[0].name, "%s", a);
            m->defines[m->ndefines++].value = v;
        } else if (sscanf(buf, "kernel %255s", a) == 1 && m->nkernels < FAKE_IMAGE_MAX_KERNELS) {
            snprintf(m->kernels[m->nkernels++], sizeof m->kernels[0], "%s", a);
        } else if (sscanf(buf, "arch %255s", b) == 1) {
            snprintf(m->arch, sizeof m->arch, "%s", b);
        }
        if (!end) break;
        line = end + 1;
    }
    return 1;
}

static CUresult load(struct CUmod_st *m, const void *image)
{
    if (!image) return CUDA_ERROR_INVALID_VALUE;
    m->tag = FCU_TAG_MODULE;
    m->loaded_by = (unsigned long)pthread_self();
    m->fake = parse_image(m, image);
    if (m->fake < 0) return CUDA_ERROR_INVALID_IMAGE;
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuModuleLoadData(CUmodule *mod, const void *image)
{
    CUresult r = fcu_need_context();
    if (r) return r;
    if (!mod) return CUDA_ERROR_INVALID_VALUE;
    if ((r = fcu_capture_unsafe_call())) return r; /* a module load is unsafe during a capture */
    struct CUmod_st *m = fresh(sizeof *m, 1);
    if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
    if ((r = load(m, image))) {
        free(m);
        return r;
    }
    m->ctx = fcu_current_context();
    pthread_mutex_lock(&g_loaded_lock);
    m->next_loaded = g_loaded;
    g_loaded = m;
    pthread_mutex_unlock(&g_loaded_lock);
    *mod = m;
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuModuleLoadDataEx(CUmodule *mod, const void *image, unsigned n,
                                       CUjit_option *opts, void **vals)
{
    if (n && (!opts || !vals)) return CUDA_ERROR_INVALID_VALUE;
    return cuModuleLoadData(mod, image);
}

FCU_EXPORT CUresult cuModuleLoadFatBinary(CUmodule *mod, const void *fatbin)
{
    return cuModuleLoadData(mod, fatbin);
}

/* A file's contents (NUL-terminated), loaded as an image. */
FCU_EXPORT CUresult cuModuleLoad(CUmodule *mod, const char *path)
{
    if (!path) return CUDA_ERROR_INVALID_VALUE;
    FILE *f = fopen(path, "rb");
    if (!f) return CUDA_ERROR_FILE_NOT_FOUND;
    char *buf = calloc(1, 1 << 20);
    size_t n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    (void)n;
    if (!buf) return CUDA_ERROR_OUT_OF_MEMORY;
    CUresult r = cuModuleLoadData(mod, buf);
    free(buf);
    return r;
}

static void free_functions(struct CUmod_st *m)
{
    for (int i = 0; i < m->nfuncs; i++) free(m->funcs[i]);
}

/* Off the list of loaded modules (under g_loaded_lock). */
static void unlist(struct CUmod_st *m)
{
    for (struct CUmod_st **p = &g_loaded; *p; p = &(*p)->next_loaded)
        if (*p == m) {
            *p = m->next_loaded;
            return;
        }
}

void fcu_modules_destroyed_with(CUcontext ctx)
{
    pthread_mutex_lock(&g_loaded_lock);
    for (struct CUmod_st **p = &g_loaded; *p;) {
        struct CUmod_st *m = *p;
        if (m->ctx != ctx) {
            p = &m->next_loaded;
            continue;
        }
        *p = m->next_loaded;
        for (int i = 0; i < m->nfuncs; i++) /* in reverse: the next gets the first one's value */
            if (g_n_recycled_funcs < FCU_MAX_FUNCS)
                g_recycled_funcs[g_n_recycled_funcs++] = m->funcs[m->nfuncs - 1 - i];
            else
                free(m->funcs[m->nfuncs - 1 - i]);
        m->tag = 0;
        if (g_recycled_mod)
            free(m);
        else
            g_recycled_mod = m;
    }
    pthread_mutex_unlock(&g_loaded_lock);
}

FCU_EXPORT CUresult cuModuleUnload(CUmodule mod)
{
    if (!mod || mod->tag != FCU_TAG_MODULE) return CUDA_ERROR_INVALID_HANDLE;
    pthread_mutex_lock(&g_loaded_lock);
    unlist(mod);
    pthread_mutex_unlock(&g_loaded_lock);
    free_functions(mod);
    mod->tag = 0;
    free(mod);
    return CUDA_SUCCESS;
}

/* An address inside this library (dladdr finds the driver's directory). */
static void host_library_anchor(void) {}

static void *g_kernels;

static void load_kernels_library(void)
{
    Dl_info info;
    char path[4096];
    if (!dladdr((void *)host_library_anchor, &info) || !info.dli_fname) return;
    const char *slash = strrchr(info.dli_fname, '/');
    if (!slash) return;
    snprintf(path, sizeof path, "%.*s/libfakecuda_kernels.so", (int)(slash - info.dli_fname),
             info.dli_fname);
    g_kernels = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
}

/* Where the host code of a fake image's kernel lies: the process (a test
 * program exporting it, or a library it loaded), else the fakes' own
 * kernels library beside this driver, loaded once (so a process that did
 * not load it, such as the background tuner, runs the same kernels). */
static void *host_library(const char *name)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    char sym[FAKE_IMAGE_MAX_NAME + 32];
    snprintf(sym, sizeof sym, FAKE_IMAGE_HOST_PREFIX "%s", name);
    if (dlsym(RTLD_DEFAULT, sym)) return RTLD_DEFAULT;
    pthread_once(&once, load_kernels_library);
    return g_kernels ? g_kernels : RTLD_DEFAULT;
}

/* The function object called name in m (created once; tag: function or kernel). */
static CUresult get_function(struct CUmod_st *m, const char *name, unsigned tag,
                             struct CUfunc_st **out)
{
    if (!m || m->tag != FCU_TAG_MODULE || !out) return CUDA_ERROR_INVALID_HANDLE;
    if (!name || strlen(name) > FAKE_IMAGE_MAX_NAME) return CUDA_ERROR_INVALID_VALUE;
    int known = !m->fake;
    for (int i = 0; i < m->nkernels; i++) known |= !strcmp(m->kernels[i], name);
    if (!known) return CUDA_ERROR_NOT_FOUND;
    for (int i = 0; i < m->nfuncs; i++)
        if (m->funcs[i]->tag == tag && !strcmp(m->funcs[i]->name, name)) {
            *out = m->funcs[i];
            return CUDA_SUCCESS;
        }
    if (m->nfuncs >= FCU_MAX_FUNCS) return CUDA_ERROR_OUT_OF_MEMORY;
    struct CUfunc_st *f = fresh(sizeof *f, 0);
    if (!f) return CUDA_ERROR_OUT_OF_MEMORY;
    f->tag = tag;
    f->mod = m;
    snprintf(f->name, sizeof f->name, "%s", name);
    char sym[FAKE_IMAGE_MAX_NAME + 32];
    if (m->fake) {
        void *where = host_library(name);
        snprintf(sym, sizeof sym, FAKE_IMAGE_HOST_PREFIX "%s", name);
        f->host = (fcu_kernel_fn)dlsym(where, sym);
        snprintf(sym, sizeof sym, "fakecuda_params_%s", name);
        f->params = dlsym(where, sym);
    }
    m->funcs[m->nfuncs++] = f;
    *out = f;
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
    CUresult r = fcu_need_context();
    if (r) return r;
    struct CUfunc_st *f;
    if ((r = get_function(hmod, name, FCU_TAG_FUNCTION, &f))) return r;
    *hfunc = f;
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuLibraryLoadData(CUlibrary *lib, const void *code, CUjit_option *jo, void **jv,
                                      unsigned nj, CUlibraryOption *lo, void **lv, unsigned nl)
{
    CUresult r = fcu_initialised(); /* context-independent */
    if (r) return r;
    if (!lib || (nj && (!jo || !jv)) || (nl && (!lo || !lv))) return CUDA_ERROR_INVALID_VALUE;
    struct CUlib_st *l = calloc(1, sizeof *l);
    if (!l) return CUDA_ERROR_OUT_OF_MEMORY;
    if ((r = load(&l->mod, code))) {
        free(l);
        return r;
    }
    *lib = l;
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuLibraryUnload(CUlibrary lib)
{
    if (!lib || lib->mod.tag != FCU_TAG_MODULE) return CUDA_ERROR_INVALID_HANDLE;
    free_functions(&lib->mod);
    lib->mod.tag = 0;
    free(lib);
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuLibraryGetKernel(CUkernel *k, CUlibrary lib, const char *name)
{
    CUresult r = fcu_initialised();
    if (r) return r;
    if (!lib) return CUDA_ERROR_INVALID_HANDLE;
    struct CUfunc_st *f;
    if ((r = get_function(&lib->mod, name, FCU_TAG_KERNEL, &f))) return r;
    *k = (CUkernel)f;
    return CUDA_SUCCESS;
}

/* The function object behind a CUfunction or a CUkernel cast to one, or NULL. */
struct CUfunc_st *fcu_function(CUfunction f)
{
    if (!f || (f->tag != FCU_TAG_FUNCTION && f->tag != FCU_TAG_KERNEL)) return NULL;
    return f;
}

FCU_EXPORT CUresult cuKernelGetFunction(CUfunction *out, CUkernel k)
{
    CUresult r = fcu_need_context();
    if (r) return r;
    struct CUfunc_st *f = fcu_function((CUfunction)k);
    if (!f || f->tag != FCU_TAG_KERNEL || !out) return CUDA_ERROR_INVALID_HANDLE;
    return get_function(f->mod, f->name, FCU_TAG_FUNCTION, (struct CUfunc_st **)out);
}

FCU_EXPORT CUresult cuFuncGetName(const char **name, CUfunction hfunc)
{
    struct CUfunc_st *f = fcu_function(hfunc);
    if (!name) return CUDA_ERROR_INVALID_VALUE;
    if (!f || f->tag != FCU_TAG_FUNCTION) return CUDA_ERROR_INVALID_HANDLE;
    *name = f->name;
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuKernelGetName(const char **name, CUkernel hkernel)
{
    struct CUfunc_st *f = fcu_function((CUfunction)hkernel);
    if (!name) return CUDA_ERROR_INVALID_VALUE;
    if (!f || f->tag != FCU_TAG_KERNEL) return CUDA_ERROR_INVALID_HANDLE;
    *name = f->name;
    return CUDA_SUCCESS;
}

/* From the host function's fakecuda_params_NAME; without one the driver has
 * no layout to give (as for a real cubin without its parameter table). */
FCU_EXPORT CUresult cuFuncGetParamInfo(CUfunction func, size_t index, size_t *offset, size_t *size)
{
    struct CUfunc_st *f = fcu_function(func);
    if (!f) return CUDA_ERROR_INVALID_HANDLE;
    if (!f->params) return CUDA_ERROR_NOT_SUPPORTED;
    if (index >= f->params->count || index >= 32) return CUDA_ERROR_INVALID_VALUE;
    size_t off = 0; /* each parameter aligned to its size (at most 8) */
    for (size_t i = 0; i <= index; i++) {
        size_t s = f->params->size[i], a = s >= 8 ? 8 : s ? s : 1;
        off = (off + a - 1) / a * a;
        if (i < index) off += s;
    }
    if (offset) *offset = off;
    if (size) *size = f->params->size[index];
    return CUDA_SUCCESS;
}

long long fcu_define(const void *image, const char *name, long long dflt)
{
    const struct CUmod_st *m = image;
    if (!m || !name) return dflt;
    for (int i = 0; i < m->ndefines; i++)
        if (!strcmp(m->defines[i].name, name)) return m->defines[i].value;
    return dflt;
}

FCU_EXPORT void *fakecuda_module_context(void *fn)
{
    struct CUfunc_st *f = fcu_function(fn);
    return f ? f->mod->ctx : NULL;
}

FCU_EXPORT unsigned long fakecuda_module_loader(void *fn)
{
    struct CUfunc_st *f = fcu_function(fn);
    return f ? f->mod->loaded_by : 0;
}
