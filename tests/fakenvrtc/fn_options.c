/* The fake NVRTC compiler's options and macro definitions (fn_internal.h):
 * -D forms, the target architecture, the options accepted and ignored. */
#include "fn_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const int fn_supported_archs[] = {75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121};
const int fn_n_supported_archs = (int)(sizeof fn_supported_archs / sizeof fn_supported_archs[0]);

int fn_arch_supported(const char *arch, int *real)
{
    const char *p;
    if (!strncmp(arch, "sm_", 3))
        p = arch + 3;
    else if (!strncmp(arch, "compute_", 8))
        p = arch + 8;
    else
        return 0;
    if (!isdigit((unsigned char)*p)) return 0;
    char *end;
    long v = strtol(p, &end, 10);
    if (*end && !((*end == 'a' || *end == 'f') && !end[1])) return 0;
    for (int i = 0; i < fn_n_supported_archs; i++)
        if (fn_supported_archs[i] == v) {
            if (real) *real = arch[0] == 's';
            return 1;
        }
    return 0;
}

int fn_is_ident(const char *s, size_t n)
{
    if (!n || n > FAKE_IMAGE_MAX_NAME || !(isalpha((unsigned char)s[0]) || s[0] == '_')) return 0;
    for (size_t i = 1; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_')) return 0;
    return 1;
}

fn_define *fn_find_define(fn_output *out, const char *name, size_t n)
{
    for (int i = 0; i < out->n_defines; i++)
        if (strlen(out->defines[i].name) == n && !strncmp(out->defines[i].name, name, n))
            return &out->defines[i];
    return NULL;
}

/* NAME or NAME=VALUE; a later definition of a name replaces the earlier. */
int fn_add_define(fn_output *out, const char *def, size_t name_len, const char *value, char *log,
                  size_t loglen)
{
    if (!fn_is_ident(def, name_len))
        return fn_log(log, loglen, FN_INVALID_OPTION, "nvrtc: error: invalid macro name in -D%s\n",
                      def);
    if (strlen(value) >= sizeof out->defines[0].value || strchr(value, '\n'))
        return fn_log(log, loglen, FN_INVALID_OPTION,
                      "fake nvrtc: error: -D%.*s: value too long or multi-line\n", (int)name_len,
                      def);
    fn_define *d = fn_find_define(out, def, name_len);
    if (!d) {
        if (out->n_defines == FAKE_IMAGE_MAX_DEFINES)
            return fn_log(log, loglen, FN_INVALID_OPTION,
                          "fake nvrtc: error: more than %d macro definitions\n",
                          FAKE_IMAGE_MAX_DEFINES);
        d = &out->defines[out->n_defines++];
        memcpy(d->name, def, name_len);
        d->name[name_len] = '\0';
    }
    snprintf(d->value, sizeof d->value, "%s", value);
    return FN_SUCCESS;
}

static int option_define(fn_output *out, const char *def, char *log, size_t loglen)
{
    while (*def == ' ') def++;
    const char *eq = strchr(def, '=');
    return fn_add_define(out, def, eq ? (size_t)(eq - def) : strlen(def), eq ? eq + 1 : "1", log,
                         loglen);
}

static int option_arch(fn_output *out, const char *arch, char *log, size_t loglen)
{
    if (!fn_arch_supported(arch, NULL) || strlen(arch) >= sizeof out->arch)
        return fn_log(log, loglen, FN_INVALID_OPTION,
                      "nvrtc: error: invalid value for --gpu-architecture (-arch)\n");
    snprintf(out->arch, sizeof out->arch, "%s", arch);
    return FN_SUCCESS;
}

/* The value of an option spelled OPT=V, OPT V (one string) or OPT then V (the
 * next string); NULL when opt is not this option. */
static const char *option_value(const char *opt, const char *name, int attached, int i, int n,
                                const char *const *options, int *consumed)
{
    size_t len = strlen(name);
    if (strncmp(opt, name, len)) return NULL;
    const char *rest = opt + len;
    if (*rest == '=' || *rest == ' ') return rest + 1;
    if (*rest && attached) return rest; /* -DNAME, -I/dir */
    if (*rest) return NULL;             /* a longer option sharing the prefix */
    if (i + 1 < n && options[i + 1]) {
        *consumed = 1;
        return options[i + 1];
    }
    return "";
}

int fn_parse_options(fn_output *out, int n, const char *const *options, char *log, size_t loglen)
{
    for (int i = 0; i < n; i++) {
        const char *o = options[i], *v;
        int consumed = 0, rc = FN_SUCCESS;
        if ((v = option_value(o, "--define-macro", 0, i, n, options, &consumed)) ||
            (v = option_value(o, "-D", 1, i, n, options, &consumed)))
            rc = option_define(out, v, log, loglen);
        else if ((v = option_value(o, "--gpu-architecture", 0, i, n, options, &consumed)) ||
                 (v = option_value(o, "-arch", 0, i, n, options, &consumed)))
            rc = option_arch(out, v, log, loglen);
        else if ((v = option_value(o, "--include-path", 0, i, n, options, &consumed)) ||
                 (v = option_value(o, "-I", 1, i, n, options, &consumed)) ||
                 (v = option_value(o, "--pre-include", 0, i, n, options, &consumed)) ||
                 (v = option_value(o, "-include", 0, i, n, options, &consumed)))
            (void)v; /* accepted; the fake reads no files */
        /* -std=..., --std=..., -default-device, -ftz=true, ...: accepted. */
        if (rc) return rc;
        i += consumed;
    }
    return FN_SUCCESS;
}
