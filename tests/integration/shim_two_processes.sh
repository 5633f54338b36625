#!/usr/bin/env bash
# (d) Two processes on one bank at once, launching the same operator until
# told to stop: one job in the spool (no duplicate), one tuner (the other
# process's tuner finds the lock taken and exits), and both processes pick
# the result up while running (their launches after it are tuned). Each
# pauses 5 ms after a launch: on PoCL the program and the idle-priority tuner
# share the CPU, and two programs that kept both cores busy would leave it
# only starved timings, which it does not use (tune_starved).
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
spool="$AOE_WORK_PATH/spool"
pyopencl_from_source
run() { AOE_LOG_LEVEL=debug LD_PRELOAD="$HOOK" "$PY" "$S/tests/clients/pyopencl_client.py" --size 128 --repeat 1 --until-file "$T/stop" --pause-ms 5 --checksum; }
run >"$T/out1" 2>"$T/err1" &
p1=$!
run >"$T/out2" 2>"$T/err2" &
p2=$!
for ((i = 0; i < 600; i++)); do
  "$AOE" bank list 2>/dev/null | grep -q blur2d && break
  sleep 0.2
done
"$AOE" bank list | grep -q blur2d || { touch "$T/stop"; wait; fail "no record: $(cat "$spool/tuner.log")"; }
sleep 2 # both processes poll every 50 ms; leave them some launches with the result
touch "$T/stop"
wait "$p1" || fail "process 1 failed: $(cat "$T/err1")"
wait "$p2" || fail "process 2 failed: $(cat "$T/err2")"
[ "$(checksum_of "$(cat "$T/out1")")" = "$(checksum_of "$(cat "$T/out2")")" ] || fail "outputs differ"
caps=$(cat "$T/err1" "$T/err2" | grep -c '^aoe: captured blur2d') || true
[ "$caps" = 1 ] || fail "expected one captured job, got $caps: $(cat "$T/err1" "$T/err2")"
n=0
for r in "$AOE_WORK_PATH"/aoe_result_opat_*.json; do
  [ "$(json "$r" 'r["OPAT"]["repo_summary"]["add"]')" = 1 ] || fail "result not picked up: $(cat "$r")"
  [ "$(json "$r" 'r["OPAT"]["modified_operators"][0]["tuned_launches"] > 0')" = True ] || fail "no tuned launch: $(cat "$r")"
  n=$((n + 1))
done
[ "$n" = 2 ] || fail "expected 2 result files, found $n"
echo "shim_two_processes: ok"
