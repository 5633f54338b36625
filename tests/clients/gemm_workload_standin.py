#!/usr/bin/env python3
"""A stand-in for scripts/gpu/gemm_workload.py (no GPU here), for tests/integration/gpu_compare.sh:
the same command line and JSON, with figures that follow from the mode (read from the
environment gemm-compare sets) and the round (read from the --out name, "<mode>-<round>.json"),
so that the driver's pairing, ordering and report can be checked exactly. Each run appends its
mode to STANDIN_ORDER. Under AOE_TUNE_MODE=online with STANDIN_JOB set it leaves a job no tuner
takes in the spool, as a slow tuner would."""
import argparse
import json
import os

ap = argparse.ArgumentParser()
ap.add_argument("--out", required=True)
for flag in ("--quick", "--no-model", "--autotune", "--count-kernels"):
    ap.add_argument(flag, action="store_true")
ap.add_argument("--ms")
a = ap.parse_args()
env = os.environ
if env.get("PYTORCH_TUNABLEOP_ENABLED") == "1":
    mode, speed, kernels, tokens, launch = "tunableop", 0.8, 1, 1.0, 5.0
elif env.get("AOE_TUNE_GEMM") == "False":
    mode, speed, kernels, tokens, launch = "shim", 1.0, 1, 1.0, 5.5
elif env.get("LD_PRELOAD"):
    mode, speed, kernels, tokens, launch = "aoe", 1.25, 2, 1.1, 5.0
else:
    mode, speed, kernels, tokens, launch = "default", 1.0, 1, 1.0, 5.0
name = os.path.basename(a.out)[:-len(".json")]
rnd = int(name.rsplit("-", 1)[1]) if name.rsplit("-", 1)[-1].isdigit() else 0
drift = 1 + 0.5 * rnd  # the machine slows from round to round: pairing must cancel it
with open(env["STANDIN_ORDER"], "a") as f:
    f.write(f"{name} {mode}\n")
if env.get("AOE_TUNE_MODE") == "online" and env.get("STANDIN_JOB"):
    spool = os.path.join(env["AOE_WORK_PATH"], "spool")
    os.makedirs(spool, exist_ok=True)
    open(os.path.join(spool, "standin.job"), "w").close()
sweep = {}
for shape, us in (("linear/bf16/M1/N4096/K4096", 10.0), ("linear/bf16/M8/N4096/K4096", 20.0)):
    sweep[shape] = {"gpu_us": us * drift / speed, "host_us": 15.0, "sample": [1.0, 2.0, 3.0]}
    if a.count_kernels:
        sweep[shape]["kernels"] = kernels
res = {"device": "stand-in", "torch": "0", "t_first_call": 0.0, "sweep": sweep, "passes": [],
       "launch_host_us": launch}
if a.autotune:
    res["autotune"] = {k: {"gpu_us": v["gpu_us"] / 1.1} for k, v in sweep.items()}
if not a.no_model:
    res["model_tokens_per_s"] = {"bf16/batch1/seq1": 1000.0 * tokens / drift}
with open(a.out, "w") as f:
    json.dump(res, f)
