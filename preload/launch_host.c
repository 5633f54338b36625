/* See launch_host.h: thin adapters from launch/host.h to preload/. */
#include "preload/launch_host.h"

#include "core/config.h"
#include "launch/host.h"
#include "launch/op_table.h"
#include "preload/callsite.h"
#include "preload/not_tuned.h"
#include "preload/policy_check.h"
#include "preload/reclaim.h"
#include "preload/result_file.h"
#include "preload/shim.h"
#include "preload/spool_write.h"
#include "preload/tune_ops.h"

#include <stdatomic.h>

/* The result file and the poller start with the first operator of a
 * process (a forked child starts its own): checked without a lock. */
static atomic_uint g_started_epoch = ~0u;
static void start(void)
{
    if (atomic_load_explicit(&g_started_epoch, memory_order_relaxed) == aoe_fork_epoch) return;
    aoe_result_start();
    aoe_poller_start();
    atomic_store_explicit(&g_started_epoch, aoe_fork_epoch, memory_order_relaxed);
}

static void refresh(aoe_op *op)
{
    aoe_bank *bank = aoe_shim_bank();
    if (bank) aoe_op_refresh(op, bank);
}

static int allows(const char *kernel_name)
{
    return aoe_tune_ops_allows(kernel_name);
}

static void not_tuned(const char *kernel_name, int reason, const char *detail)
{
    aoe_not_tuned_note(kernel_name, reason, detail);
}

static int spool_has(const aoe_key *key)
{
    return aoe_spool_has(key);
}

static int spool_full(void)
{
    return aoe_spool_full();
}

static aoe_launch_host g_host = {
    .version = AOE_LAUNCH_HOST_VERSION,
    .retire = aoe_retire,
    .start = start,
    .call_site = aoe_callsite_describe,
    .refresh = refresh,
    .note_active = aoe_shim_note_active,
    .allows = allows,
    .not_tuned = not_tuned,
    .tunables = aoe_shim_tunables_for,
    .spool_has = spool_has,
    .spool_full = spool_full,
    .spool_submit = aoe_spool_submit,
    .tuner_spawn = aoe_tuner_spawn,
};

void aoe_preload_launch_host_install(void)
{
    g_host.capture = aoe_shim.mode != AOE_MODE_OFF;
    g_host.repeat = aoe_shim.repeat;
    g_host.capture_limit = (uint64_t)aoe_shim.cfg.num[AOE_CFG_CAPTURE_LIMIT_MB] << 20;
    g_host.auto_defines = aoe_shim.cfg.num[AOE_CFG_AUTO_DEFINES] != 0;
    g_host.spool_dir = aoe_shim.spool_dir;
    aoe_launch_set_host(&g_host);
}
