#!/usr/bin/env python3
"""The CUDA programs of issue 15's GPU check, one per invocation (scripts/gpu/cuda-compare runs
each with and without the shim and compares): every program prints one line per result, a
checksum that must be identical with and without AOE, and the GPU time of its main kernel.

  cupy_gemm     CuPy RawModule: a tiled SGEMM whose tile sizes are `#ifndef` defaults (TS, WPT),
                compiled by NVRTC (the kernel AOE may tune: etc/tunables/cuda_sgemm.json)
  cupy_elem     CuPy RawKernel (saxpy) and an ElementwiseKernel
  torch_eager   PyTorch eager: linear, softmax, layer norm, a reduction
  torch_compile torch.compile (Inductor/Triton) of a small MLP block
Usage: cuda_programs.py PROGRAM [--n N]
"""
import argparse
import hashlib
import sys

SGEMM = r"""
#ifndef TS
#define TS 16
#endif
#ifndef WPT
#define WPT 1
#endif
extern "C" __global__ void sgemm_tiled(const float* A, const float* B, float* C, int M, int N, int K)
{
    __shared__ float As[TS][TS];
    __shared__ float Bs[TS][TS];
    const int row = blockIdx.y * TS + threadIdx.y * WPT;
    const int col = blockIdx.x * TS + threadIdx.x;
    float acc[WPT];
    for (int w = 0; w < WPT; w++) acc[w] = 0.0f;
    for (int t = 0; t < K; t += TS) {
        for (int w = 0; w < WPT; w++) {
            int r = threadIdx.y * WPT + w;
            As[r][threadIdx.x] = A[(blockIdx.y * TS + r) * K + t + threadIdx.x];
            Bs[r][threadIdx.x] = B[(t + r) * N + col];
        }
        __syncthreads();
        for (int k = 0; k < TS; k++)
            for (int w = 0; w < WPT; w++) acc[w] += As[threadIdx.y * WPT + w][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    for (int w = 0; w < WPT; w++) C[(row + w) * N + col] = acc[w];
}
"""


def digest(arr):
    return hashlib.sha256(arr.tobytes()).hexdigest()[:16]


def gpu_ms(fn, cp, reps=20):
    fn()
    cp.cuda.Device().synchronize()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    for _ in range(reps):
        fn()
    end.record()
    end.synchronize()
    return cp.cuda.get_elapsed_time(start, end) / reps


def cupy_gemm(n):
    import cupy as cp
    mod = cp.RawModule(code=SGEMM, options=("-std=c++17",))
    k = mod.get_function("sgemm_tiled")
    rs = cp.random.RandomState(7)
    a = rs.standard_normal((n, n), dtype=cp.float32)
    b = rs.standard_normal((n, n), dtype=cp.float32)
    c = cp.zeros((n, n), dtype=cp.float32)
    run = lambda: k((n // 16, n // 16), (16, 16), (a, b, c, cp.int32(n), cp.int32(n), cp.int32(n)))
    ms = gpu_ms(run, cp)
    err = float(cp.abs(c - a @ b).max())
    print(f"cupy_gemm: n={n} max_abs_err_vs_cublas={err:.3e} checksum={digest(cp.asnumpy(c))}")
    print(f"cupy_gemm: kernel_ms={ms:.4f}")


def cupy_elem(n):
    import cupy as cp
    saxpy = cp.RawKernel(r"""extern "C" __global__ void saxpy(const float* x, float* y, float a, int n)
    { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] += a * x[i]; }""", "saxpy")
    x = cp.arange(n * n, dtype=cp.float32)
    y = cp.ones_like(x)
    saxpy(((n * n + 255) // 256,), (256,), (x, y, cp.float32(2.0), cp.int32(n * n)))
    triple = cp.ElementwiseKernel("float32 x", "float32 y", "y = x * 3 + 1", "aoe_triple")
    z = triple(y)
    cp.cuda.Device().synchronize()
    print(f"cupy_elem: checksum={digest(cp.asnumpy(y))}/{digest(cp.asnumpy(z))}")


def torch_eager(n):
    import torch
    torch.manual_seed(0)
    x = torch.randn(n, n, device="cuda")
    lin = torch.nn.Linear(n, n, device="cuda")
    y = torch.softmax(lin(x), dim=-1)
    z = torch.nn.functional.layer_norm(y, (n,)).sum(dim=0)
    torch.cuda.synchronize()
    print(f"torch_eager: checksum={digest(z.cpu().numpy())}")


def torch_compile(n):
    import torch
    torch.manual_seed(0)
    x = torch.randn(n, n, device="cuda")
    w = torch.randn(n, n, device="cuda") / n ** 0.5

    @torch.compile
    def block(a, b):
        return torch.nn.functional.gelu(a @ b).sum(dim=1) + a.mean()

    out = block(x, w)
    torch.cuda.synchronize()
    print(f"torch_compile: checksum={digest(out.cpu().numpy())}")


PROGRAMS = {"cupy_gemm": cupy_gemm, "cupy_elem": cupy_elem, "torch_eager": torch_eager,
            "torch_compile": torch_compile}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("program", choices=sorted(PROGRAMS))
    ap.add_argument("--n", type=int, default=1024, help="problem size (a multiple of 64)")
    args = ap.parse_args()
    if args.n % 64:
        sys.exit("cuda_programs.py: --n must be a multiple of 64")
    PROGRAMS[args.program](args.n)


if __name__ == "__main__":
    main()
