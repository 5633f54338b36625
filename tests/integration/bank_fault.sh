#!/usr/bin/env bash
# A writer is SIGKILLed at random points 20 times. After each kill the bank
# verifies clean and every record whose put had returned (logged and fsynced
# by the writer right after) is present; the next writer then carries on.
set -euo pipefail
B=${AOE_BUILD_DIR:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
bank=$T/bank
S=$B/clients/bank_stress
RANDOM=$$
for round in $(seq 1 20); do
  "$S" append "$bank" "$T/committed.log" 2>"$T/append.err" &
  pid=$!
  sleep "0.$(printf '%02d' $((RANDOM % 40 + 5)))"
  kill -KILL "$pid" 2>/dev/null || { cat "$T/append.err" >&2; echo "FAIL: writer died on its own in round $round" >&2; exit 1; }
  wait "$pid" 2>/dev/null || true
  "$B/bin/aoe" bank verify --bank "$bank" >"$T/verify.out" 2>&1 ||
    { cat "$T/verify.out" >&2; echo "FAIL: verify after kill $round" >&2; exit 1; }
  "$S" present "$bank" "$T/committed.log" >"$T/present.out" 2>&1 ||
    { cat "$T/present.out" >&2; echo "FAIL: committed records lost after kill $round" >&2; exit 1; }
done
n=$(wc -l <"$T/committed.log")
[ "$n" -gt 20 ] || { echo "FAIL: only $n records committed in 20 rounds" >&2; exit 1; }
echo "ok: 20 kills, $n committed records all present, bank verifies clean"
