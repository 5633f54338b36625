/* Fork handling. A child inherits the parent's memory but not its threads,
 * and LMDB handles must not be used across fork: the child abandons the
 * parent's bank handle (never closes it), re-arms its locks, and sets up its
 * own state lazily on its first runtime call. The handler does no I/O, so a
 * child that only execs a helper program pays nothing measurable. */
#include "launch/op_table.h"
#include "preload/reclaim.h"
#include "preload/result_file.h"
#include "preload/shim.h"
#include "preload/spool_write.h"

#include <pthread.h>

unsigned aoe_fork_epoch;

static void runtime_child(const aoe_runtime *rt, void *ctx)
{
    (void)ctx;
    if (rt->atfork_child) rt->atfork_child();
}

static void child(void)
{
    aoe_fork_epoch++;
    aoe_poller_atfork_child();
    aoe_reclaim_atfork_child();
    aoe_op_table_atfork_child();
    aoe_result_atfork_child();
    aoe_tuner_spawn_atfork_child();
    aoe_runtime_each(runtime_child, NULL);
    aoe_shim_atfork_child();
}

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static void do_register(void)
{
    pthread_atfork(NULL, NULL, child);
}

void aoe_fork_register(void)
{
    pthread_once(&g_once, do_register);
}
