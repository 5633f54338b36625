/* Variant programs: a policy with -D values needs the program rebuilt with
 * them added to the program's own options. The launching thread only queues
 * the request (once per program and policy; the list, the queue and the
 * override check are the launch core's, launch/variant.h); the poller thread
 * builds it here, and until it is ready the default launch goes out. */
#include "hooks/opencl_internal.h"

#include "core/log.h"
#include "preload/poller.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static aoe_variant_queue g_requests;

aoe_cl_variant *aoe_cl_variant_get(aoe_cl_program *p, const aoe_policy_entry *pol)
{
    aoe_variant *found = aoe_variant_find(&p->variants, pol->defines);
    if (found) return (aoe_cl_variant *)found;
    /* First request for these values (not the steady state). None once the
     * exit has begun: the default runs. */
    if (aoe_poller_stopping()) return NULL;
    aoe_cl_variant *v = calloc(1, sizeof *v);
    int bad = p->kind != AOE_PROG_SOURCE || aoe_variant_overrides(p->options, pol->defines);
    if (!v || aoe_variant_init(&v->base, pol->defines, pol->rec.kernel_name, bad)) {
        free(v);
        return NULL;
    }
    v->prog = p;
    aoe_variant_add(&p->variants, &v->base);
    if (!bad) {
        atomic_fetch_add(&p->refs, 1); /* held by the queue until built */
        aoe_variant_request(&g_requests, &v->base);
        aoe_poller_wake();
    }
    return v;
}

static void build(aoe_cl_variant *v)
{
    aoe_cl_program *p = v->prog;
    size_t olen = strlen(p->options) + strlen(v->base.defines) + 2;
    char *opts = malloc(olen);
    cl_int err = CL_SUCCESS;
    int state = AOE_VAR_FAILED;
    if (opts) {
        snprintf(opts, olen, "%s%s", p->options, v->base.defines);
        const char *src = p->source;
        size_t len = p->source_len;
        cl_program vp = REAL(clCreateProgramWithSource)(p->ctx, 1, &src, &len, &err);
        if (vp && REAL(clBuildProgram)(vp, p->ndev, p->devs, opts, NULL, NULL) == CL_SUCCESS) {
            v->vprog = vp;
            state = AOE_VAR_READY;
        } else if (vp) {
            REAL(clReleaseProgram)(vp);
        }
        free(opts);
    }
    if (state != AOE_VAR_READY)
        AOE_WARN("variant of %s with%s did not build; the default runs", v->base.kernel_name,
                 v->base.defines);
    atomic_store_explicit(&v->base.state, state, memory_order_release);
}

/* Poller thread. Each runtime call is bracketed so that the exit can tell
 * whether to join the poller or abandon it; once the exit has begun the
 * remaining requests are dropped (their programs' references are kept: the
 * process is ending). */
static int build_one(aoe_variant *base, void *ctx)
{
    (void)ctx;
    aoe_cl_variant *v = (aoe_cl_variant *)base;
    if (!aoe_poller_runtime_enter()) return -1;
    build(v);
    aoe_cl_program_unref(v->prog);
    aoe_poller_runtime_leave();
    return 0;
}

void aoe_cl_build_variants(void)
{
    aoe_variant_drain(&g_requests, build_one, NULL);
}

/* Mirrors the program's argument values onto kv's kernel: only those set
 * since the last mirroring (vlock held; the program does not set arguments
 * while another thread launches the kernel, as OpenCL requires). */
static int mirror_args(aoe_cl_kernel *kr, aoe_cl_kvar *kv)
{
    uint32_t want = kr->arg_version;
    if (atomic_load_explicit(&kv->arg_version, memory_order_relaxed) == want) return 0;
    for (cl_uint i = 0; i < kr->nargs; i++) {
        aoe_cl_arg *a = &kr->args[i];
        if (kv->versions[i] == a->version) continue;
        if (REAL(clSetKernelArg)(kv->vk, i, a->size, a->is_null ? NULL : a->value) != CL_SUCCESS)
            return -1;
        kv->versions[i] = a->version;
    }
    atomic_store_explicit(&kv->arg_version, want, memory_order_release);
    return 0;
}

/* vlock held: kr's kernel in variant v, made on first use. */
static aoe_cl_kvar *kvar_for(aoe_cl_kernel *kr, aoe_cl_variant *v)
{
    for (aoe_cl_kvar *kv = kr->kvars; kv; kv = kv->next)
        if (kv->v == v) return kv;
    aoe_cl_kvar *kv = calloc(1, sizeof *kv + (kr->nargs ? kr->nargs : 1) * sizeof kv->versions[0]);
    if (!kv) return NULL;
    cl_int err = CL_SUCCESS;
    kv->vk = REAL(clCreateKernel)(v->vprog, kr->name, &err);
    if (!kv->vk) {
        free(kv);
        return NULL;
    }
    kv->v = v;
    atomic_init(&kv->arg_version, kr->arg_version - 1); /* everything to mirror */
    kv->next = kr->kvars;
    kr->kvars = kv;
    return kv;
}

/* Rare path (a policy switch, arguments set since the last launch): under a
 * try-lock, so that two threads never set one variant kernel's arguments at
 * once; the thread that does not get it launches the default. */
cl_kernel aoe_cl_variant_kernel_slow(aoe_cl_kernel *kr, const aoe_policy_entry *pol)
{
    if (atomic_exchange_explicit(&kr->vlock, 1, memory_order_acquire)) return NULL;
    cl_kernel k = NULL;
    aoe_cl_kvar *kv = atomic_load_explicit(&kr->vcur, memory_order_relaxed);
    if (!kv || atomic_load_explicit(&kv->serial, memory_order_relaxed) != pol->serial) {
        aoe_cl_variant *v = aoe_cl_variant_get(kr->prog, pol);
        int st = v ? atomic_load_explicit(&v->base.state, memory_order_acquire) : AOE_VAR_PENDING;
        if (st != AOE_VAR_READY || !(kv = kvar_for(kr, v))) {
            /* failed for good: this policy's launches take the default at once */
            if (st == AOE_VAR_FAILED || st == AOE_VAR_READY)
                atomic_store_explicit(&kr->broken_serial, pol->serial, memory_order_relaxed);
            goto out;
        }
        atomic_store_explicit(&kv->serial, pol->serial, memory_order_relaxed);
        atomic_store_explicit(&kr->vcur, kv, memory_order_release);
    }
    if (!mirror_args(kr, kv)) k = kv->vk;
out:
    atomic_store_explicit(&kr->vlock, 0, memory_order_release);
    return k;
}

void aoe_cl_kernel_free_variants(aoe_cl_kernel *kr)
{
    aoe_cl_kvar *kv = kr->kvars;
    while (kv) {
        aoe_cl_kvar *next = kv->next;
        REAL(clReleaseKernel)(kv->vk);
        free(kv);
        kv = next;
    }
    kr->kvars = NULL;
    atomic_store(&kr->vcur, NULL);
}
