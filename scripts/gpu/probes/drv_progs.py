import sys, os
which = sys.argv[1]
if which == "torch":
    import torch
    x = torch.randn(256, 256, device="cuda"); y = (x @ x).sum(); torch.cuda.synchronize(); print("torch ok", float(y) != 0)
    z = torch.special.i1(x); torch.cuda.synchronize(); print("jiterator ok")
elif which == "compile":
    import torch
    @torch.compile
    def f(a, b): return torch.relu(a * b + 1.0).sum(dim=1)
    a = torch.randn(1024, 1024, device="cuda"); print("compile ok", float(f(a, a).sum()) != 0)
elif which == "cupy":
    import cupy as cp
    k = cp.RawKernel(r'''extern "C" __global__ void axpy(const float* x, float* y, float a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] += a * x[i]; }''', "axpy")
    x = cp.arange(1 << 20, dtype=cp.float32); y = cp.zeros_like(x); k(((1 << 20) // 256,), (256,), (x, y, cp.float32(2.0), cp.int32(1 << 20)))
    e = cp.ElementwiseKernel("float32 x", "float32 y", "y = x * 3", "triple"); w = e(x)
    cp.cuda.runtime.deviceSynchronize(); print("cupy ok", float(y[5]), float(w[5]))
