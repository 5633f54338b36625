#include "store/fingerprint.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Copies a field trimmed, with '|' (our separator) replaced by '/'. */
static size_t put_field(char *out, size_t cap, const char *s)
{
    size_t n = 0;
    if (!s) s = "";
    while (isspace((unsigned char)*s)) s++;
    size_t len = strlen(s);
    while (len && isspace((unsigned char)s[len - 1])) len--;
    for (size_t i = 0; i < len && n + 1 < cap; i++) out[n++] = s[i] == '|' ? '/' : s[i];
    if (cap) out[n] = '\0';
    return n;
}

void aoe_fingerprint_format(char *out, size_t outlen, const char *runtime, const char *vendor,
                            const char *device, const char *driver, unsigned compute_units)
{
    const char *fields[4] = {runtime, vendor, device, driver};
    size_t n = 0;
    if (!outlen) return;
    out[0] = '\0';
    for (int i = 0; i < 4 && n + 1 < outlen; i++) {
        n += put_field(out + n, outlen - n, fields[i]);
        if (n + 1 < outlen) out[n++] = '|', out[n] = '\0';
    }
    if (n < outlen) snprintf(out + n, outlen - n, "cu=%u", compute_units);
}
