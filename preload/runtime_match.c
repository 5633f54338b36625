/* Matching names against runtime descriptors: functions of a list and a
 * name only (the registry's list in runtime.c, a unit test's own list). */
#include "preload/runtime.h"

#include <stddef.h>
#include <string.h>

/* Length of p's prefix when name begins with it (and, when asked, an upper-
 * case letter follows); 0 otherwise. A byte loop: strncmp is intercepted by
 * the sanitizer runtimes, and this runs inside their start-up. */
AOE_UNINSTRUMENTED static size_t prefix_len(const aoe_runtime_prefix *p, const char *name)
{
    size_t i = 0;
    for (; p->prefix[i]; i++)
        if (name[i] != p->prefix[i]) return 0;
    if (p->upper_next && !(name[i] >= 'A' && name[i] <= 'Z')) return 0;
    return i;
}

AOE_UNINSTRUMENTED const aoe_runtime *aoe_runtime_match_symbol(const aoe_runtime *const *list,
                                                               const char *name)
{
    const aoe_runtime *best = NULL;
    size_t best_len = 0;
    if (!name) return NULL;
    for (; *list; list++)
        for (const aoe_runtime_prefix *p = (*list)->prefixes; p && p->prefix; p++) {
            size_t n = prefix_len(p, name);
            if (n > best_len) { /* strictly longer: the earlier runtime wins a tie */
                best = *list;
                best_len = n;
            }
        }
    return best;
}

const aoe_runtime *aoe_runtime_match_name(const aoe_runtime *const *list, const char *name)
{
    if (!name) return NULL;
    for (; *list; list++)
        if ((*list)->name && !strcmp((*list)->name, name)) return *list;
    return NULL;
}

int aoe_runtime_match_object(const aoe_runtime *const *list, const char *path)
{
    if (!path) return 0;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    for (; *list; list++)
        for (const char *const *s = (*list)->skip_objects; s && *s; s++)
            if (**s && !strncmp(base, *s, strlen(*s))) return 1;
    return 0;
}
