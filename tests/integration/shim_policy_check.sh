#!/usr/bin/env bash
# Issue 12 item 6, the shim's side: a bank record whose work sizes do not
# follow from the launch is refused (the program's own launch runs, one line
# says why). A real PoCL program (reduce, global 2048, NULL local) with records
# imported by `aoe bank import`: global a quarter of the launch's (was:
# silently wrong output), four times larger (was: a crash), a local size that
# does not divide the global, and another work_dim; the program's output must
# be identical to a run without the shim, with exit status 0. A record that
# fits (same global, local 64) is still applied. With declared rules (gemm),
# a record whose global does not follow from its WPT is refused.
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

# Declared rules (etc/tunables/gemm.json: global ["G0", "G1 / WPT"]): gemm
# launches global (256, 256), local (16, 16); a record with WPT=2 must carry
# global (256, 128).
gclient="$B/clients/gemm"
AOE_TUNE_MODE=offline LD_PRELOAD="$HOOK" "$gclient" >/dev/null 2>&1
gjob=$(grep -l gemm_tiled "$AOE_WORK_PATH"/spool/*.job | head -1) || fail "no gemm job captured"
cp "$gjob" "$T/gjob.json"
rm -rf "$AOE_WORK_PATH/spool"
gemm_case() { # name global1
  "$PY" "$S/tests/fakecl/record_for_job.py" "$T/gjob.json" 16 TS=16 WPT=2 WIDTH=1 |
    "$PY" -c 'import json,sys
d=json.load(sys.stdin); p=d["records"][0]["policy"]
p["global"]=[256,int(sys.argv[1])]; p["local"]=[16,8]; json.dump(d,sys.stdout)' "$2" >"$T/grec_$1.json"
  "$AOE" bank --bank "$T/gbank_$1" import "$T/grec_$1.json" >/dev/null
  rc=0
  out=$(AOE_TUNE_MODE=off TUNE_BANK_PATH="$T/gbank_$1" LD_PRELOAD="$HOOK" "$gclient" --repeat 3 \
    2>"$T/gerr_$1") || rc=$?
  [ "$rc" = 0 ] || fail "gemm $1: exit status $rc: $out $(cat "$T/gerr_$1")"
  result=$(latest_result)
}
gemm_case rule_broken 256
[ "$(json "$result" 'r["OPAT"]["repo_summary"]["hit"]')" = 0 ] || fail "gemm rule_broken: applied"
grep -q 'refused' "$T/gerr_rule_broken" || fail "gemm rule_broken: no message"
gemm_case rule_kept 128
[ "$(json "$result" 'r["OPAT"]["repo_summary"]["hit"]')" = 1 ] ||
  fail "gemm rule_kept: not applied: $(cat "$T/gerr_rule_kept")"
! grep -q 'refused' "$T/gerr_rule_kept" || fail "gemm rule_kept: refused: $(cat "$T/gerr_rule_kept")"
echo "shim_policy_check: ok (5 records refused, output identical; fitting ones applied)"
