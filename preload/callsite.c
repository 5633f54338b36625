#include "preload/callsite.h"

#include "preload/runtime.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>

static const char *base_name(const char *path)
{
    const char *s = path ? strrchr(path, '/') : NULL;
    return s ? s + 1 : (path ? path : "?");
}

void aoe_callsite_describe(char *out, size_t outlen)
{
    snprintf(out, outlen, "?");
    Dl_info self;
    if (!dladdr((void *)&aoe_callsite_describe, &self)) return;
    unw_context_t ctx;
    unw_cursor_t cur;
    if (unw_getcontext(&ctx) || unw_init_local(&cur, &ctx)) return;
    /* Walk out of the shim and the runtimes' own libraries (a vendor library
     * calling its runtime's launch function): the first frame in another
     * object is the code that asked for the launch. */
    for (int depth = 0; depth < 32 && unw_step(&cur) > 0; depth++) {
        unw_word_t ip = 0;
        if (unw_get_reg(&cur, UNW_REG_IP, &ip) || !ip) return;
        Dl_info info;
        if (!dladdr((void *)(uintptr_t)(ip - 1), &info)) continue;
        if (info.dli_fbase == self.dli_fbase || aoe_runtime_skips_object(info.dli_fname)) continue;
        /* Two guesses at the function (libunwind reads .symtab, dladdr the
         * dynamic symbols): the nearest one wins; far from any, an offset. */
        char fn[200] = "";
        unw_word_t off = 0;
        uintptr_t best = UINTPTR_MAX;
        if (unw_get_proc_name(&cur, fn, sizeof fn, &off) == 0 && fn[0]) best = (uintptr_t)off;
        if (info.dli_sname && info.dli_saddr && ip - (uintptr_t)info.dli_saddr < best) {
            best = ip - (uintptr_t)info.dli_saddr;
            snprintf(fn, sizeof fn, "%s", info.dli_sname);
        }
        if (best < 0x4000)
            snprintf(out, outlen, "%s:%s", base_name(info.dli_fname), fn);
        else
            snprintf(out, outlen, "%s:0x%lx", base_name(info.dli_fname),
                     (unsigned long)((uintptr_t)ip - (uintptr_t)info.dli_fbase));
        return;
    }
}
