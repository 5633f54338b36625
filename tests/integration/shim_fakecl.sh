#!/usr/bin/env bash
# The shim's launch path against the fake runtime (tests/fakecl): with the
# shim off, after a capture (miss) and on a bank hit with a variant program,
# every launch the program makes reaches the runtime exactly once, and on a
# hit the launches through the program's symbol go out on the variant kernel
# (built with the policy's -D value) with the tuned local size.
set -euo pipefail
source "$(dirname "$0")/shim_helpers.bash"
FAKE="$B/fakecl"
[ -e "$FAKE/libOpenCL.so.1" ] || fail "no fake runtime in $FAKE"
client="$B/clients/overhead_client"

# run MODE: the client under the shim on the fake runtime; sets out (stdout)
# and err (stderr, with the fake's report).
run() {
  local e=$T/err.txt
  out=$(AOE_TUNE_MODE=$1 LD_PRELOAD="$HOOK" LD_LIBRARY_PATH="$FAKE" \
    "$client" --batches 3 --launches 2000 --warmup-ms "${2:-0}" 2>"$e") ||
    fail "client failed in mode $1: $(cat "$e")"
  err=$(cat "$e")
}
num() { grep -o "$1=[0-9]*" <<<"$2" | head -1 | cut -d= -f2; }
# launches the fake saw on kernels whose build options match $1 (grep -E)
fake_launches() {
  grep '^fakecl: kernel=nop ' <<<"$err" | grep -E "options=\"$1\"" |
    grep -o ' launches=[0-9]*' | cut -d= -f2 | awk '{s += $1} END {print s + 0}'
}
check_total() {
  local via direct total
  via=$(num via_launches "$out") direct=$(num direct_launches "$out")
  total=$(num total_launches "$err")
  [ -n "$via" ] && [ -n "$total" ] || fail "$1: no counts: $out / $err"
  [ "$total" -eq $((via + direct)) ] ||
    fail "$1: the runtime saw $total launches, the program made $((via + direct))"
}

run off
check_total off
[ "$(fake_launches '.*-D.*')" -eq 0 ] || fail "off: a variant kernel was launched"

run offline
check_total miss
job=$(compgen -G "$AOE_WORK_PATH/spool/*.job" | head -1 || true)
[ -n "$job" ] || fail "miss: no job captured in $AOE_WORK_PATH/spool"
run offline # a miss after capture: nothing new, same counts
check_total "miss after capture"
[ "$(fake_launches '.*-D.*')" -eq 0 ] || fail "miss: a variant kernel was launched"
[ "$(compgen -G "$AOE_WORK_PATH/spool/*.job" | wc -l)" -eq 1 ] || fail "miss: captured twice"

"$PY" "$S/tests/fakecl/record_for_job.py" "$job" 8 AOE_FAKECL_VARIANT=3 >"$T/rec.json"
"$AOE" bank import "$T/rec.json" >/dev/null 2>&1 || fail "bank import failed"
run off 300
check_total hit
via=$(num via_launches "$out") direct=$(num direct_launches "$out")
variant=$(fake_launches ' -DAOE_FAKECL_VARIANT=3')
timed=$((3 * 2000))
# every timed launch through the symbol went out tuned (the variant was
# built during the warm-up); the direct ones (libOpenCL's own entry point)
# and nothing else went out on the program's kernel.
[ "$variant" -ge "$timed" ] && [ "$variant" -le "$via" ] ||
  fail "hit: $variant launches on the variant kernel, expected $timed..$via: $err"
[ "$(fake_launches '')" -eq $((via + direct - variant)) ] || fail "hit: default launches: $err"
grep -q "options=\" -DAOE_FAKECL_VARIANT=3\" local=$variant " <<<"$err" ||
  fail "hit: the variant launches did not all carry the tuned local size: $err"
res=$(latest_result)
[ "$(json "$res" 'r["OPAT"]["repo_summary"]["hit"]')" = 1 ] || fail "hit: not a bank hit: $res"
[ "$(json "$res" 'r["OPAT"]["modified_operators"][0]["tuned_launches"]')" = "$variant" ] ||
  fail "hit: the result file's tuned_launches differs from the runtime's count"
echo "shim_fakecl: ok (off, miss, hit: $variant of $via launches on the variant)"
