#!/usr/bin/env bash
# Issue 12 items 20 and 22: several threads launch ONE kernel object while
# the bank's policy for it changes (records with other -D values and local
# sizes imported during the run), on tests/fakecl. Every launch reaches the
# runtime exactly once and is counted exactly once in the result file (the
# per-kernel counters lose nothing), the launches switch between variant
# kernels, and superseded policies are freed. Run from a ThreadSanitizer build
# (scripts/test: build-tsan), it also fails on any report of TSan.
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
client="$B/clients/race_launch"
export LD_LIBRARY_PATH="$B/fakecl" AOE_LOG_LEVEL=debug TSAN_OPTIONS="halt_on_error=1 exitcode=66"

AOE_TUNE_MODE=offline LD_PRELOAD="$HOOK" "$client" --threads 1 --launches 1 >/dev/null 2>"$T/err0" ||
  fail "capture run failed: $(cat "$T/err0")"
job=$(compgen -G "$AOE_WORK_PATH/spool/*.job" | head -1) || fail "no job captured"
# records 0..9: -DAOE_RACE=i, local 32 or 64, each better than the last
for i in $(seq 0 9); do
  "$PY" "$S/tests/fakecl/record_for_job.py" "$job" $((32 << (i % 2))) "AOE_RACE=$i" |
    "$PY" -c 'import json,sys; d=json.load(sys.stdin); d["records"][0]["tuned_us"]=1.0/(2+int(sys.argv[1])); json.dump(d,sys.stdout)' "$i" >"$T/rec$i.json"
done
rm -rf "$AOE_WORK_PATH/spool"
"$AOE" bank import "$T/rec0.json" >/dev/null

AOE_TUNE_MODE=off LD_PRELOAD="$HOOK" "$client" --threads 4 --launches 20000 \
  --wait-file "$T/done" >"$T/out" 2>"$T/err" &
pid=$!
for i in $(seq 1 9); do
  sleep 0.2 # pacing only: the poller (AOE_POLL_MS=50) sees most generations
  "$AOE" bank import "$T/rec$i.json" >/dev/null
done
sleep 0.2
touch "$T/done"
rc=0
wait "$pid" || rc=$?
out=$(cat "$T/out") err=$(cat "$T/err")
! grep -q ThreadSanitizer <<<"$err" || fail "ThreadSanitizer: $(grep -A30 ThreadSanitizer <<<"$err" | head -60)"
[ "$rc" = 0 ] || fail "client exit status $rc: $out $(tail -20 <<<"$err")"
made=$(grep -o 'launches=[0-9]*' <<<"$out" | cut -d= -f2)
[ -n "$made" ] || fail "no output: $out"
total=$(grep -o 'fakecl: total_launches=[0-9]*' <<<"$err" | tail -1 | cut -d= -f2)
[ "$total" = "$made" ] || fail "the runtime saw $total launches, the program made $made"
r=$(latest_result)
counted=$(json "$r" 'sum(m["launches"] for m in r["OPAT"]["modified_operators"])')
[ "$counted" = "$made" ] || fail "the result file counts $counted launches, the program made $made"
variants=$(grep -c '^fakecl: kernel=reduce_sum options=" -DAOE_RACE=[0-9]*"' <<<"$err" || true)
[ "$variants" -ge 2 ] || fail "launches did not switch variants ($variants): $(grep fakecl: <<<"$err")"
freed=$(grep -o '[0-9]* in all' <<<"$err" | tail -1 | cut -d' ' -f1)
[ -n "$freed" ] && [ "$freed" -ge 1 ] || fail "no superseded policy was freed: $(grep aoe: <<<"$err" | tail)"
echo "shim_race: ok ($made launches by 4 threads, $variants variants, $freed policies freed)"
