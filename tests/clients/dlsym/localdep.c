/* A dependency of plugin.so only: in the plugin's local scope, not global. */
int aoe_dlsym_local_dep(void)
{
    return 2;
}
