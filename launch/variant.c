#include "launch/variant.h"

#include "store/record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int aoe_variant_init(aoe_variant *v, const char *defines, const char *kernel_name, int bad)
{
    if (!(v->defines = strdup(defines))) return -1;
    snprintf(v->kernel_name, sizeof v->kernel_name, "%s", kernel_name);
    atomic_init(&v->state, bad ? AOE_VAR_FAILED : AOE_VAR_PENDING);
    return 0;
}

void aoe_variant_add(aoe_variant_list *list, aoe_variant *v)
{
    aoe_variant *head = atomic_load(list);
    do v->next = head;
    while (!atomic_compare_exchange_weak(list, &head, v));
}

aoe_variant *aoe_variant_add_once(aoe_variant_list *list, aoe_variant *v, int max)
{
    aoe_variant *head = atomic_load_explicit(list, memory_order_acquire);
    for (;;) {
        int n = 0;
        for (aoe_variant *o = head; o; o = o->next, n++)
            if (!strcmp(o->defines, v->defines)) return o;
        if (n >= max) return NULL;
        v->next = head;
        /* an add racing this one moved the head: the exchange fails and the
         * list is scanned again */
        if (atomic_compare_exchange_weak_explicit(list, &head, v, memory_order_acq_rel,
                                                  memory_order_acquire))
            return v;
    }
}

int aoe_variant_overrides(const char *options, const char *defines)
{
    const char *d = defines;
    while ((d = strstr(d, "-D"))) {
        d += 2;
        size_t n = strcspn(d, "= ");
        if (n == 0 || n > AOE_NAME_LEN) return 1;
        for (const char *o = options; o && (o = strstr(o, "-D")); o += 2) {
            const char *name = o + 2;
            while (*name == ' ') name++;
            if (!strncmp(name, d, n) && (name[n] == '\0' || name[n] == '=' || name[n] == ' '))
                return 1;
        }
        d += n;
    }
    return 0;
}

void aoe_variant_request(aoe_variant_queue *q, aoe_variant *v)
{
    aoe_variant *r = atomic_load(&q->head);
    do v->next_request = r;
    while (!atomic_compare_exchange_weak(&q->head, &r, v));
}

void aoe_variant_drain(aoe_variant_queue *q, aoe_variant_build_fn build, void *ctx)
{
    aoe_variant *list = atomic_exchange(&q->head, NULL);
    while (list) {
        aoe_variant *next = list->next_request;
        if (build(list, ctx)) return;
        list = next;
    }
}
