#!/usr/bin/env bash
# `aoe run` summarises the result files written during the run in the work
# directory, which may be one other users can write (the program's working
# directory, /tmp). A FIFO planted there under a result file's name used to
# block aoe run forever after the program ended; a link was followed and
# another user's file read into the summary. Now only the user's own regular
# files count; each other entry is named once, and aoe run ends with the
# program's status. The program here ends within a clock tick: its result
# file, stamped by the kernel's coarse clock, used to look older than the
# run's start and be left out (half the runs).
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
W=$AOE_WORK_PATH
result() { # a result file for $1 operators, all hits
  printf '{"OPAT":{"repo_summary":{"total":%d,"hit":%d},"modified_operators":[]}}\n' "$1" "$1"
}
result 7 >"$T/elsewhere.json"
mkfifo "$W/aoe_result_opat_fifo.json"
ln -s "$T/elsewhere.json" "$W/aoe_result_opat_link.json"
planted=(fifo link)
if [ "$(id -u)" = 0 ]; then
  result 5 >"$W/aoe_result_opat_other.json"
  chown 65534:65534 "$W/aoe_result_opat_other.json"
  planted+=(other)
else
  echo "aoe_run_result_files: not root: the other user's file is not checked"
fi
result 9 >"$W/aoe_result_opat_old.json" # before the run: not this run's
touch -d '-1 hour' "$W/aoe_result_opat_old.json"
# planted ones look written during the run (their owner can set any time)
for p in "${planted[@]}"; do touch -h -d '+1 hour' "$W/aoe_result_opat_$p.json"; done

rc=0
err=$(timeout 20 "$AOE" run --json -- sh -c "printf '%s' '$(result 2)' >aoe_result_opat_own.json; exit 3" \
  2>&1 >"$T/summary.json") || rc=$?
[ $rc = 3 ] || fail "aoe run exit $rc, not the program's 3 (124: blocked on the FIFO): $err"
has() { grep -qF -- "$1" <<<"$err" || fail "no '$1' in: $err"; }
has "result file $W/aoe_result_opat_fifo.json ignored: not a regular file"
has "result file $W/aoe_result_opat_link.json ignored: a symbolic link"
[ "$(id -u)" != 0 ] || has "result file $W/aoe_result_opat_other.json ignored: another user's file"
! grep -q aoe_result_opat_old <<<"$err" || fail "an earlier run's file was reported: $err"
[ "$(json "$T/summary.json" '[f["OPAT"]["repo_summary"]["total"] for f in r]')" = "[2]" ] ||
  fail "summary counts more than the program's own file: $(cat "$T/summary.json")"
echo "aoe_run_result_files: ok (planted FIFO, link and other user's file ignored; the program's status kept)"
