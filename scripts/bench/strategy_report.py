"""Report of scripts/bench/compare-strategies: AOE's strategies beside Kernel
Tuner's, per recorded space and budget, as Markdown. Standard library only.

  strategy_report.py --kt DIR --aoe DIR --datasets DIR --budgets 25,50,100,200
                     --runs R --aoe-strategies L --kt-strategies L
  strategy_report.py --check FILE --runs R --budgets L --kt-strategies L [--seed K]
      exit 0 when FILE holds every Kernel Tuner strategy and budget with R runs
      from seed K (default 1)
  strategy_report.py --plan --kt DIR --datasets DIR --budgets L --kt-strategies L
      one line per space and budget: the space, the best Kernel Tuner strategy
      on the runs in DIR, the budget (what --confirm measures again)

With --confirm N --confirm-dir DIR the report ends with the confirmation: the
best Kernel Tuner strategy of every space and budget, chosen on seeds 1..R,
and auto, both measured again on seeds R+1..R+N (DIR/kt/SPACE.STRATEGY.BUDGET.json,
DIR/aoe/SPACE.jsonl). The best of eight means is biased upward (the winner's
curse: on 20 seeds the strategy that wins is often the one that was lucky);
fresh seeds measure the chosen strategy without that bias.

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


def kt_complete(path, runs, budgets, strategies, seed=1):
    try:
        with open(path) as f:
            doc = json.load(f)
        if doc.get("seed", 1) != seed:  # files from before "seed" was written began at 1
            return False
        have = {s["strategy"]: s["fractions"] for s in doc["strategies"]}
        return all(s in have and all(len(have[s].get(str(b), [])) == runs for b in budgets)
                   for s in strategies)
    except (OSError, ValueError, KeyError, TypeError):
        return False


def load_kt_file(path):
    """{strategy: {budget: (mean, se)}} of one kernel_tuner_sim.py result."""
    with open(path) as f:
        doc = json.load(f)
    return {s["strategy"]: {b: mean_se(v) for b, v in s["fractions"].items()}
            for s in doc["strategies"]}


def load_kt(folder, name):
    return load_kt_file(os.path.join(folder, name + ".json"))


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


def best_kt(kt, kt_names, budgets):
    """The Kernel Tuner strategy with the highest mean at each budget."""
    return {b: max(kt_names, key=lambda s: kt[s][b][0]) for b in budgets}


def space_names(datasets):
    return sorted(f[:-8] for f in os.listdir(datasets) if f.endswith(".json.gz"))


def plan(a):
    for name in space_names(a.datasets):
        best = best_kt(load_kt(a.kt, name), a.kt_strategies.split(","), a.budgets.split(","))
        for b, s in best.items():
            print(name, s, b)


def load_confirmed_kt(folder, name, strategy, budget):
    path = os.path.join(folder, "kt", "%s.%s.%s.json" % (name, strategy, budget))
    return load_kt_file(path)[strategy][budget]


def confirmation(a, names, budgets, kt_names):
    first, last = a.runs + 1, a.runs + a.confirm
    print("## Confirmation on fresh seeds\n")
    print("The best Kernel Tuner strategy of each cell above is chosen on seeds 1..%d, so "
          "its mean there is the largest of %d noisy means and biased upward (the "
          "winner's curse). Here that strategy and auto are measured again on %d fresh "
          "seeds (%d..%d). Cells: auto, then the strategy chosen above and its mean on "
          "the fresh seeds.\n" % (a.runs, len(kt_names), a.confirm, first, last))
    print("| space | " + " | ".join("@%s" % b for b in budgets) + " |")
    print("|---" * (len(budgets) + 1) + "|")
    met = {b: 0 for b in budgets}
    sums = {b: [] for b in budgets}
    for name in names:
        best = best_kt(load_kt(a.kt, name), kt_names, budgets)
        auto = load_aoe(os.path.join(a.confirm_dir, "aoe"), name)["auto"]
        cells = []
        for b in budgets:
            k = load_confirmed_kt(a.confirm_dir, name, best[b], b)
            ok, text = verdict(auto[b][:2], k)
            met[b] += ok
            sums[b].append(auto[b][0])
            cells.append("%.3f ± %.3f; kt:%s %.3f ± %.3f: %s"
                         % (auto[b][0], auto[b][1], best[b], k[0], k[1], text))
        print("| %s | %s |" % (name, " | ".join(cells)))
    print("\nOn the fresh seeds, auto at least the best of Kernel Tuner (within one standard "
          "error): " + ", ".join("@%s on %d of %d spaces" % (b, met[b], len(names))
                                 for b in budgets)
          + "; auto's mean over the spaces: "
          + ", ".join("@%s %.4f" % (b, statistics.fmean(sums[b])) for b in budgets) + ".\n")


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
    names = space_names(a.datasets)
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
        best = best_kt(kt, kt_names, budgets)
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
    if a.confirm:
        confirmation(a, names, budgets, kt_names)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--plan", action="store_true")
    ap.add_argument("--confirm", type=int, default=0)
    ap.add_argument("--confirm-dir")
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
                                  a.kt_strategies.split(","), a.seed) else 1)
    if a.plan:
        if not (a.kt and a.datasets):
            ap.error("--kt and --datasets are needed for a plan")
    elif not (a.kt and a.aoe and a.datasets):
        ap.error("--kt, --aoe and --datasets are needed for a report")
    if a.confirm and not a.confirm_dir:
        ap.error("--confirm needs --confirm-dir")
    try:
        plan(a) if a.plan else report(a)
    except (OSError, ValueError, KeyError) as e:
        sys.exit("strategy_report: incomplete results (%s: %s); run compare-strategies again"
                 % (type(e).__name__, e))


if __name__ == "__main__":
    main()
