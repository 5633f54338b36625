/* The NVRTC program tracker (hooks/nvrtc_internal.h) and its lookup by
 * image (hooks/nvrtc_programs.h). One lock guards everything: NVRTC calls
 * and module loads are rare next to launches, and PyTorch compiles from
 * several threads. A program is copied at nvrtcCreateProgram; a compilation
 * fixes it (options, lowered names) and it never changes again: compiling
 * the same handle again continues in a copy. Programs whose output was never
 * fetched are dropped when their handle dies; the rest are kept, oldest
 * dropped first beyond AOE_NV_MAX_PROGRAMS or AOE_NV_MAX_BYTES. */
#include "hooks/nvrtc_internal.h"

#include "core/log.h"
#include "preload/shim.h"
#include "store/opkey.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HANDLE_BUCKETS 4096
#define IMAGE_BUCKETS 8192
#define IMAGE_SEED 0x6e76727463696d67ull /* "nvrtcimg" */

typedef struct nv_prog nv_prog;

typedef struct nv_image {
    uint64_t hash;
    size_t size;
    int indexed;
    struct nv_image *next; /* in its bucket */
    nv_prog *prog;
} nv_image;

struct nv_prog {
    aoe_nvrtc_program pub; /* first: the public view is the program itself */
    atomic_int refs;       /* the tracker's one + one per lookup not yet released */
    int compiled;
    int from_file;         /* read back from a remembered file: never written again */
    atomic_int remembered; /* bit (1 << kind): its file was asked for */
    nvrtcProgram handle;   /* NULL once destroyed or continued in a copy */
    nv_prog *handle_next;
    nv_prog *older, *newer;
    nv_image img[2]; /* cubin, ptx */
    size_t bytes;
    char **headers, **include_names, **options, **exprs, **lowered;
    char *name, *source, *library;
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static nv_prog *g_by_handle[HANDLE_BUCKETS];
static nv_image *g_by_image[IMAGE_BUCKETS];
static nv_prog *g_oldest, *g_newest;
static size_t g_count, g_bytes;
static atomic_int g_bound_said, g_oom_said, g_huge_said;

uint64_t aoe_nvrtc_image_hash(const void *image, size_t size)
{
    return aoe_hash64_bytes(image, size, IMAGE_SEED);
}

static size_t handle_bucket(nvrtcProgram h)
{
    uintptr_t k = (uintptr_t)h;
    return (size_t)((k >> 4) ^ (k >> 16)) & (HANDLE_BUCKETS - 1);
}

static nv_prog **handle_slot(nvrtcProgram h)
{
    nv_prog **s = &g_by_handle[handle_bucket(h)];
    while (*s && (*s)->handle != h) s = &(*s)->handle_next;
    return s;
}

static void free_strings(char **v, int n)
{
    for (int i = 0; v && i < n; i++) free(v[i]);
    free(v);
}

static void prog_free(nv_prog *p)
{
    free_strings(p->headers, p->pub.num_headers);
    free_strings(p->include_names, p->pub.num_headers);
    free_strings(p->options, p->pub.num_options);
    free_strings(p->exprs, p->pub.num_name_expressions);
    free_strings(p->lowered, p->pub.num_name_expressions);
    free(p->name);
    free(p->source);
    free(p->library);
    free(p);
}

static void unref(nv_prog *p)
{
    if (atomic_fetch_sub_explicit(&p->refs, 1, memory_order_acq_rel) == 1) prog_free(p);
}

static void publish_view(nv_prog *p)
{
    p->pub.name = p->name;
    p->pub.source = p->source;
    p->pub.headers = (const char *const *)p->headers;
    p->pub.include_names = (const char *const *)p->include_names;
    p->pub.options = (const char *const *)p->options;
    p->pub.name_expressions = (const char *const *)p->exprs;
    p->pub.lowered_names = (const char *const *)p->lowered;
    p->pub.nvrtc_library = p->library;
}

static size_t str_bytes(const char *s)
{
    return s ? strlen(s) + 1 : 0;
}

/* Copies of n strings (NULL entries stay NULL); NULL when out of memory. */
static char **copy_strings(int n, const char *const *v, size_t *bytes)
{
    char **c = calloc((size_t)n + 1, sizeof *c);
    for (int i = 0; c && i < n; i++) {
        if (!v || !v[i]) continue;
        if (!(c[i] = strdup(v[i]))) {
            free_strings(c, i);
            return NULL;
        }
        *bytes += strlen(v[i]) + 1 + sizeof *c;
    }
    return c;
}

/* ---- under g_lock ---- */

static void unindex_image(nv_image *im)
{
    if (!im->indexed) return;
    nv_image **s = &g_by_image[im->hash & (IMAGE_BUCKETS - 1)];
    while (*s && *s != im) s = &(*s)->next;
    if (*s) *s = im->next;
    im->indexed = 0;
}

static void forget_handle(nv_prog *p)
{
    if (!p->handle) return;
    nv_prog **s = handle_slot(p->handle);
    if (*s == p) *s = p->handle_next;
    p->handle = NULL;
    p->handle_next = NULL;
}

static void drop(nv_prog *p)
{
    forget_handle(p);
    unindex_image(&p->img[0]);
    unindex_image(&p->img[1]);
    if (p->older)
        p->older->newer = p->newer;
    else
        g_oldest = p->newer;
    if (p->newer)
        p->newer->older = p->older;
    else
        g_newest = p->older;
    g_count--;
    g_bytes -= p->bytes;
    unref(p);
}

/* Makes room for one more program of bytes, oldest dropped first. */
static void make_room(size_t bytes)
{
    while (g_oldest && (g_count >= AOE_NV_MAX_PROGRAMS || g_bytes + bytes > AOE_NV_MAX_BYTES)) {
        aoe_shim_log_once(&g_bound_said, AOE_LOG_DEBUG,
                          "nvrtc: more than %d programs or %zu MiB of program text: the oldest are "
                          "no longer tracked",
                          AOE_NV_MAX_PROGRAMS, AOE_NV_MAX_BYTES >> 20);
        drop(g_oldest);
    }
}

/* The program's handle is gone (destroyed, or continued in a copy): a
 * program nothing was fetched from can never be looked up and goes. */
static void release_handle(nv_prog *p)
{
    forget_handle(p);
    if (!p->img[0].indexed && !p->img[1].indexed) drop(p);
}

/* p the newest program (room made already). */
static void link_newest(nv_prog *p)
{
    p->older = g_newest;
    p->newer = NULL;
    if (g_newest)
        g_newest->newer = p;
    else
        g_oldest = p;
    g_newest = p;
    g_count++;
    g_bytes += p->bytes;
}

static void insert(nv_prog *p, nvrtcProgram h)
{
    make_room(p->bytes);
    nv_prog *stale = *handle_slot(h);
    if (stale) release_handle(stale); /* a handle reused without the shim seeing its end */
    p->handle = h;
    p->handle_next = NULL;
    *handle_slot(h) = p;
    link_newest(p);
}

/* library: the real path of the libnvrtc that made it when it is not the
 * process's first (hooks/nvrtc_caller.c), else NULL. */
static nv_prog *new_prog(const char *library, const char *src, const char *name, int num_headers,
                         const char *const *headers, const char *const *include_names)
{
    nv_prog *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    atomic_init(&p->refs, 1);
    p->bytes = sizeof *p + str_bytes(src) + str_bytes(name) + str_bytes(library);
    p->source = strdup(src);
    p->name = strdup(name ? name : "default_program");
    if (library && !(p->library = strdup(library))) {
        prog_free(p);
        return NULL;
    }
    p->pub.num_headers = num_headers > 0 ? num_headers : 0;
    p->headers = copy_strings(p->pub.num_headers, headers, &p->bytes);
    p->include_names = copy_strings(p->pub.num_headers, include_names, &p->bytes);
    p->exprs = calloc(1, sizeof *p->exprs);
    if (!p->source || !p->name || !p->headers || !p->include_names || !p->exprs) {
        prog_free(p);
        return NULL;
    }
    p->img[0].prog = p->img[1].prog = p;
    publish_view(p);
    return p;
}

static void out_of_memory(void)
{
    aoe_shim_log_once(&g_oom_said, AOE_LOG_WARN,
                      "nvrtc: out of memory: some programs are not tracked");
}

void aoe_nv_track_create(const aoe_nv_lib *lib, nvrtcProgram prog, const char *src,
                         const char *name, int num_headers, const char *const *headers,
                         const char *const *include_names)
{
    if (!prog) return;
    if (strlen(src) > AOE_NV_MAX_BYTES / 4) {
        aoe_shim_log_once(&g_huge_said, AOE_LOG_DEBUG,
                          "nvrtc: a program of more than %zu MiB of source is not tracked",
                          AOE_NV_MAX_BYTES / 4 >> 20);
        return;
    }
    nv_prog *p = new_prog(lib ? lib->path : NULL, src, name, num_headers, headers, include_names);
    pthread_mutex_lock(&g_lock);
    if (p)
        insert(p, prog);
    else
        out_of_memory();
    pthread_mutex_unlock(&g_lock);
}

void aoe_nv_track_destroy(nvrtcProgram prog)
{
    pthread_mutex_lock(&g_lock);
    nv_prog *p = *handle_slot(prog);
    if (p) release_handle(p);
    pthread_mutex_unlock(&g_lock);
}

/* A program about to change after its compilation continues in a copy (the
 * compiled one stays findable by its images, or goes). Returns the copy. */
static nv_prog *continue_in_copy(nv_prog *p)
{
    nv_prog *c = new_prog(p->library, p->source, p->name, p->pub.num_headers,
                          (const char *const *)p->headers, (const char *const *)p->include_names);
    if (!c) return NULL;
    for (int i = 0; i < p->pub.num_name_expressions; i++) {
        char **e = realloc(c->exprs, sizeof *e * ((size_t)i + 2));
        if (!e || !(e[i] = strdup(p->exprs[i]))) {
            if (e) c->exprs = e;
            prog_free(c);
            return NULL;
        }
        e[i + 1] = NULL;
        c->exprs = e;
        c->pub.num_name_expressions = i + 1;
        c->bytes += strlen(p->exprs[i]) + 1 + sizeof *e;
    }
    publish_view(c);
    nvrtcProgram h = p->handle;
    release_handle(p);
    insert(c, h);
    return c;
}

void aoe_nv_track_name_expression(nvrtcProgram prog, const char *expr)
{
    pthread_mutex_lock(&g_lock);
    nv_prog *p = *handle_slot(prog);
    if (p && p->compiled) p = continue_in_copy(p);
    if (p) {
        int n = p->pub.num_name_expressions;
        char **e = realloc(p->exprs, sizeof *e * ((size_t)n + 2));
        if (e) p->exprs = e;
        if (e && (e[n] = strdup(expr))) {
            e[n + 1] = NULL;
            p->pub.num_name_expressions = n + 1;
            p->bytes += strlen(expr) + 1 + sizeof *e;
            g_bytes += strlen(expr) + 1 + sizeof *e;
            publish_view(p);
        } else {
            out_of_memory();
        }
    }
    pthread_mutex_unlock(&g_lock);
}

/* "opt1 opt2 ..." for the log, cut at the buffer's end. */
static void join_options(int n, const char *const *options, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && options && used + 1 < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s", i ? " " : "",
                         options[i] ? options[i] : "(null)");
        if (w < 0) break;
        used += (size_t)w;
    }
    if (used >= len && len > 4) memcpy(buf + len - 4, "...", 4);
    if (!n) snprintf(buf, len, "no options");
}

void aoe_nv_track_compile(const aoe_nv_lib *lib, nvrtcProgram prog, int num_options,
                          const char *const *options, nvrtcResult result)
{
    char opts[512];
    if (num_options < 0 || (num_options > 0 && !options)) return; /* NVRTC refused the call */
    /* resolved outside the lock (a first resolution may dlopen) */
    __typeof__(&nvrtcGetLoweredName) lower = NV_LIB_FN(lib, nvrtcGetLoweredName);
    __typeof__(&nvrtcGetErrorString) str = NV_LIB_FN(lib, nvrtcGetErrorString);
    pthread_mutex_lock(&g_lock);
    nv_prog *p = *handle_slot(prog);
    if (p && p->compiled) p = continue_in_copy(p);
    if (!p) {
        pthread_mutex_unlock(&g_lock);
        return;
    }
    size_t bytes = 0;
    char **o = copy_strings(num_options, options, &bytes);
    char **lowered = calloc((size_t)p->pub.num_name_expressions + 1, sizeof *lowered);
    for (int i = 0; result == NVRTC_SUCCESS && lowered && lower && i < p->pub.num_name_expressions;
         i++) {
        const char *l = NULL;
        if (lower(prog, p->exprs[i], &l) == NVRTC_SUCCESS && l && (lowered[i] = strdup(l)))
            bytes += strlen(l) + 1;
    }
    if (!o || !lowered) {
        free_strings(o, num_options);
        free_strings(lowered, p->pub.num_name_expressions);
        out_of_memory();
        /* an uncompiled record would be wrong: forget the program */
        release_handle(p);
        pthread_mutex_unlock(&g_lock);
        return;
    }
    p->options = o;
    p->pub.num_options = num_options;
    p->lowered = lowered;
    p->compiled = 1;
    p->bytes += bytes;
    g_bytes += bytes;
    publish_view(p);
    join_options(num_options, options, opts, sizeof opts);
    AOE_DEBUG("nvrtc program %s compiled with %s: %s (%zu bytes of source, %d headers, %d name "
              "expressions)",
              p->name, opts, str ? str(result) : "?", strlen(p->source), p->pub.num_headers,
              p->pub.num_name_expressions);
    pthread_mutex_unlock(&g_lock);
}

static const char *kind_name(int kind)
{
    return kind == AOE_NVRTC_IMAGE_CUBIN ? "cubin" : "ptx";
}

/* p's image of kind is hash/size, found by it (the newest first). */
static void index_image(nv_prog *p, int kind, uint64_t hash, size_t size)
{
    nv_image *im = &p->img[kind == AOE_NVRTC_IMAGE_CUBIN ? 0 : 1];
    if (im->indexed && im->hash == hash && im->size == size) return;
    unindex_image(im);
    im->hash = hash;
    im->size = size;
    nv_image **s = &g_by_image[hash & (IMAGE_BUCKETS - 1)];
    im->next = *s;
    *s = im;
    im->indexed = 1;
    AOE_DEBUG("nvrtc program %s: %s of %zu bytes tracked (hash %016llx)", p->name, kind_name(kind),
              size, (unsigned long long)hash);
}

void aoe_nv_track_output(nvrtcProgram prog, int kind, const void *image, size_t size)
{
    uint64_t hash = aoe_nvrtc_image_hash(image, size); /* outside the lock */
    pthread_mutex_lock(&g_lock);
    nv_prog *p = *handle_slot(prog);
    if (p && p->compiled) index_image(p, kind, hash, size);
    pthread_mutex_unlock(&g_lock);
}

static nv_prog *find_image(uint64_t hash, size_t size, int *kind)
{
    for (nv_image *im = g_by_image[hash & (IMAGE_BUCKETS - 1)]; im; im = im->next)
        if (im->hash == hash && im->size == size) {
            *kind = im == &im->prog->img[0] ? AOE_NVRTC_IMAGE_CUBIN : AOE_NVRTC_IMAGE_PTX;
            return im->prog;
        }
    return NULL;
}

static size_t strings_bytes(char **v, int n)
{
    size_t b = 0;
    for (int i = 0; i < n; i++) b += str_bytes(v[i]) + sizeof *v;
    return b;
}

const aoe_nvrtc_program *aoe_nv_track_remembered(aoe_nvrtc_remembered *r, uint64_t hash,
                                                 size_t size)
{
    nv_prog *p = calloc(1, sizeof *p);
    if (!p) {
        aoe_nvrtc_remembered_free(r);
        out_of_memory();
        return NULL;
    }
    /* the file's strings become the program's (same shapes: n + 1 slots) */
    p->name = r->name, p->source = r->source, p->library = r->nvrtc_library;
    p->headers = r->headers, p->include_names = r->include_names;
    p->pub.num_headers = r->num_headers;
    p->options = r->options, p->pub.num_options = r->num_options;
    p->exprs = r->name_expressions, p->lowered = r->lowered_names;
    p->pub.num_name_expressions = r->num_name_expressions;
    int kind = r->image_kind;
    memset(r, 0, sizeof *r);
    atomic_init(&p->refs, 2); /* the tracker's and the caller's */
    p->compiled = p->from_file = 1;
    p->img[0].prog = p->img[1].prog = p;
    p->bytes = sizeof *p + str_bytes(p->name) + str_bytes(p->source) + str_bytes(p->library) +
               strings_bytes(p->headers, p->pub.num_headers) +
               strings_bytes(p->include_names, p->pub.num_headers) +
               strings_bytes(p->options, p->pub.num_options) +
               strings_bytes(p->exprs, p->pub.num_name_expressions) +
               strings_bytes(p->lowered, p->pub.num_name_expressions);
    publish_view(p);
    int k = 0;
    pthread_mutex_lock(&g_lock);
    nv_prog *found = find_image(hash, size, &k); /* another thread read it meanwhile */
    if (found) {
        atomic_fetch_add_explicit(&found->refs, 1, memory_order_relaxed);
    } else {
        make_room(p->bytes);
        link_newest(p);
        index_image(p, kind, hash, size);
    }
    pthread_mutex_unlock(&g_lock);
    if (found) {
        prog_free(p);
        p = found;
    }
    return &p->pub;
}

void aoe_nvrtc_program_remember(const aoe_nvrtc_program *pub, int kind)
{
    nv_prog *p = (nv_prog *)(uintptr_t)pub;
    const nv_image *im = &p->img[kind == AOE_NVRTC_IMAGE_CUBIN ? 0 : 1];
    int bit = 1 << (kind == AOE_NVRTC_IMAGE_CUBIN ? 0 : 1);
    if (p->from_file || (atomic_fetch_or(&p->remembered, bit) & bit)) return;
    pthread_mutex_lock(&g_lock); /* set with the image's index, never changed after */
    uint64_t hash = im->hash;
    size_t size = im->size;
    pthread_mutex_unlock(&g_lock);
    if (size) aoe_nvrtc_remember(pub, kind, hash, size);
}

const aoe_nvrtc_program *aoe_nvrtc_program_for_image(uint64_t hash, size_t size, int *kind)
{
    int k = 0;
    pthread_mutex_lock(&g_lock);
    nv_prog *found = find_image(hash, size, &k);
    if (found) atomic_fetch_add_explicit(&found->refs, 1, memory_order_relaxed);
    pthread_mutex_unlock(&g_lock);
    if (found) {
        if (kind) *kind = k;
        AOE_DEBUG("nvrtc program %s produced the %s of hash %016llx (%zu bytes)", found->name,
                  kind_name(k), (unsigned long long)hash, size);
    }
    return found ? &found->pub : NULL;
}

void aoe_nvrtc_program_release(const aoe_nvrtc_program *p)
{
    if (p) unref((nv_prog *)(uintptr_t)p);
}

void aoe_nv_programs_atfork_child(void)
{
    pthread_mutex_init(&g_lock, NULL);
}
