#include "preload/result_file.h"

#include "core/fs_safe.h"
#include "core/log.h"
#include "preload/not_tuned.h"
#include "launch/op_table.h"
#include "preload/shim.h"
#include "preload/spool_write.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int g_started;
static struct timespec g_t0;
static char g_name[128];

void aoe_result_start(void)
{
    if (atomic_load_explicit(&g_started, memory_order_acquire)) return;
    pthread_mutex_lock(&g_lock);
    if (!atomic_load(&g_started)) {
        clock_gettime(CLOCK_MONOTONIC, &g_t0);
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        char ts[32];
        strftime(ts, sizeof ts, "%Y%m%d%H%M%S", &tm);
        snprintf(g_name, sizeof g_name, "aoe_result_opat_%s_%ld", ts, (long)getpid());
        atomic_store_explicit(&g_started, 1, memory_order_release);
    }
    pthread_mutex_unlock(&g_lock);
}

typedef struct {
    cJSON *mods;
    cJSON *not_tuned;
    double base_us, tuned_us;
    unsigned long long launches, timed_launches;
    int add, hit, update, reserved, unsatisfied, total;
    int untuned[AOE_NT_COUNT]; /* unsatisfied operators per reason */
    unsigned long long untuned_launches[AOE_NT_COUNT];
} summary;

/* The "not_tuned" entry for (name, reason), created with 0 launches; NULL
 * when out of memory (an entry cJSON could not fill is skipped, never read). */
static cJSON *nt_entry(cJSON *arr, const char *name, int reason, const char *detail)
{
    const char *why = aoe_not_tuned_json(reason);
    cJSON *e;
    if (!name) name = "?";
    cJSON_ArrayForEach(e, arr)
    {
        const char *n = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "op_name"));
        const char *r = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "reason"));
        if (n && r && !strcmp(n, name) && !strcmp(r, why)) return e;
    }
    if (!arr || !(e = cJSON_CreateObject())) return NULL;
    cJSON_AddStringToObject(e, "op_name", name);
    cJSON_AddStringToObject(e, "reason", why);
    cJSON_AddStringToObject(e, "detail", detail);
    cJSON_AddNumberToObject(e, "launches", 0);
    cJSON_AddItemToArray(arr, e);
    return e;
}

static void nt_add_launches(cJSON *e, unsigned long long n)
{
    cJSON *l = cJSON_GetObjectItemCaseSensitive(e, "launches");
    if (l && cJSON_IsNumber(l)) cJSON_SetNumberValue(l, l->valuedouble + (double)n);
}

/* Kernel objects (and kernels past the operator limit) not tuned. */
static void visit_not_tuned(const aoe_not_tuned *nt, void *vctx)
{
    summary *s = vctx;
    if (aoe_not_tuned_per_op(nt->reason)) return; /* from the operators (visit) */
    cJSON *e = nt_entry(s->not_tuned, nt->name, nt->reason, nt->detail);
    nt_add_launches(e, atomic_load_explicit(&nt->launches, memory_order_relaxed));
}

static void visit(aoe_op *op, void *vctx)
{
    summary *s = vctx;
    /* an operator still at its first sight (another thread writes its call
     * site and first-sight state) is counted in the next rewrite */
    if (!atomic_load_explicit(&op->sighted, memory_order_acquire)) return;
    unsigned long long n = atomic_load(&op->launches);
    unsigned long long nt = atomic_load(&op->tuned_launches);
    const aoe_policy_entry *p = atomic_load_explicit(&op->policy, memory_order_acquire);
    s->total++;
    s->launches += n;
    if (!p) {
        s->unsatisfied++;
        char tuner[256];
        int why = aoe_not_tuned_why(op, tuner, sizeof tuner);
        s->untuned[why > 0 && why < AOE_NT_COUNT ? why : 0]++;
        s->untuned_launches[why > 0 && why < AOE_NT_COUNT ? why : 0] += n;
        if (aoe_not_tuned_listed(why))
            nt_add_launches(
                nt_entry(s->not_tuned, op->kernel_name, why, tuner[0] ? tuner : op->call_site), n);
        return;
    }
    if (op->first == AOE_OP_FIRST_MISS)
        s->add++;
    else if (p->rec.timestamp != op->first_timestamp)
        s->update++;
    else if (op->repeat_job && !aoe_spool_has(&op->key))
        s->reserved++; /* re-tuned, the bank's entry stayed the better one */
    else
        s->hit++;
    double before = p->rec.default_us, after = p->rec.tuned_us;
    s->base_us += (double)n * before;
    s->tuned_us += (double)nt * after + (double)(n - (nt < n ? nt : n)) * before;
    s->timed_launches += n;
    cJSON *m = cJSON_CreateObject();
    char hex[33];
    aoe_key_to_hex(&op->key, hex);
    cJSON_AddStringToObject(m, "op_name", op->kernel_name);
    cJSON_AddStringToObject(m, "key", hex);
    cJSON_AddStringToObject(m, "call_site", op->call_site);
    cJSON_AddNumberToObject(m, "before_us", before);
    cJSON_AddNumberToObject(m, "after_us", after);
    cJSON_AddNumberToObject(m, "launches", (double)n);
    cJSON_AddNumberToObject(m, "tuned_launches", (double)nt);
    cJSON_AddNumberToObject(m, "policy_active_after_s", op->active_after_s);
    cJSON *pol = cJSON_AddObjectToObject(m, "policy");
    cJSON *gl = cJSON_AddArrayToObject(pol, "global");
    cJSON *lo = cJSON_AddArrayToObject(pol, "local");
    for (uint32_t d = 0; d < p->work_dim; d++) {
        cJSON_AddItemToArray(gl, cJSON_CreateNumber((double)p->global[d]));
        cJSON_AddItemToArray(lo, cJSON_CreateNumber((double)p->local[d]));
    }
    for (uint32_t i = 0; i < p->rec.policy.n_params && i < AOE_MAX_PARAMS; i++) {
        char name[AOE_NAME_LEN + 1];
        memcpy(name, p->rec.policy.params[i].name, AOE_NAME_LEN);
        name[AOE_NAME_LEN] = '\0';
        cJSON_AddNumberToObject(pol, name, (double)p->rec.policy.params[i].value);
    }
    cJSON_AddItemToArray(s->mods, m);
}

static int write_file(summary *out)
{
    memset(out, 0, sizeof *out);
    cJSON *root = cJSON_CreateObject();
    cJSON *basic = cJSON_AddObjectToObject(root, "basic");
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    double secs = (double)(t.tv_sec - g_t0.tv_sec) + (double)(t.tv_nsec - g_t0.tv_nsec) / 1e9;
    cJSON_AddStringToObject(basic, "tuning_name", g_name);
    cJSON_AddNumberToObject(basic, "tuning_time", secs);
    cJSON_AddNumberToObject(basic, "pid", (double)getpid());
    cJSON *opat = cJSON_AddObjectToObject(root, "OPAT");
    out->mods = cJSON_CreateArray();
    out->not_tuned = cJSON_CreateArray();
    aoe_not_tuned_foreach(visit_not_tuned, out);
    aoe_op_foreach(visit, out);
    double improvement =
        out->base_us > 0 ? (out->base_us - out->tuned_us) / out->base_us * 100.0 : 0.0;
    cJSON_AddNumberToObject(opat, "baseline_total_us", out->base_us);
    cJSON_AddNumberToObject(opat, "tuned_total_us", out->tuned_us);
    cJSON_AddNumberToObject(opat, "improvement_percent", improvement);
    cJSON_AddNumberToObject(opat, "launches", (double)out->launches);
    cJSON_AddNumberToObject(opat, "timed_launches", (double)out->timed_launches);
    cJSON_AddItemToObject(opat, "modified_operators", out->mods);
    cJSON_AddItemToObject(opat, "not_tuned", out->not_tuned);
    cJSON *rs = cJSON_AddObjectToObject(opat, "repo_summary");
    cJSON_AddNumberToObject(rs, "add", out->add);
    cJSON_AddNumberToObject(rs, "hit", out->hit);
    cJSON_AddNumberToObject(rs, "update", out->update);
    cJSON_AddNumberToObject(rs, "reserved", out->reserved);
    cJSON_AddNumberToObject(rs, "unsatisfied", out->unsatisfied);
    cJSON_AddNumberToObject(rs, "total", out->total);
    cJSON *ur = cJSON_AddObjectToObject(rs, "untuned_by_reason");
    for (int r = 1; r < AOE_NT_COUNT; r++) {
        if (!out->untuned[r]) continue;
        cJSON *e = cJSON_AddObjectToObject(ur, aoe_not_tuned_json(r));
        cJSON_AddNumberToObject(e, "operators", out->untuned[r]);
        cJSON_AddNumberToObject(e, "launches", (double)out->untuned_launches[r]);
    }
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text) return -1;
    /* A temporary file created O_EXCL|O_NOFOLLOW, 0600, renamed into place:
     * the result directory may be a shared working directory where someone
     * planted "<name>.json.tmp" as a link to one of our files. */
    char name[200];
    snprintf(name, sizeof name, "%s.json", g_name);
    size_t len = strlen(text);
    text[len] = '\n'; /* cJSON_Print's buffer has room: its terminator */
    int rc = aoe_fs_write_file(aoe_shim.result_dir, name, text, len + 1);
    free(text);
    return rc;
}

double aoe_result_elapsed(void)
{
    if (!atomic_load_explicit(&g_started, memory_order_acquire)) return 0.0;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - g_t0.tv_sec) + (double)(t.tv_nsec - g_t0.tv_nsec) / 1e9;
}

void aoe_result_write(void)
{
    if (!atomic_load_explicit(&g_started, memory_order_acquire)) return;
    summary s;
    pthread_mutex_lock(&g_lock);
    write_file(&s);
    pthread_mutex_unlock(&g_lock);
}

void aoe_result_write_final(void)
{
    if (!atomic_load_explicit(&g_started, memory_order_acquire)) return;
    summary s;
    pthread_mutex_lock(&g_lock);
    int rc = write_file(&s);
    int err = rc ? errno : 0;
    pthread_mutex_unlock(&g_lock);
    char cannot[160] = ""; /* why the file is missing: a read-only or full working directory */
    if (rc) snprintf(cannot, sizeof cannot, " (%s; AOE_WORK_PATH chooses where)", strerror(err));
    double imp = s.base_us > 0 ? (s.base_us - s.tuned_us) / s.base_us * 100.0 : 0.0;
    char times[128] = "";
    if (s.base_us > 0) /* only when some operator has bank times */
        snprintf(times, sizeof times, "; kernel time %.1f us -> %.1f us (%.1f%% less)", s.base_us,
                 s.tuned_us, imp);
    char why[1024] = ""; /* " [N reason (L launches); ...]" */
    size_t at = 0;
    for (int r = 1; r < AOE_NT_COUNT && at < sizeof why; r++)
        if (s.untuned[r])
            at += (size_t)snprintf(why + at, sizeof why - at, "%s%d %s (%llu launches)",
                                   at ? "; " : " [", s.untuned[r], aoe_not_tuned_text(r),
                                   s.untuned_launches[r]);
    if (at && at < sizeof why) snprintf(why + at, sizeof why - at, "]");
    aoe_log(AOE_LOG_INFO,
            "%d operators: %d hit, %d added, %d updated, %d reserved, %d untuned%s%s%s%s/%s.json%s",
            s.total, s.hit, s.add, s.update, s.reserved, s.unsatisfied, why, times,
            rc ? "; cannot write " : "; ", aoe_shim.result_dir, g_name, cannot);
}

void aoe_result_atfork_child(void)
{
    pthread_mutex_init(&g_lock, NULL);
    atomic_store(&g_started, 0);
}
