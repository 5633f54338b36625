/* See cuda_variant.h. The launching thread only finds a variant (lock-free,
 * no allocation) or, on the first ask for its values, records and queues it
 * (the list and the queue are the launch core's, launch/variant.h, as for
 * OpenCL's hooks/opencl_variant.c); the poller thread builds it
 * (cuda_variant_build.c) and publishes its function with a release store of
 * its state, so a launch that reads READY (acquire) sees the function. */
#include "hooks/cuda_variant.h"

#include "core/log.h"
#include "preload/poller.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A variant: the launch core's record first (its list and queue links). */
typedef struct {
    aoe_variant base;
    aoe_cu_tunable *t; /* never freed (cuda_internal.h) */
    CUmodule mod;
    CUfunction fn; /* set before the state turns READY */
} cu_variant;

static aoe_variant_queue g_requests;
static atomic_int g_said_full;

/* 1 when defines is a list of -DNAME[=VALUE] options, nothing else: a
 * policy only adds macro definitions. */
static int well_formed(const char *defines)
{
    int n = 0;
    for (const char *d = defines; *d;) {
        d += strspn(d, " ");
        if (!*d) break;
        if (strncmp(d, "-D", 2) || !(isalpha((unsigned char)d[2]) || d[2] == '_')) return 0;
        const char *p = d + 2;
        while (isalnum((unsigned char)*p) || *p == '_') p++;
        if (*p && *p != ' ' && *p != '=') return 0;
        d += strcspn(d, " ");
        n++;
    }
    return n > 0;
}

/* The program's options joined for aoe_variant_overrides: NVRTC's
 * --define-macro spellings written -D. */
static char *joined_options(const aoe_nvrtc_program *p)
{
    size_t len = 1;
    for (int i = 0; i < p->num_options; i++) len += strlen(p->options[i] ? p->options[i] : "") + 2;
    char *s = malloc(len), *w = s;
    if (!s) return NULL;
    *w = '\0';
    static const char long_form[] = "--define-macro";
    for (int i = 0; i < p->num_options; i++) {
        const char *o = p->options[i] ? p->options[i] : "";
        if (!strncmp(o, long_form, sizeof long_form - 1) &&
            (o[sizeof long_form - 1] == '=' || o[sizeof long_form - 1] == '\0')) {
            o += sizeof long_form - 1;
            o += *o == '=';
            w += sprintf(w, " -D%s", o);
        } else {
            w += sprintf(w, " %s", o);
        }
    }
    return s;
}

/* Why a variant with these defines must not be built, or NULL. */
static const char *refusal(const aoe_cu_tunable *t, const char *defines)
{
    const aoe_nvrtc_program *p = t->program;
    if (!p || !p->source) return "its program's source is not known";
    if (!well_formed(defines)) return "the policy's defines are not -DNAME=VALUE options";
    char *opts = joined_options(p);
    if (!opts) return "out of memory";
    int overrides = aoe_variant_overrides(opts, defines);
    free(opts);
    return overrides ? "the program's own options set one of its macros" : NULL;
}

static void full(const aoe_cu_tunable *t)
{
    aoe_shim_log_once(&g_said_full, AOE_LOG_WARN,
                      "CUDA kernel %s: more than %d variants asked for; further ones run the "
                      "kernel's own code (said once)",
                      t->name, AOE_CU_MAX_VARIANTS);
}

/* First ask for these values (not the steady state): the variant recorded,
 * refused (failed at once) or queued for the poller. None once the exit has
 * begun: the program's own function runs. */
static __attribute__((noinline, cold)) aoe_variant *request(aoe_cu_tunable *t, const char *defines)
{
    if (!aoe_shim_init() || aoe_poller_stopping()) return NULL;
    /* Past the bound every launch of the shape asks again: nothing is
     * allocated for an answer that can only be no. */
    if (aoe_variant_count(&t->variants) >= AOE_CU_MAX_VARIANTS) {
        full(t);
        return NULL;
    }
    cu_variant *v = calloc(1, sizeof *v);
    if (!v) return NULL;
    const char *why = refusal(t, defines);
    if (aoe_variant_init(&v->base, defines, t->name, why != NULL)) {
        free(v);
        return NULL;
    }
    v->t = t;
    aoe_variant *got = aoe_variant_add_once(&t->variants, &v->base, AOE_CU_MAX_VARIANTS);
    if (got != &v->base) {
        free(v->base.defines);
        free(v);
        if (!got) full(t);
        return got;
    }
    if (why) {
        AOE_INFO("CUDA kernel %s: the variant with%s is refused: %s; its own code runs", t->name,
                 defines, why);
        return got;
    }
    aoe_variant_request(&g_requests, &v->base);
    aoe_poller_start(); /* started by the first launch already; cheap when it was */
    aoe_poller_wake();
    return got;
}

CUfunction aoe_cu_variant_function(aoe_cu_tunable *t, const char *defines)
{
    if (__builtin_expect(!t || !defines, 0)) return NULL;
    aoe_variant *v = aoe_variant_find(&t->variants, defines);
    if (__builtin_expect(!v, 0) && !(v = request(t, defines))) return NULL;
    if (atomic_load_explicit(&v->state, memory_order_acquire) != AOE_VAR_READY) return NULL;
    return ((cu_variant *)v)->fn;
}

/* Poller thread. Each build is bracketed so that the exit can tell whether
 * to wait for it; once the exit has begun the requests still queued are
 * dropped (-1) and stay pending: the process is ending. */
static int build_one(aoe_variant *base, void *ctx)
{
    (void)ctx;
    cu_variant *v = (cu_variant *)base;
    if (!aoe_poller_runtime_enter()) return -1;
    char why[512];
    int state = AOE_VAR_FAILED;
    if (aoe_cu_variant_build(v->t, v->base.defines, &v->mod, &v->fn, why, sizeof why) == 0) {
        state = AOE_VAR_READY;
        AOE_DEBUG("CUDA kernel %s: the variant with%s is built", v->t->name, v->base.defines);
    } else {
        AOE_WARN("CUDA kernel %s: the variant with%s %s; its own code runs", v->t->name,
                 v->base.defines, why);
    }
    atomic_store_explicit(&v->base.state, state, memory_order_release);
    aoe_poller_runtime_leave();
    return 0;
}

void aoe_cu_build_variants(void)
{
    aoe_variant_drain(&g_requests, build_one, NULL);
}

/* The child builds nothing its parent asked for (its CUDA state is not the
 * parent's): those variants stay pending; new ones are its own. */
void aoe_cu_variant_atfork_child(void)
{
    atomic_store_explicit(&g_requests.head, NULL, memory_order_relaxed);
}
