#!/usr/bin/env bash
# Issue 15 end to end, on the fake driver and NVRTC: a program compiles
# tests/kernels/sgemm_tiled.cu with NVRTC (tile sizes as #ifndef defaults,
# declared in the shipped etc/tunables/cuda_sgemm.json) and launches it.
# Under the shim its first run captures the launch and the background tuner
# tunes it (the CUDA executor: variants compiled by NVRTC, timed with
# events, verified); the bank then holds the fake cost model's optimum
# (TS=32, WPT=4). A second run, with the bank only (AOE_TUNE_MODE=off),
# launches that variant (the fake kernel sees TS=32 WPT=4) at the policy's
# grid and block, and the product is the same, bit for bit, as without AOE.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
client=$B/clients/cuda_nvrtc_sgemm_linked
if [ ! -x "$client" ]; then
  echo "shim_cuda_e2e: skipped: no $client (configured without CUDA headers)"
  exit 77
fi
export LD_LIBRARY_PATH=$B/fakecuda:$B/fakenvrtc AOE_MAX_EVALS=12 AOE_TIME_LIMIT=120
src=$S/tests/kernels/sgemm_tiled.cu
want=$(LD_PRELOAD="${AOE_TEST_PRELOAD:-}" "$client" "$src" 3) || fail "without the shim: $want"
grep -q "^ran TS=16 WPT=1$" <<<"$want" || fail "without the shim: $want"

# Run 1: captured, tuned in the background.
out=$(AOE_TUNE_MODE=online LD_PRELOAD="$HOOK" "$client" "$src" 3 2>"$T/err1") ||
  fail "run 1: $out $(cat "$T/err1")"
[ "$(checksum_of "$out")" = "$(checksum_of "$want")" ] || fail "run 1 changed the product: $out"
wait_drained "$AOE_WORK_PATH/spool" 240
compgen -G "$AOE_WORK_PATH/spool/*.failed" >/dev/null &&
  fail "the job failed: $(cat "$AOE_WORK_PATH"/spool/*.failed.txt)"
list=$("$AOE" bank list 2>&1) || fail "aoe bank list: $list"
grep -q "sgemm_tiled" <<<"$list" && grep -q "TS=32" <<<"$list" && grep -q "WPT=4" <<<"$list" ||
  fail "expected sgemm_tiled with TS=32 WPT=4 in the bank: $list
$(cat "$AOE_WORK_PATH/spool/tuner.log" 2>/dev/null)"

# Run 2: the bank only; the variant is built off the launching thread.
rm -f "$AOE_WORK_PATH"/aoe_result_opat_*.json
out=$(AOE_TUNE_MODE=off LD_PRELOAD="$HOOK" "$client" "$src" 1 30 2>"$T/err2") ||
  fail "run 2: $out $(cat "$T/err2")"
grep -q "^ran TS=32 WPT=4$" <<<"$out" || fail "run 2 did not launch the tuned variant: $out $(cat "$T/err2")"
[ "$(checksum_of "$out")" = "$(checksum_of "$want")" ] || fail "the tuned variant changed the product: $out"
r=$(latest_result)
[ -n "$r" ] || fail "run 2 wrote no result file"
tuned=$(json "$r" "sum(o.get('tuned_launches', 0) for o in r['OPAT'].get('modified_operators', []) if o.get('op_name') == 'sgemm_tiled')")
[ "$tuned" -ge 1 ] || fail "the result file counts no tuned launch of sgemm_tiled: $(cat "$r")"
echo "$list" | grep sgemm_tiled
echo "shim_cuda_e2e: captured, tuned in the background (TS=32 WPT=4), the variant launched by the next run; product identical"
