#!/usr/bin/env bash
# Issue 12, items 12, 15 and 17: the background tuner is started without a
# shell or `nice` (it runs with PATH lacking both), at the lowest CPU and I/O
# priority (SCHED_IDLE, idle I/O class, its own autogroup at nice 19); with umask 022 the bank and spool
# directories are 0700 and tuner.log and the result file 0600; an existing
# spool of ours is tightened to 0700; a tuner.log that cannot be opened puts
# no noise on the program's stderr and the job is tuned all the same; a shim
# preloaded by a relative path starts its own tuner after the program's chdir.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
umask 022
client="$B/clients/transpose"
spool="$AOE_WORK_PATH/spool"
ref=$(checksum_of "$("$client" --checksum)")

# 1. PATH without nice and sh
out=$(PATH=/nonexistent LD_PRELOAD="$HOOK" "$client" --checksum 2>"$T/err1")
[ "$(checksum_of "$out")" = "$ref" ] || fail "output differs: $out"
pid=
for ((i = 0; i < 100; i++)); do
  pid=$(fuser "$spool/tuner.lock" 2>/dev/null | tr -s ' ' '\n' | grep -m1 '[0-9]' || true)
  [ -n "$pid" ] && break
  sleep 0.1
done
[ -n "$pid" ] || fail "no background tuner started with PATH=/nonexistent: $(cat "$T/err1")"
chrt -p "$pid" | grep -q SCHED_IDLE || fail "tuner not at SCHED_IDLE: $(chrt -p "$pid")"
ionice -p "$pid" | grep -q '^idle' || fail "tuner not in the idle I/O class: $(ionice -p "$pid")"
# with autogroup scheduling, sessions share the CPU first: the tuner's own
# session must be at nice 19, else SCHED_IDLE alone does not hold it back
if [ "$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null)" = 1 ]; then
  grep -q 'nice 19' "/proc/$pid/autogroup" || fail "tuner's autogroup: $(cat "/proc/$pid/autogroup")"
  [ "$(cat /proc/$pid/autogroup)" != "$(cat /proc/self/autogroup)" ] || fail "tuner shares our autogroup"
fi
wait_drained "$spool"
"$AOE" bank list | grep -q transpose || fail "not tuned: $(cat "$spool/tuner.log")"
mode() { stat -c %a "$1"; }
[ "$(mode "$TUNE_BANK_PATH")" = 700 ] || fail "bank dir mode $(mode "$TUNE_BANK_PATH")"
[ "$(mode "$spool")" = 700 ] || fail "spool mode $(mode "$spool")"
[ "$(mode "$spool/tuner.log")" = 600 ] || fail "tuner.log mode $(mode "$spool/tuner.log")"
[ "$(mode "$(latest_result)")" = 600 ] || fail "result file mode $(mode "$(latest_result)")"
[ "$(mode "$TUNE_BANK_PATH/data.mdb")" = 600 ] || fail "data.mdb mode"

# 2. an existing spool of ours (0755) whose tuner.log cannot be opened
export TUNE_BANK_PATH="$T/bank2" AOE_WORK_PATH="$T/work2"
spool="$AOE_WORK_PATH/spool"
mkdir -p -m 755 "$spool"
mkdir "$spool/tuner.log"
out=$(LD_PRELOAD="$HOOK" "$client" --checksum 2>"$T/err2")
[ "$(checksum_of "$out")" = "$ref" ] || fail "output differs: $out"
[ -z "$(grep -v '^aoe: ' "$T/err2" || true)" ] || fail "noise on the program's stderr: $(cat "$T/err2")"
! grep -q tuner.log "$T/err2" || fail "tuner.log message on the program's stderr: $(cat "$T/err2")"
[ "$(mode "$spool")" = 700 ] || fail "existing spool not tightened: $(mode "$spool")"
wait_drained "$spool"
"$AOE" bank list | grep -q transpose || fail "not tuned without a tuner.log"
# 3. the shim preloaded by a relative path, the program changing directory
# before its first OpenCL call: the tuner is still the shim's own bin/aoe.
# The path was resolved at that call, against the new directory, so the
# shim said "lib/../bin/aoe not found", or started one planted there.
export TUNE_BANK_PATH="$T/bank3" AOE_WORK_PATH="$T/work3"
spool="$AOE_WORK_PATH/spool"
mkdir -p "$T/elsewhere/lib" "$T/elsewhere/bin"
printf '#!/bin/sh\ntouch %s/planted_ran\n' "$T" >"$T/elsewhere/bin/aoe"
chmod +x "$T/elsewhere/bin/aoe"
(cd "$B" && LD_PRELOAD=lib/libaoe_hook.so "$PY" -c 'import os, runpy, sys
os.chdir(sys.argv[1])
sys.argv = sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")' "$T/elsewhere" "$S/tests/clients/pyopencl_client.py") \
  >/dev/null 2>"$T/err3" || fail "the program failed: $(cat "$T/err3")"
! grep -q 'not found' "$T/err3" || fail "the shim lost its tuner after the program's chdir: $(cat "$T/err3")"
for ((i = 0; i < 300; i++)); do # the real tuner's lock, or the planted program's mark
  [ -e "$T/planted_ran" ] && fail "the shim started the aoe planted in the program's new directory"
  [ -e "$spool/tuner.lock" ] && break
  sleep 0.1
done
wait_drained "$spool"
"$AOE" bank list | grep -q blur2d || fail "not tuned: $(cat "$T/err3" "$spool/tuner.log")"
echo "tuner_start: ok (no shell, SCHED_IDLE + idle I/O, 0600/0700, no noise, relative preload)"
