/* The "cubin" of the CUDA test doubles: what the fake NVRTC (tests/fakenvrtc)
 * returns from nvrtcGetCUBIN / nvrtcGetPTX and what the fake driver
 * (tests/fakecuda) loads with cuModuleLoadData(Ex) / cuLibraryLoadData. The
 * fakes' kernels are host functions: a kernel NAME of an image runs the
 * function `fakecuda_kernel_NAME` that the test program exports (found with
 * dlsym(RTLD_DEFAULT)), with the image's -D values visible to it, so a
 * variant compiled with other values can behave and "take time" differently.
 *
 * Format: NUL-terminated text, one item per line, '\n' line ends:
 *   AOEFAKECUBIN 1            the magic line (FAKE_IMAGE_MAGIC), always first
 *   arch sm_XY                the target (from --gpu-architecture / -arch)
 *   define NAME VALUE         one per -DNAME=VALUE (VALUE "1" for -DNAME)
 *   kernel NAME               one per __global__ function of the source
 *   hash HEX16                64-bit FNV-1a of the source text, hex
 * Names are C identifiers (at most 255 characters); at most 64 defines and
 * 64 kernels. A PTX image is the same text with the magic AOEFAKEPTX 1.
 * Anything else handed to the fake driver (a real fatbin or cubin from an
 * nvcc-built program) is accepted as a module whose functions have no host
 * implementation: looking them up works, launching them does nothing and
 * returns CUDA_SUCCESS (the program's results are then not checked). */
#ifndef FAKE_IMAGE_H
#define FAKE_IMAGE_H

#define FAKE_IMAGE_MAGIC "AOEFAKECUBIN 1\n"
#define FAKE_IMAGE_PTX_MAGIC "AOEFAKEPTX 1\n"
#define FAKE_IMAGE_MAX_NAME 255
#define FAKE_IMAGE_MAX_DEFINES 64
#define FAKE_IMAGE_MAX_KERNELS 64
/* The prefix of a kernel's host implementation in the test program. */
#define FAKE_IMAGE_HOST_PREFIX "fakecuda_kernel_"

#endif
