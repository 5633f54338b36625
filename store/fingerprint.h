/* Device fingerprint (AOE's soc_version): runtime | vendor | device | driver |
 * compute units [| architecture]. Each runtime file queries its device and
 * formats it here, so the shim and the tuner executor agree byte for byte.
 * The string is the identity bank entries and operator keys hang off: a
 * device's fingerprint must never change, so the architecture is appended
 * only when the runtime names one, and OpenCL names none (its fingerprints
 * stay what every existing bank holds). */
#ifndef AOE_FINGERPRINT_H
#define AOE_FINGERPRINT_H

#include <stddef.h>

/* A device as its runtime describes it. NULL strings count as "". */
typedef struct {
    const char *runtime; /* "opencl", "cuda" */
    const char *vendor, *device, *driver;
    unsigned compute_units;
    /* The instruction-set architecture a program is compiled for ("sm_90",
     * "gfx90a"), or "" when the runtime's fingerprint carries none. */
    const char *arch;
} aoe_device_desc;

/* Longest architecture kept (longer ones are cut). */
#define AOE_ARCH_LEN 32

/* Writes "runtime|vendor|device|driver|cu=N", then "|arch=A" when arch is
 * not empty (fields trimmed, '|' replaced by '/'). When out is too short:
 * with an architecture the first four fields are cut to keep the tail;
 * without one the string is cut at the end, as it always was. */
void aoe_fingerprint_build(char *out, size_t outlen, const aoe_device_desc *d);

/* aoe_fingerprint_build without an architecture (the OpenCL fingerprint). */
void aoe_fingerprint_format(char *out, size_t outlen, const char *runtime, const char *vendor,
                            const char *device, const char *driver, unsigned compute_units);

/* The CUDA fingerprint (the form the cublas hooks, the CUDA executors and a
 * future driver-API runtime share): "cuda|NVIDIA|<device
 * name>|<driver>|cu=<SMs>|arch=sm_<major><minor>", e.g. "cuda|NVIDIA|NVIDIA H100 80GB
 * HBM3|13000|cu=132|arch=sm_90". The device name is cuDeviceGetName's, the driver
 * cuDriverGetVersion's number (not the driver build, so a driver update keeps the bank), the SM
 * count CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT (MIG slices and PCIe/SXM parts differ) and the
 * compute capability that of CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR/MINOR. */
void aoe_fingerprint_cuda(char *out, size_t outlen, const char *device_name, int driver_version,
                          unsigned sms, int cc_major, int cc_minor);

/* The architecture a fingerprint names into out ("" when it names none, as
 * every OpenCL and older fingerprint). Returns out. */
char *aoe_fingerprint_arch(const char *fingerprint, char *out, size_t outlen);

#endif
