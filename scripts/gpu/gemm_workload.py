#!/usr/bin/env python3
"""One measurement pass of AOE's GEMM comparison (scripts/gpu/gemm-compare runs it once per
mode, each in its own process, since LD_PRELOAD and PyTorch's TunableOp are chosen at start).

Runs on an NVIDIA GPU with PyTorch; no download, no file but --out. It measures:
  * a sweep of LLM GEMM shapes through F.linear without bias (cublasGemmEx), with bias
    (cublasLtMatmulAlgoGetHeuristic + cublasLtMatmul), torch.mm and torch.bmm, bf16 and fp16:
    GPU time per call (CUDA events, median of --reps runs of --inner calls, L2 flushed before
    each run; with --rotate-weights each linear call reads a weight the L2 does not hold),
    host microseconds per call (issue only), and a sample of each output (compared across
    modes by the driver);
  * with --autotune, the bias-free shapes once more through cublasGemmEx called directly
    (ctypes, the libcublas PyTorch loaded) with CUBLAS_GEMM_AUTOTUNE (algo 999);
  * a Llama-shaped decoder stack built in code (attention projections and a SwiGLU MLP, no
    attention kernel: the GEMMs are what AOE tunes): tokens/s for decode batches and a prefill
    (the median of 7 timed blocks);
  * host microseconds to issue one small elementwise kernel (nothing AOE tunes): the cost an
    interposer adds to every launch.
--dtypes, --ops, --ms and --model-configs narrow the sweep and the decoder runs (a GPU session's
time is short; the tuner takes 16-80 s per shape on an H200).
With --until-stable S it repeats the sweep for up to S seconds and records, per shape, the time
of every pass (the driver derives "seconds from first call to tuned").
"""
import argparse
import ctypes
import json
import math
import os
import statistics
import sys
import time
import warnings

try:
    import torch
    import torch.nn.functional as F
except ImportError:  # --help still works; main() says PyTorch is needed
    torch = F = None

HIDDEN, INTER, VOCAB, HEADS, HEAD_DIM = 4096, 14336, 128256, 32, 128


DTYPES = {"bf16": "bfloat16", "fp16": "float16"}
OPS = ("linear", "linear_bias", "mm", "bmm")


def csv_list(text, conv=str):
    return [conv(x) for x in text.split(",") if x]


def sweep_shapes(args):
    """(op, dtype, M, N, K, batch): F.linear(x[M,K], W[N,K]) and friends as an LLM issues them,
    narrowed by --dtypes, --ops and --ms (the M of the linear shapes)."""
    quick = args.quick
    ms = args.ms or ([1, 16, 64] if quick else [1, 8, 16, 32, 64, 256, 512, 2048])
    nk = [(3 * HIDDEN, HIDDEN), (HIDDEN, HIDDEN), (INTER, HIDDEN), (HIDDEN, INTER)]
    if not quick:
        nk.append((VOCAB, HIDDEN))
    out = []
    for dname in args.dtypes:
        dt = getattr(torch, DTYPES[dname])
        for m in ms:
            for n, k in nk:
                out.append(("linear", dt, m, n, k, 1))
                out.append(("linear_bias", dt, m, n, k, 1))
        for m, n, k in ((1024, 1024, 1024), (4096, 4096, 4096)) if not quick else ((1024, 1024, 1024),):
            out.append(("mm", dt, m, n, k, 1))
        for seq in (128, 1024) if not quick else (128,):
            out.append(("bmm", dt, seq, seq, HEAD_DIM, HEADS))  # scores: q @ k^T per head
            out.append(("bmm", dt, seq, HEAD_DIM, seq, HEADS))  # scores @ v
    return [s for s in out if s[0] in args.ops]


def weight_copies(n, k, dt):
    """Copies of an [n, k] weight that calls cycling through them leave cold in the L2, as a
    model's layers do (each has its own weights) and as AOE's tuner times a GEMM (rotating
    copies of A and B, tuner/exec_cublas.c): enough that the others overflow twice the L2, at
    most 8 and 1 GiB."""
    size = n * k * torch.finfo(dt).bits // 8
    l2 = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 50 << 20)
    c = 1
    while c < 8 and (c - 1) * size < 2 * l2 and (c + 1) * size <= 1 << 30:
        c += 1
    return c


def make_operands(op, dt, m, n, k, batch, gen, rotate=False):
    dev = "cuda"
    if op in ("linear", "linear_bias"):
        x = torch.randn(m, k, generator=gen, device=dev, dtype=dt)
        w = torch.randn(n, k, generator=gen, device=dev, dtype=dt) / math.sqrt(k)
        b = torch.randn(n, generator=gen, device=dev, dtype=dt) if op == "linear_bias" else None
        if rotate:
            ws = [w] + [w.clone() for _ in range(weight_copies(n, k, dt) - 1)]
            turn = [0]

            def call():
                turn[0] = (turn[0] + 1) % len(ws)
                return F.linear(x, ws[turn[0]], b)
            return call, (x, ws, b)
        return (lambda: F.linear(x, w, b)), (x, w, b)
    if op == "mm":
        a = torch.randn(m, k, generator=gen, device=dev, dtype=dt)
        bm = torch.randn(k, n, generator=gen, device=dev, dtype=dt) / math.sqrt(k)
        return (lambda: torch.mm(a, bm)), (a, bm)
    a = torch.randn(batch, m, k, generator=gen, device=dev, dtype=dt)
    bm = torch.randn(batch, k, n, generator=gen, device=dev, dtype=dt) / math.sqrt(k)
    return (lambda: torch.bmm(a, bm)), (a, bm)


class L2Flush:
    def __init__(self):
        self.buf = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")

    def __call__(self):
        self.buf.zero_()


def gpu_time_us(fn, flush, reps, inner):
    times = []
    for _ in range(reps):
        flush()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(inner):
            fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1000.0 / inner)
    return statistics.median(times)


def host_us(fn, calls):
    torch.cuda.synchronize()
    t0 = time.perf_counter_ns()
    for _ in range(calls):
        fn()
    t1 = time.perf_counter_ns()
    torch.cuda.synchronize()
    return (t1 - t0) / calls / 1000.0


def kernels_per_call(fn):
    """The GPU kernels (and memsets) one call issues, by PyTorch's profiler: a policy that adds a
    split-K reduction kernel costs the host one more launch per call. None when the profiler
    cannot say."""
    try:
        from torch.profiler import ProfilerActivity, profile
        fn()
        torch.cuda.synchronize()
        with warnings.catch_warnings():  # its notes on event cycles, once per process
            warnings.simplefilter("ignore")
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for _ in range(10):
                    fn()
                torch.cuda.synchronize()
        n = sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA)
        return n / 10.0
    except Exception as e:  # the figure is optional: say why it is missing
        print(f"gemm_workload.py: no kernel count ({e})", file=sys.stderr)
        return None


def sample(t):
    """Up to 4096 evenly spaced elements of the output, as float64 numbers."""
    flat = t.reshape(-1)
    step = max(1, flat.numel() // 4096)
    return flat[::step][:4096].double().cpu().tolist()


def shape_name(op, dt, m, n, k, batch):
    d = "bf16" if dt == torch.bfloat16 else "fp16"
    return f"{op}/{d}/M{m}/N{n}/K{k}" + (f"/b{batch}" if batch > 1 else "")


def run_sweep(args, flush, passes):
    results = {}
    gen = torch.Generator(device="cuda")
    for spec in sweep_shapes(args):
        gen.manual_seed(1234)
        fn, keep = make_operands(*spec, gen, rotate=args.rotate_weights)
        fn()
        torch.cuda.synchronize()
        name = shape_name(*spec)
        results[name] = {"gpu_us": gpu_time_us(fn, flush, args.reps, args.inner),
                         "host_us": host_us(fn, 200), "sample": sample(fn())}
        if args.count_kernels:
            results[name]["kernels"] = kernels_per_call(fn)
        del keep
    passes.append({"t": time.time(), "gpu_us": {k: v["gpu_us"] for k, v in results.items()}})
    return results


def cublas_autotune_sweep(args, flush):
    """The bias-free linear shapes through cublasGemmEx(algo=CUBLAS_GEMM_AUTOTUNE)."""
    lib = None
    for name in ("libcublas.so.13", "libcublas.so.12"):
        try:
            lib = ctypes.CDLL(name, mode=os.RTLD_NOLOAD | os.RTLD_GLOBAL)
            break
        except OSError:
            continue
    if lib is None:
        return {"error": "no libcublas loaded by PyTorch"}
    h = ctypes.c_void_p()
    if lib.cublasCreate_v2(ctypes.byref(h)) != 0:
        return {"error": "cublasCreate_v2 failed"}
    lib.cublasSetStream_v2(h, ctypes.c_void_p(torch.cuda.current_stream().cuda_stream))
    out = {}
    one, zero = ctypes.c_float(1.0), ctypes.c_float(0.0)
    gen = torch.Generator(device="cuda")
    for op, dt, m, n, k, batch in sweep_shapes(args):
        if op != "linear":
            continue
        gen.manual_seed(1234)
        x = torch.randn(m, k, generator=gen, device="cuda", dtype=dt)
        w = torch.randn(n, k, generator=gen, device="cuda", dtype=dt) / math.sqrt(k)
        y = torch.empty(m, n, device="cuda", dtype=dt)
        ctype = 14 if dt == torch.bfloat16 else 2  # CUDA_R_16BF, CUDA_R_16F
        args_ = (h, 1, 0, n, m, k, ctypes.byref(one), ctypes.c_void_p(w.data_ptr()), ctype, k,
                 ctypes.c_void_p(x.data_ptr()), ctype, k, ctypes.byref(zero),
                 ctypes.c_void_p(y.data_ptr()), ctype, n, 68, 999)  # COMPUTE_32F, AUTOTUNE

        def call():
            st = lib.cublasGemmEx(*args_)
            if st != 0:
                raise RuntimeError(f"cublasGemmEx status {st}")

        try:
            call()
            torch.cuda.synchronize()
            out[shape_name(op, dt, m, n, k, batch)] = {
                "gpu_us": gpu_time_us(call, flush, args.reps, args.inner), "sample": sample(y)}
        except RuntimeError as e:
            out[shape_name(op, dt, m, n, k, batch)] = {"error": str(e)}
    lib.cublasDestroy_v2(h)
    return out


class Block(torch.nn.Module if torch else object):
    """The GEMMs of one Llama decoder layer: fused QKV, output projection, SwiGLU MLP."""

    def __init__(self, dt, bias):
        super().__init__()
        mk = lambda i, o: torch.nn.Linear(i, o, bias=bias, device="cuda", dtype=dt)
        self.qkv, self.o = mk(HIDDEN, 3 * HIDDEN), mk(HIDDEN, HIDDEN)
        self.gate, self.up, self.down = mk(HIDDEN, INTER), mk(HIDDEN, INTER), mk(INTER, HIDDEN)

    def forward(self, x):
        q, _, v = self.qkv(x).chunk(3, dim=-1)
        x = x + self.o(q * torch.sigmoid(v))  # stands in for attention (no GEMM of its own)
        return x + self.down(F.silu(self.gate(x)) * self.up(x))


def run_model(args):
    out = {}
    torch.manual_seed(0)
    for d in args.dtypes:
        dt = getattr(torch, DTYPES[d])
        model = torch.nn.Sequential(*[Block(dt, bias=False) for _ in range(args.layers)]).eval()
        with torch.no_grad():
            for batch, seq in args.model_configs:
                x = torch.randn(batch * seq, HIDDEN, device="cuda", dtype=dt)
                for _ in range(3):
                    model(x)
                torch.cuda.synchronize()
                # The median of 7 blocks: one block of 20 decode steps (16 ms on an H200) is
                # too short to time alone.
                steps = args.decode_steps if seq == 1 else max(1, args.decode_steps // 20)
                rates = []
                for _ in range(7):
                    t0 = time.perf_counter()
                    for _ in range(steps):
                        model(x)
                    torch.cuda.synchronize()
                    rates.append(batch * seq * steps / (time.perf_counter() - t0))
                out[f"{d}/batch{batch}/seq{seq}"] = statistics.median(rates)
        del model
    return out


def launch_host_us():
    """Host µs to issue one small elementwise kernel (a 1-element in-place add: no GEMM, nothing
    AOE tunes), the median of 7 blocks of 2000: what any interposer adds to every launch."""
    x = torch.zeros(1, device="cuda")
    for _ in range(200):
        x.add_(1)
    return statistics.median(host_us(lambda: x.add_(1), 2000) for _ in range(7))


def model_configs(text):
    try:
        out = [tuple(int(v) for v in c.split("x")) for c in csv_list(text)]
    except ValueError:
        out = []
    if not out or any(len(c) != 2 or min(c) < 1 for c in out):
        raise argparse.ArgumentTypeError(f"expected BATCHxSEQ,... (e.g. 1x1,1x2048), not {text!r}")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="JSON file to write")
    ap.add_argument("--quick", action="store_true", help="a small sweep (a smoke test)")
    ap.add_argument("--reps", type=int, default=15, help="timed runs per shape (median)")
    ap.add_argument("--inner", type=int, default=20, help="calls per timed run")
    ap.add_argument("--layers", type=int, default=4, help="decoder layers of the model")
    ap.add_argument("--dtypes", type=csv_list, default=list(DTYPES), metavar="LIST",
                    help="data types, of bf16,fp16 (default both)")
    ap.add_argument("--ops", type=csv_list, default=list(OPS), metavar="LIST",
                    help="operations of the sweep, of " + ",".join(OPS) + " (default all)")
    ap.add_argument("--ms", type=lambda t: csv_list(t, int), default=None, metavar="LIST",
                    help="M of the linear shapes (default 1,16,64 with --quick, else 1,8,...,2048)")
    ap.add_argument("--model-configs", type=model_configs, default=model_configs("1x1,8x1,32x1,64x1,1x2048"),
                    metavar="LIST", help="decoder runs as BATCHxSEQ (default 1x1,8x1,32x1,64x1,1x2048)")
    ap.add_argument("--decode-steps", type=int, default=60, metavar="N",
                    help="decode steps per timed block of the decoder (prefills: N/20); default 60")
    ap.add_argument("--rotate-weights", action="store_true",
                    help="linear shapes cycle through copies of the weight, cold in the L2 as in a "
                    "model and in AOE's tuner (default: the same weight every call)")
    ap.add_argument("--count-kernels", action="store_true",
                    help="also count the kernels one call of each shape issues (PyTorch's profiler)")
    ap.add_argument("--autotune", action="store_true", help="also cublasGemmEx with CUBLAS_GEMM_AUTOTUNE")
    ap.add_argument("--no-model", action="store_true", help="skip the model")
    ap.add_argument("--until-stable", type=float, default=0.0, metavar="S",
                    help="repeat the sweep for up to S seconds, recording every pass")
    args = ap.parse_args()
    bad = [x for x in args.dtypes if x not in DTYPES] + [x for x in args.ops if x not in OPS]
    if bad:
        ap.error(f"unknown data type or operation: {', '.join(bad)}")
    if args.decode_steps < 1:
        ap.error("--decode-steps: at least 1")
    if torch is None:
        sys.exit("gemm_workload.py: needs PyTorch (import torch failed)")
    if not torch.cuda.is_available():
        sys.exit("gemm_workload.py: no CUDA device")
    flush = L2Flush()
    passes = []
    t_first = time.time()
    sweep = run_sweep(args, flush, passes)
    while args.until_stable and time.time() - t_first < args.until_stable:
        sweep = run_sweep(args, flush, passes)
    res = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
           "t_first_call": t_first, "sweep": sweep, "passes": passes,
           "launch_host_us": launch_host_us()}
    if args.autotune:
        res["autotune"] = cublas_autotune_sweep(args, flush)
    if not args.no_model:
        res["model_tokens_per_s"] = run_model(args)
    with open(args.out, "w") as f:
        json.dump(res, f)


if __name__ == "__main__":
    main()
