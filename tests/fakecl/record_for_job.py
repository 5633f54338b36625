#!/usr/bin/python3
"""Prints an `aoe bank import` document with one record for a captured job
(spool/<key>.job): the job's key, fingerprint and kernel, and a policy with
the given local size and -D values, so a later run under the shim takes the
hit path (with a variant program when defines are given).
Usage: record_for_job.py JOB LOCAL [NAME=VALUE ...]"""
import json
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    job = json.load(open(sys.argv[1]))
    local = int(sys.argv[2])
    params = []
    for nv in sys.argv[3:]:
        name, value = nv.split("=", 1)
        params.append({"name": name, "value": int(value), "define": True})
    if job["format"] >= 2:  # the launch and the entry moved into objects
        dim, glob = job["launch"]["dims"], job["launch"]["global"]
        name = job["program"]["entry"]
    else:
        dim, glob, name = job["work_dim"], job["global"], job["kernel_name"]
    record = {
        "fingerprint": job["fingerprint"],
        "key": job["key"],
        "runtime": job["runtime"],
        "kernel_name": name,
        "policy": {"params": params, "work_dim": dim, "global": glob,
                   "local": [local] + [1] * (dim - 1)},
        "default_us": 2.0,
        "tuned_us": 1.0,
        "strategy": "manual",
        "summary": "record_for_job.py",
    }
    json.dump({"format": "aoe-bank", "version": 1, "records": [record]}, sys.stdout)


main()
