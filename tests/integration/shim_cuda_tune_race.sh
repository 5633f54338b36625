#!/usr/bin/env bash
# Threads launching a tuned CUDA kernel at once (client cuda_nvrtc_tune_linked
# race): two shapes alternating on every thread, one of them with a bank
# policy (WPT=2: the variant, built on the poller meanwhile), so shape
# misses, first sights, hits and the remembered tuned launch race each other
# and the poller (the threads go on until the variant ran). Every thread's
# output right; tuned launches counted, never more launches than were made. Run from a ThreadSanitizer build
# (scripts/test: build-tsan) it also fails on any report of TSan.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
client=$B/clients/cuda_nvrtc_tune_linked
if [ ! -x "$client" ]; then
  echo "shim_cuda_tune_race: skipped: no $client (configured without CUDA headers)"
  exit 77
fi
export LD_LIBRARY_PATH=$B/fakecuda:$B/fakenvrtc AOE_TUNABLES=$S/tests/tunables/cuda_tscale.json \
  TSAN_OPTIONS="halt_on_error=1 exitcode=66"
threads=6 launches=300
# the operator of the 128-thread shape: its key from a capture
AOE_TUNE_MODE=offline LD_PRELOAD="$HOOK" "$client" >/dev/null 2>"$T/err" || fail "capture: $(cat "$T/err")"
job=$(compgen -G "$AOE_WORK_PATH/spool/*.job" | head -1) || fail "no job captured"
"$PY" - "$job" >"$T/rec.json" <<'PYEOF'
import json, sys
j = json.load(open(sys.argv[1]))
rec = {"fingerprint": j["fingerprint"], "key": j["key"], "runtime": "cuda", "kernel_name": "tscale",
       "policy": {"params": [{"name": "WPT", "value": 2, "define": True}], "work_dim": 1,
                  "global": [512], "local": [128]},
       "default_us": 2.0, "tuned_us": 1.0, "strategy": "manual", "summary": "shim_cuda_tune_race"}
json.dump({"format": "aoe-bank", "version": 1, "records": [rec]}, sys.stdout)
PYEOF
"$AOE" bank import "$T/rec.json" >/dev/null || fail "bank import"
rm -rf "$AOE_WORK_PATH"/spool "$AOE_WORK_PATH"/aoe_result_*
out=$(AOE_TUNE_MODE=offline LD_PRELOAD="$HOOK" "$client" race $threads $launches 2>"$T/err") ||
  fail "client failed: $out $(tail -30 "$T/err")"
[[ $out =~ ^ok:\ $threads\ threads,\ ([0-9]+)\ launches,\ wpt\ 2$ ]] || fail "unexpected output: $out"
made=${BASH_REMATCH[1]}
r=$(latest_result)
[ -n "$r" ] || fail "no result file"
# launches while another thread sights the function pass uncounted (docs/shim.md)
"$PY" - "$r" "$made" "$threads" <<'PYEOF' || fail "counts ($made launches made): $(cat "$r")"
import json, sys
o = json.load(open(sys.argv[1]))["OPAT"]
made, threads = int(sys.argv[2]), int(sys.argv[3])
tuned = sum(m["tuned_launches"] for m in o["modified_operators"])
assert 0 < tuned <= (made + threads) // 2, tuned  # the 128-thread shape: every other launch
assert 0 < o["launches"] <= made, o["launches"]
assert o["not_tuned"] == [], o["not_tuned"]
PYEOF
echo "shim_cuda_tune_race: ok"
