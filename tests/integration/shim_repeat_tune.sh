#!/usr/bin/env bash
# (e) REPEAT_TUNE=True: an operator the bank knows is captured and tuned
# again (the job carries repeat_tune), the program still launches the bank's
# policy meanwhile, and the bank's entry is replaced only by a better result:
# a larger speed-up over the default measured in the same run (the bank's
# rule, store/bank_rw.c), since the device's speed drifts between runs.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
client="$B/clients/transpose"
spool="$AOE_WORK_PATH/spool"
ref=$(checksum_of "$("$client" --checksum)")
LD_PRELOAD="$HOOK" "$client" >/dev/null 2>&1
wait_drained "$spool"
before=$("$AOE" bank list --json | "$PY" -c 'import json,sys; r=json.load(sys.stdin)["records"][0]; print(r["tuned_us"], r["default_us"], r["timestamp"])')
[ -n "$before" ] || fail "no record after the first run"
# without REPEAT_TUNE a known operator is not captured again
LD_PRELOAD="$HOOK" AOE_LOG_LEVEL=debug "$client" >/dev/null 2>"$T/err"
grep -q captured "$T/err" && fail "a known operator was captured without REPEAT_TUNE"
out=$(REPEAT_TUNE=True AOE_LOG_LEVEL=debug LD_PRELOAD="$HOOK" "$client" --checksum 2>"$T/err")
[ "$(checksum_of "$out")" = "$ref" ] || fail "output differs under REPEAT_TUNE"
grep -q captured "$T/err" || fail "REPEAT_TUNE=True did not capture: $(cat "$T/err")"
[ "$(json "$(latest_result)" 'r["OPAT"]["modified_operators"][0]["tuned_launches"]')" = 1 ] ||
  fail "the bank's policy was not used while re-tuning"
wait_drained "$spool"
after=$("$AOE" bank list --json | "$PY" -c 'import json,sys; r=json.load(sys.stdin)["records"][0]; print(r["tuned_us"], r["default_us"], r["timestamp"])')
read -r t0 d0 s0 <<<"$before"
read -r t1 d1 s1 <<<"$after"
if [ "$s1" != "$s0" ]; then
  "$PY" -c "import sys; t0, d0, t1, d1 = $t0, $d0, $t1, $d1
sys.exit(0 if (d1 / t1 >= d0 / t0 if d0 > 0 and d1 > 0 else t1 <= t0) else 1)" ||
    fail "replaced by a smaller speed-up (tuned, default, time): $before -> $after"
fi
# the re-tuning really ran: once the tuner has exited (idle), its report has
# a row for each tuning of the operator
flock -w 60 "$spool/tuner.lock" true || fail "the tuner did not exit"
[ "$(grep -c '^transpose ' "$spool/tuner.log")" -ge 2 ] || fail "not re-tuned: $(cat "$spool/tuner.log")"
echo "shim_repeat_tune: ok ($before -> $after)"
