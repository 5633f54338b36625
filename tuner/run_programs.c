/* Program cache and parallel builds (run_programs.h). Builds run outside the
 * lock: the executor's build is thread-safe, and a slow compile must not hold
 * up the others. */
#include "tuner/run_programs.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THREADS 64

typedef struct {
    char *options;
    aoe_exec_program *prog; /* NULL when the build failed */
    aoe_exec_status status;
    char *detail; /* why it failed */
} entry;

struct aoe_programs {
    const aoe_exec_ops *ops;
    aoe_exec *ex;
    pthread_mutex_t lock; /* guards the entries */
    entry **e;            /* pointers: an entry stays put while the array grows */
    size_t n, cap;
};

aoe_programs *aoe_programs_new(const aoe_exec_ops *ops, aoe_exec *ex)
{
    aoe_programs *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->ops = ops, c->ex = ex;
    pthread_mutex_init(&c->lock, NULL);
    return c;
}

static entry *lookup(aoe_programs *c, const char *options)
{
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->e[i]->options, options)) return c->e[i];
    return NULL;
}

/* Files a finished build; when another thread filed the same options first,
 * this build is released and that entry returned. NULL: out of memory. */
static entry *insert(aoe_programs *c, const char *options, aoe_exec_program *p, aoe_exec_status st,
                     const char *detail)
{
    entry *e = lookup(c, options);
    if (e) {
        if (p) c->ops->release(c->ex, p);
        return e;
    }
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 16;
        entry **n = realloc(c->e, cap * sizeof *n);
        if (!n) goto oom;
        c->e = n, c->cap = cap;
    }
    e = calloc(1, sizeof *e);
    if (!e || !(e->options = strdup(options)) || (st && !(e->detail = strdup(detail)))) {
        if (e) free(e->options);
        free(e);
        goto oom;
    }
    e->prog = p, e->status = st;
    c->e[c->n++] = e;
    return e;
oom:
    if (p) c->ops->release(c->ex, p);
    return NULL;
}

aoe_exec_status aoe_programs_get(aoe_programs *c, const char *options, aoe_exec_program **out,
                                 char *detail, size_t len)
{
    *out = NULL;
    pthread_mutex_lock(&c->lock);
    entry *e = lookup(c, options);
    pthread_mutex_unlock(&c->lock);
    if (!e) {
        char why[1024] = "";
        aoe_exec_program *p = NULL;
        aoe_exec_status st = c->ops->build(c->ex, options, &p, why, sizeof why);
        if (st == AOE_EXEC_OK && !p) st = AOE_EXEC_RUNTIME_ERROR;
        if (st) p = NULL;
        pthread_mutex_lock(&c->lock);
        e = insert(c, options, p, st, why[0] ? why : "no reason given");
        pthread_mutex_unlock(&c->lock);
    }
    if (!e) {
        snprintf(detail, len, "out of memory");
        return AOE_EXEC_OUT_OF_MEMORY;
    }
    if (e->status) {
        snprintf(detail, len, "%s", e->detail);
        return e->status;
    }
    *out = e->prog;
    return AOE_EXEC_OK;
}

typedef struct {
    aoe_programs *c;
    const char *const *options;
    size_t n, next;
    pthread_mutex_t lock;
} job_list;

static void *build_thread(void *arg)
{
    job_list *j = arg;
    for (;;) {
        pthread_mutex_lock(&j->lock);
        size_t i = j->next++;
        pthread_mutex_unlock(&j->lock);
        if (i >= j->n) return NULL;
        aoe_exec_program *p;
        char why[64];
        aoe_programs_get(j->c, j->options[i], &p, why, sizeof why);
    }
}

void aoe_programs_build(aoe_programs *c, const char *const *options, size_t n, int parallel)
{
    /* Only the new, distinct ones: the same options never build twice. */
    const char **todo = calloc(n ? n : 1, sizeof *todo);
    size_t m = 0;
    if (!todo) return;
    pthread_mutex_lock(&c->lock);
    for (size_t i = 0; i < n; i++) {
        int dup = lookup(c, options[i]) != NULL;
        for (size_t k = 0; k < m && !dup; k++) dup = !strcmp(todo[k], options[i]);
        if (!dup) todo[m++] = options[i];
    }
    pthread_mutex_unlock(&c->lock);
    job_list j = {.c = c, .options = todo, .n = m};
    if (parallel < 1) parallel = 1;
    if (parallel > MAX_THREADS) parallel = MAX_THREADS;
    pthread_t th[MAX_THREADS];
    int started = 0;
    pthread_mutex_init(&j.lock, NULL);
    for (int i = 0; i < parallel && (size_t)i < m; i++)
        if (!pthread_create(&th[started], NULL, build_thread, &j)) started++;
    if (!started) build_thread(&j);
    for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
    pthread_mutex_destroy(&j.lock);
    free(todo);
}

size_t aoe_programs_count(aoe_programs *c)
{
    pthread_mutex_lock(&c->lock);
    size_t n = c->n;
    pthread_mutex_unlock(&c->lock);
    return n;
}

void aoe_programs_free(aoe_programs *c)
{
    if (!c) return;
    for (size_t i = 0; i < c->n; i++) {
        if (c->e[i]->prog) c->ops->release(c->ex, c->e[i]->prog);
        free(c->e[i]->options);
        free(c->e[i]->detail);
        free(c->e[i]);
    }
    pthread_mutex_destroy(&c->lock);
    free(c->e);
    free(c);
}
