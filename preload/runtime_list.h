/* The runtimes compiled into the shim, declared once: each X(rt) names the
 * descriptor aoe_runtime_<rt> its hooks/<rt>*.c define. Adding a runtime is
 * one entry here (docs/design.md, "Adding a runtime"). */
#ifndef AOE_RUNTIME_LIST_H
#define AOE_RUNTIME_LIST_H

/* The cuBLAS / cuBLASLt, driver and NVRTC hooks need the CUDA headers to build. */
#ifdef AOE_HAVE_CUDA
#define AOE_RUNTIMES(X) X(opencl) X(cublas) X(cuda) X(nvrtc)
#else
#define AOE_RUNTIMES(X) X(opencl)
#endif

/* A test build of the shim adds its own runtimes after these: it names a
 * header defining AOE_EXTRA_RUNTIMES(X) (tests/toyrt/toy_runtime_list.h).
 * Production adds none. */
#ifdef AOE_EXTRA_RUNTIMES_HEADER
#include AOE_EXTRA_RUNTIMES_HEADER
#endif
#ifndef AOE_EXTRA_RUNTIMES
#define AOE_EXTRA_RUNTIMES(X)
#endif

#endif
