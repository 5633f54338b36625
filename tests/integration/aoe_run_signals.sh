#!/usr/bin/env bash
# `aoe run` is stopped the way supervisors stop a program (kill PID, a
# container's SIGTERM): the signal goes on to the program, and aoe run ends
# with the program's status. It used to die alone and leave the program
# running. TERM, HUP, INT and USR1 sent to aoe run reach a program that traps
# them (exit 3); a program that does not trap TERM dies of it (143) and is
# not left behind. With stderr a pipe nobody reads, aoe run's summary does
# not replace the program's status with SIGPIPE's. A program that cannot be
# started gets the shell's statuses (127 not found, 126 not runnable) and one
# message, without a summary of a run that never happened.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
# the pid of a child of process $1 (its parent's pid follows the state after
# the command name's closing parenthesis in /proc/PID/stat)
child_of() {
  local st
  for st in /proc/[0-9]*/stat; do
    [ "$(sed -E 's/.*\) . ([0-9]+) .*/\1/' "$st" 2>/dev/null)" = "$1" ] &&
      { st=${st#/proc/} && echo "${st%/stat}" && return; }
  done
  return 0
}
# starts aoe run -- CMD... in the background: $apid, and the program's pid in $cpid
start() {
  "$AOE" run -- "$@" 2>/dev/null &
  apid=$!
  cpid=""
  for _ in $(seq 100); do
    cpid=$(child_of "$apid")
    [ -n "$cpid" ] && [ "$(readlink "/proc/$cpid/exe" || true)" != "$(readlink -f "$AOE")" ] && break
    sleep 0.05
  done
  [ -n "$cpid" ] || fail "aoe run started no program"
}
# waits (at most 10 s) for aoe run; its exit status in $rc
finish() {
  rc=0
  for _ in $(seq 200); do kill -0 "$apid" 2>/dev/null || break; sleep 0.05; done
  kill -0 "$apid" 2>/dev/null && { kill -KILL "$cpid" "$apid"; fail "aoe run did not end after $1"; }
  wait "$apid" || rc=$?
}
for sig in TERM HUP INT USR1; do
  rm -f "$T/ready"
  # shellcheck disable=SC2016 # $1 is the program's own
  start sh -c 'trap "exit 3" TERM HUP INT USR1; : >"$1"; while :; do sleep 0.1; done' sh "$T/ready"
  # the trap is set (a fixed pause was too short on a loaded machine)
  for _ in $(seq 200); do [ -e "$T/ready" ] && break; sleep 0.05; done
  [ -e "$T/ready" ] || fail "the program did not set its trap in 10s"
  kill -"$sig" "$apid"
  finish "SIG$sig"
  [ "$rc" = 3 ] || fail "SIG$sig to aoe run: exit status $rc, not the program's 3"
  ! kill -0 "$cpid" 2>/dev/null || fail "SIG$sig: the program is still running"
done
start sleep 30
kill -TERM "$apid"
finish SIGTERM
[ "$rc" = 143 ] || fail "SIGTERM, a program without a trap: exit status $rc, not 143"
sleep 0.1
! kill -0 "$cpid" 2>/dev/null || { kill "$cpid"; fail "SIGTERM: sleep 30 was left running"; }
# and with its stderr a pipe nobody reads, its summary there does not end it
# with SIGPIPE (141): the program's status stands
rc=$("$PY" -c 'import os, signal, sys
signal.signal(signal.SIGPIPE, signal.SIG_DFL)
r, w = os.pipe()
os.close(r)
os.dup2(w, 2)
os.execv(sys.argv[1], sys.argv[1:])' "$AOE" run -- sh -c 'exit 5' >/dev/null && echo 0 || echo $?)
[ "$rc" = 5 ] || fail "aoe run with stderr a closed pipe: exit status $rc, not the program's 5"
# a program that cannot be started
: >"$T/noexec"
for c in "127 No such file or directory:$T/missing" "127 No such file or directory:no_such_command_aoe" \
  "126 Permission denied:$T/noexec" "126 Permission denied:$T"; do
  want=${c%% *} msg=${c#* } msg=${msg%%:*} prog=${c#*:}
  rc=0
  "$AOE" run -- "$prog" >/dev/null 2>"$T/err" || rc=$?
  [ "$rc" = "$want" ] || fail "aoe run -- $prog: exit status $rc, not $want"
  [ "$(cat "$T/err")" = "aoe run: cannot run '$prog': $msg" ] ||
    fail "aoe run -- $prog: not one clear message: $(cat "$T/err")"
done
echo "aoe_run_signals: TERM, HUP, INT and USR1 sent to aoe run reach the program (its exit" \
  "status 3 returned); an untrapped TERM ends it (143), nothing left running; a closed stderr" \
  "does not change the program's status; a program not found exits 127, not runnable 126, one message"
