#!/usr/bin/env bash
# Issue 12 item 6, the shim's side: a bank record whose work sizes do not
# follow from the launch is refused (the program's own launch runs, one line
# says why). A real PoCL program (reduce, global 2048, NULL local) with records
# imported by `aoe bank import`: global a quarter of the launch's (was:
# silently wrong output), four times larger (was: a crash), a local size that
# does not divide the global, and another work_dim; the program's output must
# be identical to a run without the shim, with exit status 0. A record that
# fits (same global, local 64) is still applied.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
client="$B/clients/reduce"
ref=$(checksum_of "$("$client" --checksum)")
[ -n "$ref" ] || fail "no checksum from the client"
AOE_TUNE_MODE=offline LD_PRELOAD="$HOOK" "$client" >/dev/null 2>&1
job=$(compgen -G "$AOE_WORK_PATH/spool/*.job" | head -1) || fail "no job captured"
cp "$job" "$T/job.json"
job="$T/job.json"
rm -rf "$AOE_WORK_PATH/spool"

# case NAME GLOBAL LOCAL DIM: a bank with one record, the run under the shim
run_case() {
  local name=$1 global=$2 local=$3 dim=$4 bank="$T/bank_$1"
  "$PY" "$S/tests/fakecl/record_for_job.py" "$job" "$local" |
    "$PY" -c 'import json,sys
d=json.load(sys.stdin); p=d["records"][0]["policy"]; dim=int(sys.argv[3])
p["work_dim"]=dim; p["global"]=[int(sys.argv[1])]+[1]*(dim-1); p["local"]=[int(sys.argv[2])]+[1]*(dim-1)
json.dump(d,sys.stdout)' "$global" "$local" "$dim" >"$T/rec_$name.json"
  "$AOE" bank --bank "$bank" import "$T/rec_$name.json" >/dev/null
  rc=0
  out=$(AOE_TUNE_MODE=off TUNE_BANK_PATH="$bank" LD_PRELOAD="$HOOK" "$client" --checksum \
    2>"$T/err_$name") || rc=$?
  [ "$rc" = 0 ] || fail "$name: exit status $rc: $out $(cat "$T/err_$name")"
  [ "$(checksum_of "$out")" = "$ref" ] || fail "$name: output differs: $out vs $ref"
  result=$(latest_result)
}
for c in "quarter 512 64 1" "quadruple 8192 64 1" "nondividing 2048 48 1" "dim2 2048 64 2"; do
  set -- $c
  run_case "$@"
  [ "$(json "$result" 'r["OPAT"]["repo_summary"]["hit"]')" = 0 ] || fail "$1: applied: $(cat "$result")"
  grep -q 'refused' "$T/err_$1" || fail "$1: no message: $(cat "$T/err_$1")"
done
run_case fits 2048 64 1
[ "$(json "$result" 'r["OPAT"]["modified_operators"][0]["tuned_launches"]')" = 1 ] ||
  fail "fits: not applied: $(cat "$result")"
! grep -q 'refused' "$T/err_fits" || fail "fits: refused: $(cat "$T/err_fits")"
echo "shim_policy_check: ok (4 records refused, output identical; a fitting one applied)"
