#!/usr/bin/env bash
# scripts/bench/compare-strategies and scripts/bench/cross-validate on the
# recorded PoCL GEMM space (and a copy of it under a second family's name),
# without the network: Kernel Tuner's side comes from a results folder made
# here, so the report's verdicts are known in advance. Their usage errors.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
cmp="$S/scripts/bench/compare-strategies"
cv="$S/scripts/bench/cross-validate"

for bad in "--bogus" "--runs 0" "--budgets 5,x" "--build $T/none" "--runs" "--confirm x"; do
  rc=0
  # shellcheck disable=SC2086 # each case is a list of words
  "$cmp" $bad >"$T/out" 2>&1 || rc=$?
  [ $rc = 2 ] && grep -q '^compare-strategies: ' "$T/out" || fail "compare-strategies $bad: exit $rc: $(cat "$T/out")"
done
"$cmp" --help >"$T/help" && grep -q -- '--kt-results DIR' "$T/help" || fail "compare-strategies --help: $(cat "$T/help")"

mkdir "$T/data" "$T/kt"
cp "$S/tests/data/gemm_pocl.json.gz" "$T/data/gemm_pocl.json.gz"
cp "$S/tests/data/gemm_pocl.json.gz" "$T/data/other_pocl.json.gz"
# Kernel Tuner's side: at 3 evaluations "pso" found the optimum in every run
# (auto cannot be ahead), at 12 both strategies reached a fifth of it (auto is).
for n in gemm_pocl other_pocl; do
  /usr/bin/python3 - "$T/kt/$n.json" <<'PY'
import json, sys
runs = 3
doc = {"dataset": "x", "optimum": 1, "kernel_tuner": "1.5.0", "strategies": [
    {"strategy": "pso", "fractions": {"3": [1.0] * runs, "12": [0.2] * runs}},
    {"strategy": "dual_annealing", "fractions": {"3": [0.5, 0.6, 0.7], "12": [0.1] * runs}}]}
json.dump(doc, open(sys.argv[1], "w"))
PY
done
"$cmp" --build "$B" --datasets "$T/data" --kt-results "$T/kt" --out "$T/bench" --runs 3 --budgets 3,12 \
  --kt-strategies pso,dual_annealing --aoe-strategies auto,random --markdown "$T/report.md" >"$T/stdout" 2>"$T/stderr" ||
  fail "compare-strategies failed: $(cat "$T/stderr")"
cmp -s "$T/stdout" "$T/report.md" || fail "--markdown file differs from what was printed"
grep -q '^| kt:pso | \*\*1.000 ± 0.000\*\* | \*\*0.200 ± 0.000\*\* |$' "$T/report.md" ||
  fail "best Kernel Tuner cells not in bold: $(grep kt: "$T/report.md")"
grep -q '^| auto | ' "$T/report.md" || fail "no auto row: $(cat "$T/report.md")"
[ "$(grep -c '@3 \*\*behind by' "$T/report.md")" = 2 ] || fail "auto not behind at 3: $(grep against "$T/report.md")"
grep -q '@12 +0\.' "$T/report.md" || fail "auto not ahead at 12: $(grep against "$T/report.md")"
grep -q '@3 on 0 of 2 spaces, @12 on 2 of 2 spaces' "$T/report.md" || fail "summary: $(grep 'at least' "$T/report.md")"
grep -q "time to choose a configuration" "$T/report.md" || fail "no time to choose"
# Relative paths are the caller's, not the repository's.
(cd "$T" && "$cmp" --build "$B" --datasets data --kt-results kt --out rel --runs 3 --budgets 3,12 \
  --kt-strategies pso,dual_annealing --aoe-strategies auto --markdown rel.md >/dev/null 2>"$T/stderr") ||
  fail "compare-strategies with relative paths failed: $(cat "$T/stderr")"
[ -s "$T/rel.md" ] && [ -s "$T/rel/aoe/other_pocl.jsonl" ] || fail "relative --out/--markdown not under the caller's folder"
# An incomplete Kernel Tuner result is not taken (it would be run again: here
# no venv may be made, so point AOE_KT_VENV at nothing and expect the failure).
/usr/bin/python3 "$S/scripts/bench/strategy_report.py" --check "$T/kt/gemm_pocl.json" --runs 4 --budgets 3,12 \
  --kt-strategies pso,dual_annealing && fail "a result of 3 runs passed as one of 4"
/usr/bin/python3 "$S/scripts/bench/strategy_report.py" --check "$T/kt/gemm_pocl.json" --runs 3 --budgets 3,12 \
  --kt-strategies pso,dual_annealing || fail "a complete result was not recognised"

# The confirmation on fresh seeds (4..5): the best Kernel Tuner strategy of
# each cell on seeds 1..3 (pso at both budgets) is measured again; here its
# fresh results are kept beforehand beside the main ones, in KT/confirm (seed
# 4, 2 runs, so they are taken, not run, and no Kernel Tuner environment is
# made), and there it is a tenth of the optimum: auto is ahead in every cell.
mkdir -p "$T/kt/confirm"
for n in gemm_pocl other_pocl; do
  for b in 3 12; do
    printf '{"seed": 4, "strategies": [{"strategy": "pso", "fractions": {"%s": [0.1, 0.1]}}]}\n' "$b" \
      >"$T/kt/confirm/$n.pso.$b.json"
  done
done
AOE_KT_VENV=$T/no-venv "$cmp" --build "$B" --datasets "$T/data" --kt-results "$T/kt" --out "$T/bench" --runs 3 \
  --budgets 3,12 --kt-strategies pso,dual_annealing --aoe-strategies auto --confirm 2 >"$T/confirmed.md" 2>"$T/stderr" ||
  fail "compare-strategies --confirm failed: $(cat "$T/stderr")"
[ ! -e "$T/no-venv" ] || fail "a Kernel Tuner environment was made though every result was there"
cmp -s "$T/kt/confirm/other_pocl.pso.12.json" "$T/bench/confirm/kt/other_pocl.pso.12.json" ||
  fail "the kept confirmation results were not taken into --out"
grep -q '@3 on 0 of 2 spaces, @12 on 2 of 2 spaces' "$T/confirmed.md" || fail "first summary changed: $(cat "$T/confirmed.md")"
grep -q '^On the fresh seeds, auto at least .*: @3 on 2 of 2 spaces, @12 on 2 of 2 spaces' "$T/confirmed.md" ||
  fail "confirmation summary: $(cat "$T/confirmed.md")"
grep -q '^| gemm_pocl | .*kt:pso 0.100 ± 0.000: +0\.' "$T/confirmed.md" || fail "confirmation row: $(grep '^| gemm_pocl' "$T/confirmed.md")"
[ "$(grep -c '"strategy":"auto"' "$T/bench/confirm/aoe/gemm_pocl.jsonl")" = 2 ] || fail "auto not run on the fresh seeds"
/usr/bin/python3 "$S/scripts/bench/strategy_report.py" --check "$T/bench/confirm/kt/gemm_pocl.pso.3.json" --runs 2 \
  --budgets 3 --kt-strategies pso --seed 1 && fail "a result from seed 4 passed as one from seed 1"

# cross-validate: two candidates, two families, two GPUs' worth of names
printf '# two\ndefault\nnostep --set off=8\n' >"$T/cands"
"$cv" --build "$B" --datasets "$T/data" --candidates "$T/cands" --runs 2 --budgets 5,12 --report-at 12 \
  --out "$T/cv" >"$T/cv.md" 2>"$T/cv.err" || fail "cross-validate failed: $(cat "$T/cv.err")"
grep -q '^In-sample choice (all spaces): \*\*' "$T/cv.md" || fail "no in-sample choice: $(cat "$T/cv.md")"
grep -q '^| gemm | 1 | ' "$T/cv.md" && grep -q '^| other | 1 | ' "$T/cv.md" || fail "families not left out: $(cat "$T/cv.md")"
grep -q "without its family: held-out .*drop at 12: " "$T/cv.md" && grep -q "same gpu: nothing to leave out" "$T/cv.md" || fail "no drop: $(cat "$T/cv.md")"
n=$(find "$T/cv" -name '*.json' | wc -l)
[ "$n" = 8 ] || fail "expected 8 cached scores (2 candidates x 2 spaces x 2 budgets), found $n"
"$cv" --build "$B" --datasets "$T/data" --candidates "$T/cands" --runs 2 --budgets 5,12 --report-at 12 \
  --out "$T/cv" >"$T/cv2.md" 2>&1 || fail "cross-validate from its cache failed"
cmp -s "$T/cv.md" "$T/cv2.md" || fail "a rerun from the cache gave another report"
for bad in "--runs 0" "--report-at 7 --budgets 5,12" "--criterion x" "--candidates $T/none"; do
  rc=0
  # shellcheck disable=SC2086
  "$cv" --build "$B" --datasets "$T/data" $bad >"$T/out" 2>&1 || rc=$?
  [ $rc = 2 ] && grep -q '^cross-validate: ' "$T/out" || fail "cross-validate $bad: exit $rc: $(cat "$T/out")"
done
printf 'x --set\n' >"$T/badc"
rc=0
"$cv" --build "$B" --datasets "$T/data" --candidates "$T/badc" >"$T/out" 2>&1 || rc=$?
[ $rc = 2 ] && grep -q 'badc:1: expected NAME' "$T/out" || fail "bad candidates file: exit $rc: $(cat "$T/out")"
echo "OK"
