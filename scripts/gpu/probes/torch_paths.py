import torch, torch.nn.functional as F, os, sys
print("torch", torch.__version__, torch.version.cuda, torch.cuda.get_device_name(0), torch.cuda.get_device_properties(0).multi_processor_count)
print("preferred blas", torch.backends.cuda.preferred_blas_library())
dev = "cuda"
for dt in (torch.bfloat16, torch.float16, torch.float32):
    print(f"--- {dt}", file=sys.stderr, flush=True)
    x = torch.randn(64, 4096, device=dev, dtype=dt); W = torch.randn(1024, 4096, device=dev, dtype=dt); b = torch.randn(1024, device=dev, dtype=dt)
    print("-- linear nobias", file=sys.stderr, flush=True); F.linear(x, W); torch.cuda.synchronize()
    print("-- linear bias", file=sys.stderr, flush=True); F.linear(x, W, b); torch.cuda.synchronize()
    print("-- linear bias 3d", file=sys.stderr, flush=True); F.linear(x.view(8, 8, 4096), W, b); torch.cuda.synchronize()
    print("-- mm", file=sys.stderr, flush=True); x @ W.t(); torch.cuda.synchronize()
    print("-- bmm", file=sys.stderr, flush=True); torch.bmm(torch.randn(4, 64, 128, device=dev, dtype=dt), torch.randn(4, 128, 64, device=dev, dtype=dt)); torch.cuda.synchronize()
    print("-- linear nobias M=1", file=sys.stderr, flush=True); F.linear(x[:1], W); torch.cuda.synchronize()
    print("-- addmm_activation gelu", file=sys.stderr, flush=True); torch._addmm_activation(b, x, W.t(), use_gelu=True); torch.cuda.synchronize()
torch.backends.cuda.matmul.allow_tf32 = True
print("-- fp32 tf32 mm", file=sys.stderr, flush=True)
x = torch.randn(64, 4096, device=dev); W = torch.randn(1024, 4096, device=dev); x @ W.t(); torch.cuda.synchronize()
print("-- sdpa", file=sys.stderr, flush=True)
q = torch.randn(1, 8, 128, 64, device=dev, dtype=torch.bfloat16); F.scaled_dot_product_attention(q, q, q); torch.cuda.synchronize()
maps = open("/proc/self/maps").read()
libs = sorted({l.split()[-1] for l in maps.splitlines() if "cublas" in l or "cudart" in l or "nvrtc" in l or "libcuda" in l})
print("\n".join(libs))
print("-- cublasLt preferred", file=sys.stderr, flush=True)
torch.backends.cuda.preferred_blas_library("cublaslt")
x = torch.randn(64, 4096, device=dev, dtype=torch.bfloat16); W = torch.randn(1024, 4096, device=dev, dtype=torch.bfloat16)
F.linear(x, W); x @ W.t(); torch.bmm(x.view(1,64,4096), W.t().unsqueeze(0)); torch.cuda.synchronize()
import time
torch.backends.cuda.preferred_blas_library("cublas")
for f, lab in ((lambda: F.linear(x, W), "nobias"), (lambda: F.linear(x, W, torch.randn(1024, device=dev, dtype=torch.bfloat16)), "bias")):
    for _ in range(10): f()
    torch.cuda.synchronize(); t = time.perf_counter()
    for _ in range(1000): f()
    torch.cuda.synchronize(); print(f"host+gpu per {lab} call: {(time.perf_counter()-t)*1e3:.2f} us", file=sys.stderr)
