"""Runs Kernel Tuner's search strategies in its own simulation mode on one
recorded search space (a gzipped Kernel Tuner cache file) and prints, as one
JSON document, the fraction of optimum every seeded run reached at each budget.

Run by scripts/bench/compare-strategies inside the virtual environment it
creates; not meant to be started by hand (see that script's --help).

Counting is AOE's: a budget of N means N distinct configurations, failed ones
included. So that the two sides search the same space, every configuration of
the cache file, failed ones too, is a valid configuration (Kernel Tuner's own
`tune_cache` would drop the failed ones, which makes the search easier than
AOE's). Strategies that stop before their budget is spent (dual annealing and
simulated annealing count repeated visits against their own limits) are
started again (with the whole budget, the random state carried on) until N
distinct configurations were measured: the figures are what a user who reran
them would get, never less.
"""

import argparse
import gzip
import json
import os
import random
import sys
import tempfile
import time
import warnings


def load(path):
    with gzip.open(path, "rt") as f:
        doc = json.load(f)
    keys = doc["tune_params_keys"]
    entries = list(doc["cache"].values())
    times = [e["time"] for e in entries if isinstance(e["time"], (int, float)) and e["time"] > 0]
    if not times:
        raise SystemExit(f"{path}: no successful configuration")
    return doc, keys, min(times)


def good_time(t):
    return isinstance(t, (int, float)) and not isinstance(t, bool) and t > 0


def one_run(kt, doc, keys, cachefile, strategy, budget, allowed):
    """Best time found within `budget` distinct configurations, the number of
    distinct configurations measured and the number of (re)starts."""
    from constraint import FunctionConstraint

    ps = doc["problem_size"]
    ps = (ps,) if isinstance(ps, int) else tuple(ps)
    tune_params = {k: doc["tune_params"][k] for k in keys}
    seen, best, starts = set(), float("inf"), 0
    while len(seen) < budget and starts < 50:
        starts += 1
        before = len(seen)
        results, _ = kt.tune_kernel(
            doc["kernel_name"], "", ps, [], tune_params,
            restrictions=[FunctionConstraint(lambda *v: v in allowed)],
            cache=cachefile, simulation_mode=True, strategy=strategy,
            strategy_options={"max_fevals": budget}, quiet=True, verbose=False)
        for r in results:
            k = tuple(r[p] for p in keys)
            if k in seen:
                continue
            if len(seen) == budget:
                break
            seen.add(k)
            if good_time(r.get("time")):
                best = min(best, r["time"])
        if len(seen) == before:
            break  # a restart that finds nothing new will not find more
    return best, len(seen), starts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dataset")
    ap.add_argument("--strategies", required=True, help="comma-separated Kernel Tuner names")
    ap.add_argument("--budgets", default="25,50,100,200")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    warnings.filterwarnings("ignore")
    import numpy as np
    import kernel_tuner as kt

    doc, keys, optimum = load(a.dataset)
    allowed = set(tuple(e[k] for k in keys) for e in doc["cache"].values())
    tmp = tempfile.mkdtemp(prefix="aoe-kt-")
    cachefile = os.path.join(tmp, "cache.json")
    try:
        with open(cachefile, "w") as f:
            json.dump(doc, f)
        out = {"dataset": os.path.basename(a.dataset), "optimum": optimum,
               "kernel_tuner": kt.__version__, "seed": a.seed, "strategies": []}
        for strategy in a.strategies.split(","):
            entry = {"strategy": strategy, "fractions": {}, "seconds": {}, "restarted_runs": {}}
            for budget in [int(b) for b in a.budgets.split(",")]:
                fr, restarted, t0 = [], 0, time.time()
                for r in range(a.runs):
                    seed = a.seed + r
                    random.seed(seed)
                    np.random.seed(seed)
                    best, n, starts = one_run(kt, doc, keys, cachefile, strategy, budget, allowed)
                    fr.append(optimum / best if best < float("inf") else 0.0)
                    restarted += starts > 1
                entry["fractions"][str(budget)] = fr
                entry["seconds"][str(budget)] = round(time.time() - t0, 2)
                entry["restarted_runs"][str(budget)] = restarted
            out["strategies"].append(entry)
            print(f"{out['dataset']}: {strategy} done", file=sys.stderr, flush=True)
        json.dump(out, sys.stdout)
        print()
    finally:
        os.remove(cachefile)
        os.rmdir(tmp)


if __name__ == "__main__":
    main()
