/* Variant programs: a policy with -D values needs the program rebuilt with
 * them added to the program's own options. The launching thread only queues
 * the request (once per program and policy); the poller thread builds it,
 * and until it is ready the default launch goes out. */
#include "hooks/opencl_internal.h"

#include "core/log.h"
#include "preload/poller.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Atomic(aoe_cl_variant *) g_requests;

/* true when the program sets one of the policy's macros itself: such kernels
 * carry their own tuned values and must come out exactly as they went in. */
static int overrides_program(const char *options, const char *defines)
{
    const char *d = defines;
    while ((d = strstr(d, "-D"))) {
        d += 2;
        size_t n = strcspn(d, "= ");
        char pat[AOE_NAME_LEN + 4];
        if (n == 0 || n > AOE_NAME_LEN) return 1;
        for (const char *o = options; o && (o = strstr(o, "-D")); o += 2) {
            const char *name = o + 2;
            while (*name == ' ') name++;
            if (!strncmp(name, d, n) && (name[n] == '\0' || name[n] == '=' || name[n] == ' '))
                return 1;
        }
        (void)pat;
        d += n;
    }
    return 0;
}

aoe_cl_variant *aoe_cl_variant_get(aoe_cl_program *p, const aoe_policy_entry *pol)
{
    for (aoe_cl_variant *v = atomic_load_explicit(&p->variants, memory_order_acquire); v;
         v = v->next)
        if (!strcmp(v->defines, pol->defines)) return v;
    /* First request for these values (not the steady state). None once the
     * exit has begun: the default runs. */
    if (aoe_poller_stopping()) return NULL;
    aoe_cl_variant *v = calloc(1, sizeof *v);
    if (!v || !(v->defines = strdup(pol->defines))) {
        free(v);
        return NULL;
    }
    v->prog = p;
    snprintf(v->kernel_name, sizeof v->kernel_name, "%s", pol->rec.kernel_name);
    int bad = p->kind != AOE_PROG_SOURCE || overrides_program(p->options, pol->defines);
    atomic_init(&v->state, bad ? AOE_VAR_FAILED : AOE_VAR_PENDING);
    aoe_cl_variant *head = atomic_load(&p->variants);
    do v->next = head;
    while (!atomic_compare_exchange_weak(&p->variants, &head, v));
    /* Two threads may add the same values at once: both are built, and
     * either may be found. */
    if (!bad) {
        atomic_fetch_add(&p->refs, 1); /* held by the queue until built */
        aoe_cl_variant *r = atomic_load(&g_requests);
        do v->next_request = r;
        while (!atomic_compare_exchange_weak(&g_requests, &r, v));
        aoe_poller_wake();
    }
    return v;
}

static void build(aoe_cl_variant *v)
{
    aoe_cl_program *p = v->prog;
    size_t olen = strlen(p->options) + strlen(v->defines) + 2;
    char *opts = malloc(olen);
    cl_int err = CL_SUCCESS;
    int state = AOE_VAR_FAILED;
    if (opts) {
        snprintf(opts, olen, "%s%s", p->options, v->defines);
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
        AOE_WARN("variant of %s with%s did not build; the default runs", v->kernel_name,
                 v->defines);
    atomic_store_explicit(&v->state, state, memory_order_release);
}

/* Poller thread. Each runtime call is bracketed so that the exit can tell
 * whether to join the poller or abandon it; once the exit has begun the
 * remaining requests are dropped (their programs' references are kept: the
 * process is ending). */
void aoe_cl_build_variants(void)
{
    aoe_cl_variant *list = atomic_exchange(&g_requests, NULL);
    while (list) {
        aoe_cl_variant *next = list->next_request;
        if (!aoe_poller_runtime_enter()) return;
        build(list);
        aoe_cl_program_unref(list->prog);
        aoe_poller_runtime_leave();
        list = next;
    }
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
        int st = v ? atomic_load_explicit(&v->state, memory_order_acquire) : AOE_VAR_PENDING;
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
