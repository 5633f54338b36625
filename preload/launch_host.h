/* The shim's services for the launch core (launch/host.h): the bank, the
 * spool, the result file, AOE_TUNE_OPS, call sites, policy reclamation. */
#ifndef AOE_PRELOAD_LAUNCH_HOST_H
#define AOE_PRELOAD_LAUNCH_HOST_H

/* Fills the host from the configuration and installs it (initialisation). */
void aoe_preload_launch_host_install(void);

#endif
