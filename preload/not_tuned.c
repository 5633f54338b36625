#include "preload/not_tuned.h"

#include "core/log.h"
#include "jobs/spool_protocol.h"
#include "launch/op_table.h"
#include "preload/result_file.h"
#include "preload/shim.h"
#include "preload/spool_write.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bounded: a program with thousands of untunable kernel names lists the
 * first ones (the table never grows on the launch path). */
#define MAX_ENTRIES 512

static aoe_not_tuned g_entries[MAX_ENTRIES];
/* Given out when the table is full, never listed: a kernel object holding it
 * does not ask again at every launch. */
static aoe_not_tuned g_overflow;
static atomic_int g_count; /* entries published (release) */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

#define AOE_NT_JSON(code, json, text) json,
#define AOE_NT_TEXT(code, json, text) text,
static const char *const g_json[] = {"none", AOE_NOT_TUNED_REASONS(AOE_NT_JSON)};
static const char *const g_text[] = {"none", AOE_NOT_TUNED_REASONS(AOE_NT_TEXT)};

const char *aoe_not_tuned_json(int reason)
{
    return reason > 0 && reason < AOE_NT_COUNT ? g_json[reason] : "unknown";
}

const char *aoe_not_tuned_text(int reason)
{
    return reason > 0 && reason < AOE_NT_COUNT ? g_text[reason] : "unknown";
}

aoe_not_tuned *aoe_not_tuned_note(const char *name, int reason, const char *detail)
{
    if (!name) name = "?";
    pthread_mutex_lock(&g_lock);
    int n = atomic_load_explicit(&g_count, memory_order_relaxed);
    aoe_not_tuned *e = NULL;
    for (int i = 0; i < n && !e; i++)
        if (g_entries[i].reason == reason && !strncmp(g_entries[i].name, name, 127))
            e = &g_entries[i];
    if (!e && n >= MAX_ENTRIES) e = &g_overflow;
    if (!e) {
        e = &g_entries[n];
        snprintf(e->name, sizeof e->name, "%s", name);
        snprintf(e->detail, sizeof e->detail, "%s", detail ? detail : "");
        e->reason = reason;
        atomic_store_explicit(&e->launches, 0, memory_order_relaxed);
        atomic_store_explicit(&g_count, n + 1, memory_order_release);
        AOE_DEBUG("not tuned (%s): %s%s%s", aoe_not_tuned_text(reason), e->name,
                  e->detail[0] ? ": " : "", e->detail);
    }
    pthread_mutex_unlock(&g_lock);
    aoe_result_start(); /* a program with only untunable kernels gets a result file too */
    return e;
}

void aoe_not_tuned_foreach(aoe_not_tuned_visit fn, void *ctx)
{
    int n = atomic_load_explicit(&g_count, memory_order_acquire);
    for (int i = 0; i < n; i++) fn(&g_entries[i], ctx);
}

int aoe_not_tuned_tuner_reason(const aoe_key *key, char *out, size_t len)
{
    if (!len || !aoe_spool_has(key)) return -1; /* also: an expired .failed */
    char hex[33], path[4200];
    aoe_key_to_hex(key, hex);
    snprintf(path, sizeof path, "%s/%s.failed.txt", aoe_shim.spool_dir, hex);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat st;
    ssize_t n = -1;
    if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_uid == geteuid())
        n = read(fd, out, len - 1);
    close(fd);
    if (n <= 0) return -1;
    out[n] = '\0';
    out[strcspn(out, "\n")] = '\0';
    return 0;
}

int aoe_not_tuned_why(const struct aoe_op *op, char *tuner, size_t len)
{
    tuner[0] = '\0';
    if (op->not_tuned) return op->not_tuned;
    if (atomic_load_explicit(&op->refused, memory_order_relaxed)) return AOE_NT_REFUSED;
    if (aoe_shim.mode == AOE_MODE_OFF) return AOE_NT_TUNE_OFF;
    if (op->first == AOE_OP_FIRST_MISS && !aoe_not_tuned_tuner_reason(&op->key, tuner, len))
        return aoe_spool_nothing_to_tune(tuner) ? AOE_NT_NOTHING_TO_TUNE : AOE_NT_TUNING_FAILED;
    if (op->job_written || aoe_spool_has(&op->key)) return AOE_NT_QUEUED;
    return AOE_NT_NOT_CAPTURED;
}

void aoe_not_tuned_atfork_child(void)
{
    pthread_mutex_init(&g_lock, NULL);
}
