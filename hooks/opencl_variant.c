/* Variant programs: a policy with -D values needs the program rebuilt with
 * them added to the program's own options. The launching thread only queues
 * the request (once per program and policy); the poller thread builds it,
 * and until it is ready the default launch goes out. */
#include "hooks/opencl_internal.h"

#include "preload/log.h"
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
        if (v->pol == pol) return v;
    /* First request for this program and policy (not the steady state).
     * None once the exit has begun: the default runs. */
    if (aoe_poller_stopping()) return NULL;
    aoe_cl_variant *v = calloc(1, sizeof *v);
    if (!v) return NULL;
    v->prog = p;
    v->pol = pol;
    int bad = p->kind != AOE_PROG_SOURCE || overrides_program(p->options, pol->defines);
    atomic_init(&v->state, bad ? AOE_VAR_FAILED : AOE_VAR_PENDING);
    aoe_cl_variant *head = atomic_load(&p->variants);
    do v->next = head;
    while (!atomic_compare_exchange_weak(&p->variants, &head, v));
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
    size_t olen = strlen(p->options) + strlen(v->pol->defines) + 2;
    char *opts = malloc(olen);
    cl_int err = CL_SUCCESS;
    int state = AOE_VAR_FAILED;
    if (opts) {
        snprintf(opts, olen, "%s%s", p->options, v->pol->defines);
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
        AOE_WARN("variant of %s with%s did not build; the default runs", v->pol->rec.kernel_name,
                 v->pol->defines);
    atomic_store_explicit(&v->state, state, memory_order_release);
}

/* Poller thread. Each runtime call is bracketed so that the exit can tell
 * whether to join the poller or abandon it; once the exit has begun the
 * remaining requests are dropped (their programs' references are kept: the
 * process is ending). */
void aoe_hook_build_variants(void)
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

void aoe_cl_kernel_drop_variant(aoe_cl_kernel *kr)
{
    if (kr->vk) REAL(clReleaseKernel)(kr->vk);
    kr->vk = NULL;
    free(kr->vk_versions);
    kr->vk_versions = NULL;
    kr->v_pol = NULL;
}
