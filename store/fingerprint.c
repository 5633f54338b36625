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

void aoe_fingerprint_build(char *out, size_t outlen, const aoe_device_desc *d)
{
    const char *fields[4] = {d->runtime, d->vendor, d->device, d->driver};
    char tail[48 + AOE_ARCH_LEN], arch[AOE_ARCH_LEN];
    if (!outlen) return;
    put_field(arch, sizeof arch, d->arch);
    int tl =
        snprintf(tail, sizeof tail, "cu=%u%s%s", d->compute_units, arch[0] ? "|arch=" : "", arch);
    size_t n = 0;
    out[0] = '\0';
    if (arch[0] && (size_t)tl + 5 < outlen) {
        /* The fields are cut to leave room for the tail and all four
         * separators, so the architecture is always the sixth field. */
        size_t room = outlen - (size_t)tl;
        for (int i = 0; i < 4; i++) {
            n += put_field(out + n, room - n - (size_t)(4 - i), fields[i]);
            out[n++] = '|';
        }
    } else {
        /* Cut as fingerprints always were (at the end): an existing device's
         * string, truncated or not, stays the same. */
        for (int i = 0; i < 4 && n + 1 < outlen; i++) {
            n += put_field(out + n, outlen - n, fields[i]);
            if (n + 1 < outlen) out[n++] = '|', out[n] = '\0';
        }
    }
    if (n < outlen) snprintf(out + n, outlen - n, "%s", tail);
}

void aoe_fingerprint_format(char *out, size_t outlen, const char *runtime, const char *vendor,
                            const char *device, const char *driver, unsigned compute_units)
{
    aoe_device_desc d = {runtime, vendor, device, driver, compute_units, NULL};
    aoe_fingerprint_build(out, outlen, &d);
}

void aoe_fingerprint_cuda(char *out, size_t outlen, const char *device_name, int driver_version,
                          unsigned sms, int cc_major, int cc_minor)
{
    char driver[16], arch[AOE_ARCH_LEN];
    snprintf(driver, sizeof driver, "%d", driver_version);
    snprintf(arch, sizeof arch, "sm_%d%d", cc_major, cc_minor);
    aoe_device_desc d = {"cuda", "NVIDIA", device_name, driver, sms, arch};
    aoe_fingerprint_build(out, outlen, &d);
}

char *aoe_fingerprint_arch(const char *fingerprint, char *out, size_t outlen)
{
    const char *p = fingerprint ? fingerprint : "";
    if (!outlen) return out;
    out[0] = '\0';
    /* the sixth field, when it is "arch=...": no field holds a '|' */
    for (int bars = 0; bars < 5; bars++) {
        p = strchr(p, '|');
        if (!p) return out;
        p++;
    }
    if (!strncmp(p, "arch=", 5)) snprintf(out, outlen, "%.*s", (int)strcspn(p + 5, "|"), p + 5);
    return out;
}
