#include "launch/host.h"

#include <stdatomic.h>
#include <stddef.h>

/* Until a host is set: no capture, no services, retired policies kept. */
static const aoe_launch_host g_none = {.version = AOE_LAUNCH_HOST_VERSION};
static _Atomic(const aoe_launch_host *) g_host;

void aoe_launch_set_host(const aoe_launch_host *h)
{
    atomic_store_explicit(&g_host, h, memory_order_release);
}

const aoe_launch_host *aoe_launch_get_host(void)
{
    const aoe_launch_host *h = atomic_load_explicit(&g_host, memory_order_acquire);
    return h && h->version == AOE_LAUNCH_HOST_VERSION ? h : &g_none;
}
