#!/usr/bin/env bash
# An operator the background tuner gave up on is named with the tuner's
# reason: vec_scale (tests/clients/image_kernels.c) launched with its own
# local size and no tunables, so the tuner finds nothing to tune and leaves
# <key>.failed in the spool. The next run lists it in OPAT.not_tuned
# ("tuning_failed", the tuner's words as detail) and `aoe run` names it.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
client="$B/clients/image_kernels"
echo vec_scale >"$T/ops"
export AOE_TUNE_OPS="$T/ops"
run() { LD_PRELOAD="${AOE_TEST_PRELOAD:-}" "$AOE" run -- "$client" --local 64 2>"$T/err$1" >/dev/null ||
  fail "run $1 failed: $(cat "$T/err$1")"; }
run 1
wait_drained "$AOE_WORK_PATH/spool"
compgen -G "$AOE_WORK_PATH/spool/*.failed" >/dev/null || fail "the tuner left no .failed: $(ls "$AOE_WORK_PATH/spool")"
run 2
r=$(latest_result)
got=$(json "$r" "[(e['reason'], 'nothing to tune' in e['detail']) for e in r['OPAT']['not_tuned'] if e['op_name'] == 'vec_scale']")
[ "$got" = "[('tuning_failed', True)]" ] || fail "vec_scale in not_tuned: $got: $(cat "$r")"
grep -qx 'not tuned (tuning failed or nothing to tune): vec_scale' "$T/err2" ||
  fail "aoe run does not name vec_scale: $(cat "$T/err2")"
echo "shim_not_tuned_tuner: ok"
