#include "launch/op_table.h"

#include "core/log.h"
#include "launch/host.h"
#include "store/policy_check.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OP_CAP 16384u /* operators per process; beyond it launches pass through */

static _Atomic(aoe_op *) g_slots[OP_CAP];
static atomic_size_t g_count;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t g_family_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t slot_of(const aoe_key *k)
{
    return (size_t)(k->lo ^ (k->hi >> 7)) & (OP_CAP - 1);
}

aoe_op *aoe_op_find(const aoe_key *key)
{
    size_t i = slot_of(key);
    for (size_t n = 0; n < OP_CAP; n++, i = (i + 1) & (OP_CAP - 1)) {
        aoe_op *op = atomic_load_explicit(&g_slots[i], memory_order_acquire);
        if (!op) return NULL;
        if (op->key.hi == key->hi && op->key.lo == key->lo) return op;
    }
    return NULL;
}

aoe_op *aoe_op_get_or_create(const aoe_key *key, const char *kernel_name, const char *fingerprint,
                             int *created)
{
    *created = 0;
    aoe_op *op = aoe_op_find(key);
    if (op) return op;
    pthread_mutex_lock(&g_lock);
    size_t i = slot_of(key);
    for (size_t n = 0; n < OP_CAP; n++, i = (i + 1) & (OP_CAP - 1)) {
        aoe_op *cur = atomic_load_explicit(&g_slots[i], memory_order_relaxed);
        if (cur && cur->key.hi == key->hi && cur->key.lo == key->lo) {
            op = cur;
            break;
        }
        if (!cur) {
            /* Keep a quarter free so probes stay short. */
            if (atomic_load(&g_count) >= OP_CAP - OP_CAP / 4) break;
            op = calloc(1, sizeof *op);
            if (!op) break;
            op->key = *key;
            op->fingerprint = fingerprint;
            snprintf(op->kernel_name, sizeof op->kernel_name, "%s", kernel_name);
            atomic_store_explicit(&g_slots[i], op, memory_order_release);
            atomic_fetch_add(&g_count, 1);
            *created = 1;
            break;
        }
    }
    pthread_mutex_unlock(&g_lock);
    return op;
}

void aoe_op_foreach(aoe_op_visit fn, void *ctx)
{
    for (size_t i = 0; i < OP_CAP; i++) {
        aoe_op *op = atomic_load_explicit(&g_slots[i], memory_order_acquire);
        if (op) fn(op, ctx);
    }
}

aoe_policy_entry *aoe_policy_from_record(const aoe_record *rec)
{
    /* Validation and conversion live in store/policy_check.c (fuzzed). */
    aoe_policy_sizes sz;
    char err[256];
    aoe_policy_entry *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    if (aoe_policy_prepare(rec, &sz, e->defines, sizeof e->defines, err, sizeof err)) {
        AOE_ERROR("bank record refused: %s", err);
        free(e);
        return NULL;
    }
    e->rec = *rec;
    e->work_dim = sz.work_dim;
    e->has_local = sz.has_local;
    memcpy(e->global, sz.global, sizeof e->global);
    memcpy(e->local, sz.local, sizeof e->local);
    return e;
}

int aoe_policy_is_default(const aoe_policy_entry *e)
{
    return !(e->rec.tuned_us < e->rec.default_us);
}

int aoe_op_publish(aoe_op *op, const aoe_policy_entry *cur, aoe_policy_entry *e)
{
    static atomic_uint_least64_t serial;
    e->serial = atomic_fetch_add(&serial, 1) + 1;
    if (!atomic_compare_exchange_strong_explicit(&op->policy, &cur, e, memory_order_acq_rel,
                                                 memory_order_acquire)) {
        free(e);
        return 0;
    }
    const aoe_launch_host *h = aoe_launch_get_host();
    if (cur && h->retire) h->retire((void *)cur); /* without one, kept */
    return 1;
}

void aoe_op_table_atfork_child(void)
{
    pthread_mutex_init(&g_lock, NULL);
    pthread_mutex_init(&g_family_lock, NULL);
    /* The child's result file counts its own launches only. */
    for (size_t i = 0; i < OP_CAP; i++) {
        aoe_op *op = atomic_load_explicit(&g_slots[i], memory_order_relaxed);
        if (!op) continue;
        atomic_store(&op->launches, 0);
        atomic_store(&op->tuned_launches, 0);
    }
}

/* The families captured in this process: an operator whose family is here
 * is not captured again (its policy arrives through the family key). */
#define FAMILY_CAP 4096u
static aoe_key g_families[FAMILY_CAP];
static size_t g_family_count;

int aoe_family_claim(const aoe_key *family)
{
    int claimed = 0;
    pthread_mutex_lock(&g_family_lock);
    size_t i = slot_of(family) & (FAMILY_CAP - 1);
    for (size_t n = 0; n < FAMILY_CAP; n++, i = (i + 1) & (FAMILY_CAP - 1)) {
        aoe_key *k = &g_families[i];
        if (k->hi == family->hi && k->lo == family->lo) break; /* captured already */
        if (!k->hi && !k->lo) {
            if (g_family_count < FAMILY_CAP - FAMILY_CAP / 4) {
                *k = *family;
                g_family_count++;
            }
            claimed = 1; /* a full table claims every family: captured as before */
            break;
        }
    }
    pthread_mutex_unlock(&g_family_lock);
    return claimed;
}
