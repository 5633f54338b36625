#!/usr/bin/env bash
# Several threads launching kernels at once (each with its own kernel object,
# one context and queue) under the shim: the output equals a run without it,
# the operator is captured and tuned, and the next run launches it tuned (at
# least the launches of the thread that saw the operator first: the others
# may launch untuned while it looks the operator up). Also run with the
# sanitizer build's shim (tests/integration/asan).
set -euo pipefail
. "$(dirname "$0")/shim_helpers.bash"
client=("$B/clients/threads_client" --threads 4 --checksum)
ref=$(checksum_of "$("${client[@]}" --repeat 2)")
[ -n "$ref" ] || fail "no checksum without the shim"
out=$(LD_PRELOAD="$HOOK" "${client[@]}" --repeat 2 2>"$T/err")
[ "$(checksum_of "$out")" = "$ref" ] || fail "first run differs: $out $(cat "$T/err")"
wait_drained "$AOE_WORK_PATH/spool"
"$AOE" bank list | grep -q ' mt_tr ' || fail "no record: $(cat "$AOE_WORK_PATH/spool/tuner.log")"
out=$(LD_PRELOAD="$HOOK" "${client[@]}" --repeat 2 2>"$T/err")
[ "$(checksum_of "$out")" = "$ref" ] || fail "tuned run differs: $out $(cat "$T/err")"
r=$(latest_result)
[ "$(json "$r" 'r["OPAT"]["repo_summary"]["hit"]')" = 1 ] || fail "no hit: $(cat "$r")"
[ "$(json "$r" 'r["OPAT"]["modified_operators"][0]["tuned_launches"] >= 2')" = True ] ||
  fail "not tuned: $(cat "$r")"
grep -v '^aoe: ' "$T/err" | grep -q . && fail "unexpected stderr: $(cat "$T/err")"
echo "shim_threads: ok (checksum $ref)"
