/* Device fingerprint (AOE's soc_version): runtime | vendor | device | driver |
 * compute units. Each runtime file queries its device and formats it here, so
 * the shim and the tuner executor agree byte for byte. */
#ifndef AOE_FINGERPRINT_H
#define AOE_FINGERPRINT_H

#include <stddef.h>

/* Writes "runtime|vendor|device|driver|cu=N" (fields trimmed, '|' replaced). */
void aoe_fingerprint_format(char *out, size_t outlen, const char *runtime, const char *vendor,
                            const char *device, const char *driver, unsigned compute_units);

#endif
