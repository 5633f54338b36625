#!/usr/bin/env bash
# `aoe tune --simulate` on a real recorded search space: JSON structure, exit
# codes, and the project's best strategy ahead of random search at 100
# evaluations (mean over 10 seeded runs).
set -euo pipefail
AOE="$AOE_BUILD_DIR/bin/aoe"
DATA="$AOE_SOURCE_DIR/../shared/datasets"
FILE="$DATA/gemm_RTX_3090.json.gz"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A usage error is the message and where to find the usage, not the usage
# (the arguments are checked before the file is read: no dataset needed).
for bad in "--set nope=1" "--set bo_failed=101" "--bogus" "--runs"; do
  rc=0; "$AOE" tune --simulate "$tmp/none.json.gz" $bad 2>"$tmp/err" || rc=$?
  [[ $rc == 2 && $(wc -l <"$tmp/err") == 2 ]] || { echo "FAIL: '$bad' gave exit $rc:"; cat "$tmp/err"; exit 1; }
  grep -q -- "--simulate --help" "$tmp/err" || { echo "FAIL: '$bad' does not point at --help"; exit 1; }
done

if [[ ! -r "$FILE" ]]; then
  echo "SKIP: no recorded search spaces beside the repository ($DATA)"
  exit 0
fi

"$AOE" tune --simulate "$FILE" --strategy auto --max-evals 100 --runs 10 --seed 1 --json \
  >"$tmp/out.json"
/usr/bin/python3 - "$tmp/out.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert set(d) == {"dataset", "optimum", "strategies"}, d.keys()
assert d["dataset"] == "gemm_RTX_3090.json.gz", d["dataset"]
assert d["optimum"] > 0
by = {s["strategy"]: s["fraction_at"] for s in d["strategies"]}
assert set(by) == {"random", "auto"}, by.keys()
for name, f in by.items():
    assert list(f) == ["25", "50", "100"], (name, list(f))
    assert all(0 <= v <= 1 for v in f.values()), (name, f)
    assert f["25"] <= f["50"] <= f["100"], (name, f)
best, rnd = by["auto"]["100"], by["random"]["100"]
print(f"fraction of optimum at 100 evaluations: auto {best:.3f}, random {rnd:.3f}")
assert best > rnd, "the best strategy does not beat random search"
PY

# The human table names every strategy of "all" and the 25/50 columns.
"$AOE" tune --simulate "$FILE" --max-evals 50 --runs 2 >"$tmp/table.txt"
for s in random brute annealing genetic ils surrogate; do
  grep -q "^$s " "$tmp/table.txt" || { echo "FAIL: $s missing from the table"; cat "$tmp/table.txt"; exit 1; }
done
grep -Eq '^strategy +25 +50$' "$tmp/table.txt" || { echo "FAIL: bad header"; cat "$tmp/table.txt"; exit 1; }

# Exit codes: usage 2, unreadable dataset 1 with one message.
rc=0; "$AOE" tune --simulate "$FILE" --runs 0 2>"$tmp/err" || rc=$?
[[ $rc == 2 ]] || { echo "FAIL: --runs 0 gave exit $rc, not 2"; exit 1; }
grep -q -- "--runs must be" "$tmp/err" || { echo "FAIL: --runs 0 message:"; cat "$tmp/err"; exit 1; }
printf 'not gzip, not json' >"$tmp/bad.json.gz"
rc=0; "$AOE" tune --simulate "$tmp/bad.json.gz" 2>"$tmp/err" || rc=$?
[[ $rc == 1 ]] || { echo "FAIL: a bad dataset gave exit $rc, not 1"; exit 1; }
[[ $(wc -l <"$tmp/err") == 1 ]] || { echo "FAIL: expected one message:"; cat "$tmp/err"; exit 1; }
grep -q "bad.json.gz" "$tmp/err" || { echo "FAIL: the message does not name the file"; exit 1; }
"$AOE" tune --simulate "$FILE" --help | grep -q -- "--max-evals"
echo "ok"
