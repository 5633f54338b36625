#!/usr/bin/env python3
"""A bank import file (aoe bank import) holding one GEMM record for the key
of a captured GEMM job: the algorithm configuration NAME=VALUE ... (algo,
tile, stages, splitk, reduction, swizzle, custom, inner_shape,
cluster_shape, workspace; store/gemm_algo.h), timed 10 us -> 5 us; or, with
the one argument library-default, the record of a GEMM whose library's own
call was the best (no parameters).
Usage: record_for_gemm_job.py JOB [NAME=VALUE ... | library-default] > import.json"""
import json
import sys

job = json.load(open(sys.argv[1]))
cfg = {"algo": 0, "tile": 0, "stages": 0, "splitk": 1, "reduction": 0, "swizzle": 0,
       "custom": 0, "inner_shape": 0, "cluster_shape": 0, "workspace": 0}
library_default = sys.argv[2:] == ["library-default"]
for arg in [] if library_default else sys.argv[2:]:
    name, value = arg.split("=")
    if name not in cfg:
        sys.exit("record_for_gemm_job: unknown attribute %s" % name)
    cfg[name] = int(value)
rec = {"fingerprint": job["fingerprint"], "key": job["key"], "runtime": "cublas",
       "kernel_name": "gemm",
       "policy": {"params": [{"name": k, "value": v, "kind": "library_attribute"}
                             for k, v in ({} if library_default else cfg).items()],
                  "work_dim": 1, "global": [0], "local": [0]},
       "default_us": 10.0, "default_spread_us": 0.1, "tuned_us": 5.0, "tuned_spread_us": 0.1,
       "evaluations": 4, "tuning_seconds": 1.0, "strategy": "brute", "tuner_version": "test",
       "timestamp": 1700000000, "summary": "record_for_gemm_job"}
print(json.dumps({"format": "aoe-bank", "version": 1, "exported": 1700000000, "records": [rec]}))
