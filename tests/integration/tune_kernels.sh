#!/usr/bin/env bash
# Each test kernel (gemm, conv2d, reduce, transpose) is tuned end to end on PoCL
# from the job its client emits, into a fresh bank: the job succeeds, the record
# is written, and the kept policy is no slower than the default (the tuner keeps
# the default unless a verified variant beats it by more than the noise).
set -euo pipefail
B=${AOE_BUILD_DIR:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PY=/usr/bin/python3
export TUNE_BANK_PATH=$T/bank
"$B/clients/gemm" --m 128 --n 128 --k 128 --emit-job "$T/gemm.json" >/dev/null
"$B/clients/conv2d" --width 128 --height 128 --emit-job "$T/conv2d.json" >/dev/null
"$B/clients/reduce" --n 65536 --partials 1024 --emit-job "$T/reduce.json" >/dev/null
"$B/clients/transpose" --width 256 --height 128 --emit-job "$T/transpose.json" >/dev/null
for k in gemm conv2d reduce transpose; do
  set +e
  "$B/bin/aoe" tune --max-evals 6 --time-limit 20 --json "$T/$k.json" >"$T/$k.out" 2>"$T/$k.err"
  rc=$?
  set -e
  [ "$rc" -eq 0 ] || { cat "$T/$k.err" "$T/$k.out" >&2; echo "FAIL: tuning $k exited $rc" >&2; exit 1; }
  "$PY" - "$T/$k.out" "$k" <<'PYEOF'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
k = sys.argv[2]
def fail(msg):
    print("FAIL: %s: %s" % (k, msg), json.dumps(j, indent=1), file=sys.stderr); sys.exit(1)
if not j["ok"]: fail("job failed: %s" % j["error"])
if j["evaluations"] < 1 or j["evaluations"] > 6: fail("evaluations outside the budget")
if j["bank"] != "added": fail("record not added to the fresh bank")
if not (0 < j["best_us"] <= j["default_us"]): fail("kept policy slower than the default")
if j["improved"] and j["failures"] >= j["evaluations"]: fail("improved without a verified variant")
PYEOF
done
echo "ok: gemm, conv2d, reduce, transpose tuned end to end; kept policies no slower than the default"
