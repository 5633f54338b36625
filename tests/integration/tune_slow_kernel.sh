#!/usr/bin/env bash
# A kernel taking seconds a launch (tests/kernels/slow_repeat.cl: about 2 s on
# PoCL here, set by --iters) is tuned within the default budget: the run plan
# (tuner/run_plan.h) gives it a watchdog that scales with the default's time
# (AOE_VARIANT_TIMEOUT=2 would kill every run of it), a verified and 3 timed
# runs a variant, and a time limit of max(AOE_TIME_LIMIT, 60 x the default);
# `aoe tune` says so. REDO=1 does a quarter of the work with bit-identical
# output: a policy lands in the bank. No timing is asserted.
set -euo pipefail
B=${AOE_BUILD_DIR:?}
S=${AOE_SOURCE_DIR:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PY=/usr/bin/python3
"$B/clients/slow_kernel" --n 4096 --iters 80000 --emit-job "$T/job.json" >"$T/client.txt"
grep -q ' ok$' "$T/client.txt" || { cat "$T/client.txt" >&2; echo "FAIL: the client's result" >&2; exit 1; }
export TUNE_BANK_PATH=$T/bank AOE_TUNABLES=$S/tests/tunables/slow_repeat.json AOE_VARIANT_TIMEOUT=2
unset AOE_TIME_LIMIT AOE_MAX_EVALS
set +e
"$B/bin/aoe" tune "$T/job.json" >"$T/table.txt" 2>"$T/err.txt"
rc=$?
set -e
show() { cat "$T/table.txt" "$T/err.txt" >&2; echo "FAIL: $1" >&2; exit 1; }
[ "$rc" -eq 0 ] || show "aoe tune exited $rc"
# The protocol adapted, and says how.
grep -Eq 'slow kernel: the default takes [0-9.]+ s a run; per variant 1 verified \+ 3 timed runs .*watchdog [0-9]+ s, time limit [0-9]+ s' "$T/err.txt" ||
    show "no line saying how the protocol adapted"
# The watchdog killed nothing: neither the default nor a variant.
if grep -q 'timeout' "$T/table.txt" "$T/err.txt"; then show "the watchdog killed a run"; fi
grep -Eq '^slow_repeat +[0-9.]+ +[0-9.]+ +[0-9.]+x +[0-9]+ (added|updated) +-$' "$T/table.txt" ||
    show "no policy added to the bank without failures"
"$B/bin/aoe" bank list --json >"$T/bank.json"
"$PY" - "$T/bank.json" <<'PYEOF'
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
if len(recs) != 1 or recs[0]["kernel_name"] != "slow_repeat":
    sys.exit("FAIL: one slow_repeat record expected: %s" % recs)
params = {p["name"]: p["value"] for p in recs[0]["policy"]["params"]}
if params.get("REDO") not in (1, 2):
    sys.exit("FAIL: the kept policy does not do less work: %s" % recs[0]["policy"])
PYEOF
# The tuned program gives the same output (bit for bit: the kernel is integer).
"$B/clients/slow_kernel" --n 4096 --iters 2000 --options -DREDO=1 | grep -q ' ok$' ||
    { echo "FAIL: REDO=1 gives another result" >&2; exit 1; }
echo "ok: a kernel taking seconds tuned within the default budget ($(grep -o 'slow kernel: .*' "$T/err.txt"))"
