#!/usr/bin/env bash
# The recorded PoCL GEMM space in the repository (tests/data/gemm_pocl.json.gz,
# made by scripts/bench/record_gemm_space) loads in simulation mode with all
# 56 configurations, and a budget of the whole space is exhaustive for every
# strategy: each reaches the recorded optimum in every run.
set -euo pipefail
AOE="$AOE_BUILD_DIR/bin/aoe"
FILE="$AOE_SOURCE_DIR/tests/data/gemm_pocl.json.gz"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$AOE" tune --simulate "$FILE" --max-evals 56 --runs 5 >"$tmp/table.txt"
grep -q "56 configurations (0 failed)" "$tmp/table.txt" ||
  { echo "FAIL: expected 56 configurations, none failed:"; cat "$tmp/table.txt"; exit 1; }
"$AOE" tune --simulate "$FILE" --max-evals 56 --runs 5 --json >"$tmp/out.json"
/usr/bin/python3 - "$tmp/out.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["dataset"] == "gemm_pocl.json.gz", d["dataset"]
for s in d["strategies"]:
    f = s["fraction_at"]["56"]
    assert abs(f - 1.0) < 1e-12, "%s reached %.3f of the optimum with the whole space" % (s["strategy"], f)
print("all %d strategies exhaustive on the 56-configuration space" % len(d["strategies"]))
PY
