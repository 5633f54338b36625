#!/usr/bin/env bash
# The shim decides at a kernel's first sight whether anything is tunable
# (issue 16 item 4), on PoCL and on the fake runtime: tests/clients/first_sight.c
# launches own_plain and own_default with their own local size (own_default
# has an #ifndef default) and null_local with a NULL local size. Without a
# declaration or AOE_AUTO_DEFINES only null_local is captured; the other two
# are counted, with their launches, under "own local size, no tunables
# declared" in the result file, the shim's end-of-run line and `aoe run`.
# With AOE_AUTO_DEFINES=1 own_default (its default) is captured too.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
client="$B/clients/first_sight"
own='own_local_size_no_tunables'

jobs_in() { compgen -G "$1/*.job" | wc -l; }

# 1. PoCL, auto-defines off: one job (null_local), two kernels counted.
out=$(LD_PRELOAD="${AOE_TEST_PRELOAD:-}" "$AOE" run --offline -- "$client" --repeat 3 2>"$T/err1") ||
  fail "client failed: $out $(cat "$T/err1")"
grep -q "first_sight: launches=3 ok" <<<"$out" || fail "client output: $out"
[ "$(jobs_in "$AOE_WORK_PATH/spool")" = 1 ] || fail "spool: $(ls "$AOE_WORK_PATH/spool")"
! compgen -G "$AOE_WORK_PATH/spool/*.failed" >/dev/null || fail "a .failed in the spool"
r=$(latest_result)
got=$(json "$r" "sorted((e['op_name'], e['reason'], e['launches']) for e in r['OPAT']['not_tuned'])")
want="[('own_default', '$own', 3), ('own_plain', '$own', 3)]"
[ "$got" = "$want" ] || fail "not_tuned: $got, want $want"
got=$(json "$r" "sorted((k, v['operators'], v['launches']) for k, v in r['OPAT']['repo_summary']['untuned_by_reason'].items())")
want="[('$own', 2, 6), ('queued', 1, 3)]"
[ "$got" = "$want" ] || fail "untuned_by_reason: $got, want $want"
[ "$(json "$r" 'r["OPAT"]["repo_summary"]["unsatisfied"]')" = 3 ] || fail "repo_summary: $(cat "$r")"
why='[2 own local size, no tunables declared (6 launches); 1 waiting for the tuner (3 launches)]'
grep -qF "3 untuned $why" <<<"$(grep '^aoe: 3 operators' "$T/err1")" ||
  fail "the shim's end-of-run line: $(cat "$T/err1")"
grep -qxF "aoe run: 3 operator(s): 0 hit, 0 added, 0 updated, 0 reserved, 3 untuned $why" "$T/err1" ||
  fail "aoe run's summary: $(cat "$T/err1")"
grep -qx 'not tuned (own local size, no tunables declared): own_default, own_plain' "$T/err1" ||
  fail "aoe run does not name them: $(cat "$T/err1")"
echo "shim_first_sight: PoCL: own local size without declaration: nothing captured, counted"

# 2. PoCL, AOE_AUTO_DEFINES=1: own_default's #ifndef default makes it tunable.
export AOE_WORK_PATH=$T/work2
mkdir -p "$AOE_WORK_PATH" && cd "$AOE_WORK_PATH"
AOE_AUTO_DEFINES=1 LD_PRELOAD="${AOE_TEST_PRELOAD:-}" "$AOE" run --offline -- "$client" >/dev/null 2>"$T/err2" ||
  fail "client failed: $(cat "$T/err2")"
[ "$(jobs_in "$AOE_WORK_PATH/spool")" = 2 ] || fail "auto-defines: spool: $(ls "$AOE_WORK_PATH/spool")"
r=$(latest_result)
got=$(json "$r" "sorted((e['op_name'], e['reason']) for e in r['OPAT']['not_tuned'])")
[ "$got" = "[('own_plain', '$own')]" ] || fail "auto-defines: not_tuned: $got"
echo "shim_first_sight: PoCL: AOE_AUTO_DEFINES=1: a kernel with an #ifndef default is captured"

# 3. The fake runtime: the same decision, and every launch still reaches the
# runtime with the program's own local size.
FAKE="$B/fakecl"
[ -e "$FAKE/libOpenCL.so.1" ] || fail "no fake runtime in $FAKE"
export AOE_WORK_PATH=$T/work3
mkdir -p "$AOE_WORK_PATH" && cd "$AOE_WORK_PATH"
AOE_TUNE_MODE=offline LD_PRELOAD="$HOOK" LD_LIBRARY_PATH="$FAKE" "$client" --repeat 4 --no-check \
  >/dev/null 2>"$T/err3" || fail "fake: client failed: $(cat "$T/err3")"
[ "$(jobs_in "$AOE_WORK_PATH/spool")" = 1 ] || fail "fake: spool: $(ls "$AOE_WORK_PATH/spool")"
grep -q '^fakecl: kernel=own_plain options="" local=4 launches=4$' "$T/err3" ||
  fail "fake: own_plain's launches: $(cat "$T/err3")"
r=$(latest_result)
got=$(json "$r" "sorted((e['op_name'], e['reason'], e['launches']) for e in r['OPAT']['not_tuned'])")
want="[('own_default', '$own', 4), ('own_plain', '$own', 4)]"
[ "$got" = "$want" ] || fail "fake: not_tuned: $got, want $want"
echo "shim_first_sight: fake runtime: nothing captured for own local sizes, every launch passed"

# 4. "tuned policies active" only when a policy changes the launch: a bank
# record that keeps the default (tuned_us == default_us) is a hit, silently;
# one faster than the default is announced.
job=$(compgen -G "$AOE_WORK_PATH/spool/*.job" | head -1)
for kind in default tuned; do
  "$PY" "$S/tests/fakecl/record_for_job.py" "$job" 8 >"$T/rec.json"
  [ "$kind" = tuned ] || "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1]))
d["records"][0]["tuned_us"] = d["records"][0]["default_us"]; json.dump(d, open(sys.argv[1], "w"))' "$T/rec.json"
  export TUNE_BANK_PATH=$T/bank_$kind
  "$AOE" bank import "$T/rec.json" >/dev/null 2>&1 || fail "bank import failed"
  LD_PRELOAD="$HOOK" LD_LIBRARY_PATH="$FAKE" "$client" --no-check >/dev/null 2>"$T/err_$kind" ||
    fail "fake: $kind: client failed: $(cat "$T/err_$kind")"
  grep -q '^aoe: 3 operators: 1 hit,' "$T/err_$kind" || fail "fake: $kind: no hit: $(cat "$T/err_$kind")"
done
! grep -q "tuned policies active" "$T/err_default" || fail "announced a default: $(cat "$T/err_default")"
grep -q "tuned policies active" "$T/err_tuned" || fail "no announcement: $(cat "$T/err_tuned")"
echo "shim_first_sight: 'tuned policies active' only for a policy that changes the launch"
