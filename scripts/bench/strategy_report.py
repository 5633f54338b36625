"""Report of scripts/bench/compare-strategies: AOE's strategies beside Kernel
Tuner's, per recorded space and budget, as Markdown. Standard library only.

  strategy_report.py --kt DIR --aoe DIR --datasets DIR --budgets 25,50,100,200
                     --runs R --aoe-strategies L --kt-strategies L
  strategy_report.py --check FILE --runs R --budgets L --kt-strategies L
      exit 0 when FILE holds every Kernel Tuner strategy and budget with R runs

"auto is at least the best" means: auto's mean plus one standard error of
the difference (the two errors added in quadrature) reaches the best Kernel
Tuner mean at that budget.
"""

import argparse
import gzip
import json
import math
import os
import statistics
import sys


def mean_se(values):
    m = statistics.fmean(values)
    se = statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return m, se


def kt_complete(path, runs, budgets, strategies):
    try:
        with open(path) as f:
            doc = json.load(f)
        have = {s["strategy"]: s["fractions"] for s in doc["strategies"]}
        return all(s in have and all(len(have[s].get(str(b), [])) == runs for b in budgets)
                   for s in strategies)
    except (OSError, ValueError, KeyError, TypeError):
        return False


def load_kt(folder, name):
    with open(os.path.join(folder, name + ".json")) as f:
        doc = json.load(f)
    return {s["strategy"]: {b: mean_se(v) for b, v in s["fractions"].items()}
            for s in doc["strategies"]}


def load_aoe(folder, name):
    """{strategy: {budget: (mean, se, ms_per_eval)}}: each line is one
    `aoe tune --simulate --max-evals N --json`; its budget is its largest
    checkpoint."""
    out = {}
    with open(os.path.join(folder, name + ".jsonl")) as f:
        for line in f:
            if not line.strip():
                continue
            doc = json.loads(line)
            for s in doc["strategies"]:
                b = max(s["fraction_at"], key=int)
                out.setdefault(s["strategy"], {})[b] = (
                    s["fraction_at"][b], s["stderr_at"][b], s["ms_per_eval"])
    return out


def dataset_facts(path):
    with gzip.open(path, "rt") as f:
        doc = json.load(f)
    times = [e["time"] for e in doc["cache"].values()
             if isinstance(e.get("time"), (int, float)) and e["time"] > 0]
    return {"kernel": doc.get("kernel_name", "?"), "device": doc.get("device_name", "?"),
            "configs": len(doc["cache"]), "optimum": min(times),
            "median": statistics.median(times)}


def verdict(auto, best):
    (am, ase), (km, kse) = auto, best
    gap = km - am
    se = math.hypot(ase, kse)
    if gap <= se:
        return True, ("+%.3f" % -gap) if gap <= 0 else "-%.3f (within 1 SE %.3f)" % (gap, se)
    return False, "**behind by %.3f** (1 SE %.3f)" % (gap, se)


def report(a):
    budgets = a.budgets.split(",")
    aoe_names = a.aoe_strategies.split(",")
    kt_names = a.kt_strategies.split(",")
    names = sorted(f[:-8] for f in os.listdir(a.datasets) if f.endswith(".json.gz"))
    print("# Search strategies against Kernel Tuner 1.5.0\n")
    print("Simulation on recorded full search spaces; every budget is its own set of "
          "%d runs (seeds 1..%d); a budget of N is N distinct configurations, failed "
          "ones included. Cells: mean fraction of optimum ± standard error. Bold: the "
          "best Kernel Tuner strategy at that budget. `kt:` marks Kernel Tuner's "
          "strategies.\n" % (a.runs, a.runs))
    sums = {}
    met = {b: 0 for b in budgets}
    chosen_ms, ratios = [], []
    for name in names:
        facts = dataset_facts(os.path.join(a.datasets, name + ".json.gz"))
        kt = load_kt(a.kt, name)
        aoe = load_aoe(a.aoe, name)
        print("## %s\n\n%s on %s, %d configurations, optimum %.4g ms, median %.4g ms\n"
              % (name, facts["kernel"], facts["device"], facts["configs"], facts["optimum"],
                 facts["median"]))
        print("| strategy | " + " | ".join("@%s" % b for b in budgets) + " |")
        print("|---" * (len(budgets) + 1) + "|")
        best = {b: max(kt_names, key=lambda s: kt[s][b][0]) for b in budgets}
        for s in aoe_names:
            cells = ["%.3f ± %.3f" % aoe[s][b][:2] for b in budgets]
            print("| %s | %s |" % (s, " | ".join(cells)))
            for b in budgets:
                sums.setdefault(s, {}).setdefault(b, []).append(aoe[s][b][0])
        for s in kt_names:
            cells = []
            for b in budgets:
                c = "%.3f ± %.3f" % kt[s][b]
                cells.append("**%s**" % c if best[b] == s else c)
                sums.setdefault("kt:" + s, {}).setdefault(b, []).append(kt[s][b][0])
            print("| kt:%s | %s |" % (s, " | ".join(cells)))
        for b in budgets:
            sums.setdefault("best of Kernel Tuner", {}).setdefault(b, []).append(kt[best[b]][b][0])
        words = []
        for b in budgets:
            ok, text = verdict(aoe["auto"][b][:2], kt[best[b]][b])
            met[b] += ok
            words.append("@%s %s" % (b, text))
        print("\nauto against the best of Kernel Tuner: " + "; ".join(words) + "\n")
        ms = aoe["auto"][budgets[-1]][2]
        chosen_ms.append(ms)
        ratios.append(ms / facts["median"])
    print("## Mean over the %d spaces\n" % len(names))
    print("| strategy | " + " | ".join("@%s" % b for b in budgets) + " |")
    print("|---" * (len(budgets) + 1) + "|")
    for s, per in sums.items():
        print("| %s | %s |" % (s, " | ".join("%.3f" % statistics.fmean(per[b]) for b in budgets)))
    print("\nauto at least the best of Kernel Tuner (within one standard error): "
          + ", ".join("@%s on %d of %d spaces" % (b, met[b], len(names)) for b in budgets) + ".\n")
    print("auto's time to choose a configuration (at @%s): %.2f ms on average, %.2f ms at "
          "most; against the median measured time of a configuration in the same space "
          "(kernel time alone, before compilation and verification), %.2fx on average, "
          "%.2fx at most.\n" % (budgets[-1], statistics.fmean(chosen_ms), max(chosen_ms),
                                statistics.fmean(ratios), max(ratios)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check")
    ap.add_argument("--kt")
    ap.add_argument("--aoe")
    ap.add_argument("--datasets")
    ap.add_argument("--budgets", default="25,50,100,200")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--aoe-strategies", default="auto,surrogate,ils,annealing,genetic,random")
    ap.add_argument("--kt-strategies", default="dual_annealing,basinhopping,pso,genetic_algorithm,"
                    "simulated_annealing,greedy_ils,bayes_opt,random_sample")
    a = ap.parse_args()
    if a.check:
        sys.exit(0 if kt_complete(a.check, a.runs, a.budgets.split(","),
                                  a.kt_strategies.split(",")) else 1)
    if not (a.kt and a.aoe and a.datasets):
        ap.error("--kt, --aoe and --datasets are needed for a report")
    try:
        report(a)
    except (OSError, ValueError, KeyError) as e:
        sys.exit("strategy_report: incomplete results (%s: %s); run compare-strategies again"
                 % (type(e).__name__, e))


if __name__ == "__main__":
    main()
