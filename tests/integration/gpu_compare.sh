#!/usr/bin/env bash
# scripts/gpu/gemm-compare's driver without a GPU: a stand-in workload
# (tests/clients/gemm_workload_standin.py) whose figures follow from the mode
# and the round. Checks the modes' order (reversed every other round), that
# per-round pairing cancels a drift the default's median would not, the
# report's figures, the dropped-job path of a tuner that does not finish,
# the JSON it writes, and its usage errors.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
gc=(timeout 120 "$PY" "$S/scripts/gpu/gemm-compare" --build "$B" --workload "$S/tests/clients/gemm_workload_standin.py")
export STANDIN_ORDER="$T/order"

# usage errors: one message, exit 2, nothing run
for bad in "--modes default,bogus" "--modes aoe,aoe" "--rounds 0" "--cpu 100000"; do
  rc=0
  # shellcheck disable=SC2086 # each case is a list of words
  "${gc[@]}" --work "$T/bad" $bad >"$T/out" 2>&1 || rc=$?
  [ $rc = 2 ] && grep -q 'gemm-compare: error: ' "$T/out" || fail "$bad: exit $rc: $(cat "$T/out")"
done
[ ! -e "$STANDIN_ORDER" ] || fail "a usage error ran the workload: $(cat "$STANDIN_ORDER")"
rc=0
"$PY" "$S/scripts/gpu/gemm-compare" --build "$T/none" >"$T/out" 2>&1 || rc=$?
[ $rc = 1 ] && grep -q 'no .*libaoe_hook.so (build AOE first' "$T/out" || fail "no build: exit $rc: $(cat "$T/out")"

# three rounds of all four modes; the learning run leaves a job the tuner never takes
STANDIN_JOB=1 "${gc[@]}" --work "$T/gc" --modes default,tunableop,aoe,shim --rounds 3 \
  --tune-timeout 1 --count-kernels --cpu "$("$PY" -c 'import os; print(min(os.sched_getaffinity(0)))')" \
  >"$T/report" 2>"$T/err" || fail "gemm-compare failed: $(cat "$T/report" "$T/err")"
expect="aoe-learn aoe
default-0 default
tunableop-0 tunableop
aoe-0 aoe
shim-0 shim
shim-1 shim
aoe-1 aoe
tunableop-1 tunableop
default-1 default
default-2 default
tunableop-2 tunableop
aoe-2 aoe
shim-2 shim"
[ "$(cat "$STANDIN_ORDER")" = "$expect" ] || fail "modes ran in the order: $(cat "$STANDIN_ORDER")"
grep -q 'the tuner did not finish within 1 s; 1 queued job(s) dropped' "$T/err" || fail "drop: $(cat "$T/err")"
[ ! -e "$T/gc/spool/standin.job" ] || fail "the queued job was not dropped"
r=$(cat "$T/report")
need() { grep -qF -- "$1" <<<"$r" || fail "report lacks '$1':
$r"; }
# the default's own drift (round 2 is twice as slow as round 0) is reported, and cancelled in the pairs
need "the default's own spread over the rounds (max/min GPU µs per shape), geometric mean: 2.000"
need "tunableop 0.800 (slowest shape 0.800), aoe 1.250 (slowest shape 1.250), shim 1.000 (slowest shape 1.000)"
need "CUBLAS_GEMM_AUTOTUNE (bias-free linear, first round) 1.100"
need "(1 job(s) dropped at --tune-timeout: those shapes run untuned)"
need "kernels: the kernels one call issues, in the order default/tunableop/aoe/shim"
grep -E '^linear/bf16/M1/N4096/K4096 +15\.0 +0\.800 +0\.800-0\.800 +1\.250 +1\.250-1\.250 +1\.000 .* 1/1/2/1 ' <<<"$r" >/dev/null ||
  fail "per-shape line: $(grep '^linear/bf16/M1/' <<<"$r")"
need "shim 5.50 (1.100x the default's, 1.100-1.100)"
need "aoe 1.100x (1.100-1.100)"
"$PY" - "$T/gc/gemm-compare.json" <<'PY' || fail "gemm-compare.json"
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["rounds"]) == 3 and list(d["rounds"][0]) == ["default", "tunableop", "aoe", "shim"], d["rounds"]
assert d["jobs_dropped"] == 1 and d["autotune"], d
PY
echo "gpu_compare: ok"
