#!/usr/bin/env bash
# 8 processes x 2,000 put-if-better on overlapping keys while 4 processes read;
# afterwards every key holds the best time any writer wrote for it, and
# `aoe bank verify` is clean. The map starts at 1 MiB, so it also grows under load.
set -euo pipefail
B=${AOE_BUILD_DIR:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
bank=$T/bank
S=$B/clients/bank_stress

pids=()
for i in 1 2 3 4; do "$S" read "$bank" 3000 400 >"$T/reader$i.out" 2>&1 & pids+=($!); done
for i in $(seq 1 8); do "$S" write "$bank" "$i" 2000 400 "$T/w$i.log" 2>"$T/w$i.err" & pids+=($!); done
fail=0
for p in "${pids[@]}"; do wait "$p" || fail=1; done
if [ $fail -ne 0 ]; then
  cat "$T"/*.err "$T"/reader*.out >&2 || true
  echo "FAIL: a writer or reader failed" >&2
  exit 1
fi
"$S" best "$bank" "$T"/w*.log || { echo "FAIL: a key does not hold its best time" >&2; exit 1; }
"$B/bin/aoe" bank verify --bank "$bank" || { echo "FAIL: verify after stress" >&2; exit 1; }
n=$("$B/bin/aoe" bank stats --json --bank "$bank" | sed -n 's/.*"records": \([0-9]*\).*/\1/p' | head -1)
[ "$n" = 400 ] || { echo "FAIL: expected 400 records, stats says '$n'" >&2; exit 1; }
echo "ok: 8 writers x 2000 puts, 4 readers, 400 keys hold their best times"
