/* A runtime the shim hooks (one today; the CUDA driver, NVRTC, cuBLAS
 * later): one descriptor per runtime, defined in its hooks/<runtime>*.c and
 * named once in preload/runtime_list.h. preload/ knows runtimes only through
 * this struct. Versioned like sqlite3_vfs: `version` stays first, fields are
 * only ever added at the end with a new AOE_RUNTIME_VERSION, and a reader
 * uses a field added in version N only when rt->version >= N. */
#ifndef AOE_RUNTIME_H
#define AOE_RUNTIME_H

#include <stdint.h>

#define AOE_RUNTIME_VERSION 1

/* For code the dlsym wrapper runs: the sanitizer runtimes look their
 * interceptors' targets up with dlsym before their shadow memory exists. */
#define AOE_UNINSTRUMENTED __attribute__((no_sanitize("address", "undefined")))

/* A symbol prefix the dlsym wrapper passes to a runtime. */
typedef struct {
    const char *prefix; /* e.g. "cu", "cublasLt"; NULL ends a list */
    int upper_next;     /* 1: an upper-case letter must follow (not a libc name sharing it) */
} aoe_runtime_prefix;

typedef struct aoe_runtime {
    /* AOE_RUNTIME_VERSION the descriptor was written against; always first. */
    int version;
    /* The runtime's name, as in its jobs' runtime field and its fingerprints. */
    const char *name;
    /* NULL-terminated sonames its real symbols live in, tried (RTLD_NOLOAD) after RTLD_NEXT. */
    const char *const *sonames;
    /* Ended by a NULL prefix: the names the dlsym wrapper passes to wrapper_for. */
    const aoe_runtime_prefix *prefixes;
    /* NULL-terminated base-name prefixes of objects the call-site walk steps over. */
    const char *const *skip_objects;
    /* Required: the shim's exported wrapper for name, or NULL when it wraps none. */
    void *(*wrapper_for)(const char *name);
    /* Or NULL: the wrapper for a versioned lookup (cuGetProcAddress's version, flags). */
    void *(*wrapper_for_version)(const char *name, int version, uint64_t flags);
    /* Required: the runtime's own function the wrapper for name stands for, or NULL. */
    void *(*real_for)(const char *name);
    /* Or NULL: builds requested variant programs (the poller thread). */
    void (*build_variants)(void);
    /* Or NULL: adds per-kernel launch counters into the operator table (exit). */
    void (*flush_counts)(void);
    /* Or NULL: forgets per-process state in a forked child (no I/O, no locks). */
    void (*atfork_child)(void);
} aoe_runtime;

/* The compiled-in runtimes (preload/runtime_list.h), in list order, NULL-terminated. */
extern const aoe_runtime *const aoe_runtimes[];

/* The runtime a symbol name belongs to (the longest matching prefix), or
 * NULL. Called by the dlsym wrapper for every lookup: no allocation, no
 * library call, uninstrumented. */
const aoe_runtime *aoe_runtime_for_symbol(const char *name);
/* The runtime called name, or NULL. */
const aoe_runtime *aoe_runtime_by_name(const char *name);
/* Calls fn(rt, ctx) for every compiled-in runtime, in list order. */
void aoe_runtime_each(void (*fn)(const aoe_runtime *rt, void *ctx), void *ctx);
/* 1 when the call-site walk steps over the object at path (a runtime's own library). */
int aoe_runtime_skips_object(const char *path);

/* The same over any NULL-terminated list (preload/runtime_match.c; unit tests). */
const aoe_runtime *aoe_runtime_match_symbol(const aoe_runtime *const *list, const char *name);
const aoe_runtime *aoe_runtime_match_name(const aoe_runtime *const *list, const char *name);
int aoe_runtime_match_object(const aoe_runtime *const *list, const char *path);

#endif
