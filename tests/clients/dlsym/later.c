/* A library linked after liblinked.so: one symbol only it defines, and one
 * liblinked.so defines too. */
int aoe_dlsym_later(void)
{
    return 1;
}
int aoe_dlsym_twice(void)
{
    return 1;
}
