#!/usr/bin/env bash
# Item 7: one `aoe tune --spool` run tunes several jobs of one program; a
# later job's recomputed key must equal the key it was captured under (the
# key once depended on stale stack bytes, so valid jobs were refused as
# "edited or damaged"). Long build options make the key's input exceed the
# 240 bytes below which xxHash ignores the state's secret.
set -euo pipefail
B=${AOE_BUILD_DIR:?}
S=${AOE_SOURCE_DIR:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export TUNE_BANK_PATH=$T/bank AOE_TUNABLES=$S/tests/tunables/planted_good.json AOE_MAX_EVALS=3
export AOE_WORK_PATH=$T/work
SP=$AOE_WORK_PATH/spool
mkdir -m 700 "$AOE_WORK_PATH"
opts="-DUNUSED_A=1"
for i in $(seq 1 12); do opts="$opts -DUNUSED_OPTION_NUMBER_$i=$i"; done
# the shim captures each launch (offline: no background tuner)
for n in 64 128 192 256 320 384; do
  AOE_TUNE_MODE=offline LD_PRELOAD="$B/lib/libaoe_hook.so" "$B/clients/planted" --n "$n" \
    --options "$opts" >/dev/null 2>"$T/cap.err" || fail "capture failed: $(cat "$T/cap.err")"
done
[ "$(ls "$SP"/*.job | wc -l)" -eq 6 ] || fail "expected 6 distinct jobs: $(ls "$SP")"
set +e
"$B/bin/aoe" tune --spool "$SP" >"$T/out" 2>"$T/err"
rc=$?
set -e
if grep -q 'edited or damaged' "$T/err" "$SP"/*.failed.txt 2>/dev/null; then
  cat "$T/err" >&2
  fail "a valid job was refused as edited or damaged"
fi
[ "$rc" -eq 0 ] || { cat "$T/err" >&2; fail "aoe tune exited $rc"; }
[ "$(grep -c '^planted_scale' "$T/out")" -eq 6 ] || { cat "$T/out" >&2; fail "not all 6 jobs tuned"; }
echo "6 jobs of one program tuned in one run, none refused"
