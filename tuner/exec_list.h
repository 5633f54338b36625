/* The compiled-in executors, one X(name) each: X(opencl) stands for
 * `aoe_exec_opencl` (tuner/exec_opencl.c) replaying jobs whose runtime is
 * "opencl". A new runtime adds its executor files and one line here. */
#ifndef AOE_EXEC_LIST_H
#define AOE_EXEC_LIST_H

/* cublas (tuner/exec_cublas*.c: GEMM library calls) and cuda
 * (tuner/exec_cuda*.c: NVRTC-compiled kernels) need the CUDA headers at build
 * time only (AOE_HAVE_CUDA; they dlopen the libraries). */
#ifdef AOE_HAVE_CUDA
#define AOE_EXECUTORS(X) X(opencl) X(cublas) X(cuda)
#else
#define AOE_EXECUTORS(X) X(opencl)
#endif

#endif
