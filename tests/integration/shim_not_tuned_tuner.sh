#!/usr/bin/env bash
# An operator the background tuner found nothing to tune in is named with
# the tuner's words, and not as a failure: vec_scale
# (tests/clients/image_kernels.c) launched with its own local size and a
# tunables declaration whose one parameter has one value, so the shim
# captures it (a declaration) and the tuner finds one legal configuration
# only. The spool keeps <key>.failed (no recapture), `aoe tune` counts it
# under "nothing to tune" (exit 0), the next run lists it in OPAT.not_tuned
# ("nothing_to_tune", the tuner's words as detail) and `aoe run` names it.
# Without a declaration the shim captures nothing (shim_first_sight.sh).
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
client="$B/clients/image_kernels"
echo vec_scale >"$T/ops"
export AOE_TUNE_OPS="$T/ops"
cat >"$T/decl.json" <<'JSON'
{"format": 1, "kernels": [{"kernel": "vec_scale",
  "parameters": [{"name": "AOE_TEST_ONE", "values": [1], "default": 1}]}]}
JSON
export AOE_TUNABLES="$T/decl.json"
run() { LD_PRELOAD="${AOE_TEST_PRELOAD:-}" "$AOE" run "${@:2}" -- "$client" --local 64 2>"$T/err$1" >/dev/null ||
  fail "run $1 failed: $(cat "$T/err$1")"; }
run 1 --offline
job=$(compgen -G "$AOE_WORK_PATH/spool/*.job" || true)
[ -n "$job" ] || fail "vec_scale with a declaration was not captured: $(cat "$T/err1")"
set +e
"$AOE" tune --spool "$AOE_WORK_PATH/spool" >"$T/tune.out" 2>"$T/tune.err"
rc=$?
set -e
[ "$rc" = 0 ] || fail "aoe tune: exit $rc (nothing to tune is not a failure): $(cat "$T/tune.err")"
grep -q ' 0 failed, 1 nothing to tune,' "$T/tune.err" || fail "aoe tune's spool line: $(cat "$T/tune.err")"
grep -q '^vec_scale *nothing to tune for kernel vec_scale: only one configuration is legal$' "$T/tune.out" ||
  fail "aoe tune's row: $(cat "$T/tune.out")"
! grep -q FAILED "$T/tune.out" || fail "reported as FAILED: $(cat "$T/tune.out")"
compgen -G "$AOE_WORK_PATH/spool/*.failed" >/dev/null || fail "no .failed record (recapture): $(ls "$AOE_WORK_PATH/spool")"
run 2
! compgen -G "$AOE_WORK_PATH/spool/*.job" >/dev/null || fail "captured again: $(ls "$AOE_WORK_PATH/spool")"
r=$(latest_result)
got=$(json "$r" "[(e['reason'], e['detail'].startswith('nothing to tune for kernel vec_scale'), e['launches']) for e in r['OPAT']['not_tuned'] if e['op_name'] == 'vec_scale']")
[ "$got" = "[('nothing_to_tune', True, 2)]" ] || fail "vec_scale in not_tuned: $got: $(cat "$r")"
got=$(json "$r" "r['OPAT']['repo_summary']['untuned_by_reason']['nothing_to_tune']")
[ "$got" = "{'operators': 1, 'launches': 2}" ] || fail "untuned_by_reason: $(cat "$r")"
grep -qx 'not tuned (the tuner found nothing to tune): vec_scale' "$T/err2" ||
  fail "aoe run does not name vec_scale: $(cat "$T/err2")"
grep -q '^aoe run: .* untuned \[.*1 the tuner found nothing to tune (2 launches)\]$' "$T/err2" ||
  fail "aoe run's summary: $(cat "$T/err2")"
! grep -q 'tuning failed' "$T/err2" || fail "called a failure: $(cat "$T/err2")"
echo "shim_not_tuned_tuner: ok"
